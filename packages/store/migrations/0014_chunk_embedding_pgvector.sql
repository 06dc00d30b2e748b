-- requires-extension: vector
-- Applied only where the pgvector extension is available; elsewhere it is
-- recorded as skipped and similarity is computed in-process from the real[]
-- column. A generated column keeps the write path identical in both modes.
-- Rows of another dimension get a null vector rather than failing the insert.
create extension if not exists vector;
alter table chunk_embedding
  add column embedding_vector vector(768)
  generated always as (case when dimensions = 768 then embedding::vector(768) end) stored;
create index chunk_embedding_hnsw on chunk_embedding using hnsw (embedding_vector vector_cosine_ops);
