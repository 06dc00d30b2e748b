-- The uploaded files' embeddings (issue 10, seed #15): each file is embedded in
-- passages of consecutive lines when it is uploaded, and the vectors were thrown
-- away — so search_files could only find a line that used the question's exact
-- words. Kept here, a question worded differently from the log still reaches
-- the lines (search_files ranks them by similarity beside its literal hits).
-- Stored as real[] like chunk_embedding (0003): Debian's PostgreSQL 15 has no
-- pgvector, and one investigation's passages are few enough to rank in-process.
-- A passage belongs to its file: replacing or removing the file removes them.
create table investigation_file_passage (
  investigation_id uuid not null,
  path             text not null,
  -- 1-based, inclusive, as read_file and a citation count lines.
  start_line       int not null check (start_line >= 1),
  end_line         int not null check (end_line >= start_line),
  -- The embedding space; vectors from different embedders are not comparable.
  embedder_id      text not null,
  dimensions       int not null check (dimensions > 0),
  embedding        real[] not null,
  check (array_length(embedding, 1) = dimensions),
  primary key (investigation_id, path, start_line),
  foreign key (investigation_id, path) references investigation_file (investigation_id, path) on delete cascade
);
