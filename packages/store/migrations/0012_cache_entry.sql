-- The semantic cache: exact key first, then vector similarity within a
-- namespace (the cache composes it from embedder, corpus version and workload,
-- so entries from another embedding space or corpus are never compared).
create table cache_entry (
  key            text primary key,
  namespace      text not null,
  corpus_version text not null,
  workload       text not null,
  prompt_hash    text not null,
  embedding      real[] null,
  response       jsonb not null,
  created_at     timestamptz not null default now()
);
create index cache_entry_namespace on cache_entry (namespace, created_at desc);
