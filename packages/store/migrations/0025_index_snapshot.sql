-- Issue 11: a replica starts from an index snapshot instead of rebuilding the
-- retrieval index. A snapshot is the engine's bytes (KnowledgeBase.snapshot),
-- keyed by the corpus version and a tag of the index code (the snapshot layout,
-- the embedder and a digest of the code that builds it), so a code change never
-- loads a stale one. At 100k passages it is hundreds of megabytes: it is stored
-- in parts, each row one part, with the digest of the whole on every row so a
-- torn or mixed set is refused rather than loaded.
create table index_snapshot (
  corpus_version text   not null,
  index_format   text   not null,
  part           int    not null check (part >= 0),
  parts          int    not null check (parts > 0 and part < parts),
  total_bytes    bigint not null check (total_bytes >= 0),
  sha256         text   not null,
  bytes          bytea  not null,
  created_at     timestamptz not null default now(),
  primary key (corpus_version, index_format, part)
);
-- Floats do not compress: skip the attempt on write and the decompression on read.
alter table index_snapshot alter column bytes set storage external;
