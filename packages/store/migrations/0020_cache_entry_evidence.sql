-- Issue 11 section 2: the semantic cache is shared by replicas through this
-- table (the engine's CacheStore). With each answer the cache keeps the
-- embedding space its vector is in — a vector from another embedder is never
-- compared (ADR-0008) — and the passages the answer was drafted from — a
-- semantic hit is served only when all of them are in front of the caller.
-- cache_entry had a column for neither.
alter table cache_entry
  add column embedder_id text null,
  add column evidence_ids text[] not null default '{}';
