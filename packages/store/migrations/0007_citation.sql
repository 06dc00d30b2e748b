-- Citations are stored per claim, not as a blob, so a reviewer can ask months
-- later which passage supported a specific sentence. chunk_id is a foreign key:
-- a citation pointing at nothing is not evidence, so it cannot be stored.
create table citation (
  id          bigserial primary key,
  run_id      uuid not null references run(id),
  claim_index int  not null check (claim_index >= 0),
  claim_text  text not null,
  chunk_id    text not null references chunk(id),
  unique (run_id, claim_index, chunk_id)
);
create index citation_run on citation (run_id, claim_index, id);
create index citation_chunk on citation (chunk_id);
