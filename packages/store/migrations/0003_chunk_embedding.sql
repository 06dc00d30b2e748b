-- Dense vectors for chunks, stored as real[] so they work on any Postgres,
-- with or without the pgvector extension (Debian's PostgreSQL 15 has none).
-- 0011 adds a vector(768) column beside it where pgvector is available.
create table chunk_embedding (
  chunk_id    text primary key references chunk(id) on delete cascade,
  -- The embedding space; vectors from different embedders are not comparable.
  embedder_id text not null,
  dimensions  int  not null check (dimensions > 0),
  embedding   real[] not null,
  check (array_length(embedding, 1) = dimensions)
);
