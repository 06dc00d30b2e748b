-- A human approval of a run that stopped at await_approval. The approval is its
-- own run (approval_run_id) pointing back at the gated one; a gated run can be
-- approved once.
create table approval (
  id              bigserial primary key,
  gated_run_id    uuid not null unique references run(id),
  approval_run_id uuid not null unique references run(id),
  session_id      text not null references session(id),
  approved_at     timestamptz not null default now(),
  check (gated_run_id <> approval_run_id)
);
