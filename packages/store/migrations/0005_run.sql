-- One row per run of the graph. A gated run is never resumed: approving it
-- creates a new run whose parent_run_id points back at it (ADR-0006).
-- owner_id names the process that executes the run; start-up recovery marks a
-- 'running' run 'interrupted' only when its owner no longer holds its lease.
create table run (
  id            uuid primary key,
  parent_run_id uuid null references run(id),
  session_id    text not null references session(id),
  owner_id      text not null,
  workload      text not null,
  question      text not null,
  status        text not null default 'running'
                check (status in ('running', 'completed', 'interrupted', 'failed')),
  terminal      text null check (terminal in ('refuse', 'escalate', 'await_approval', 'emit')),
  verdict       text null check (verdict in ('answered', 'partial', 'refused')),
  band          text null check (band in ('insufficient', 'ambiguous', 'sufficient')),
  score         double precision null,
  answer        text null,
  risk          jsonb null,
  result        jsonb null,
  error         text null,
  corpus_version text not null,
  cost_usd      numeric(14, 6) not null default 0 check (cost_usd >= 0),
  tokens_in     int not null default 0 check (tokens_in >= 0),
  tokens_out    int not null default 0 check (tokens_out >= 0),
  created_at    timestamptz not null default now(),
  finished_at   timestamptz null,
  -- A completed run reached a terminal; anything else would be an unexplained stop.
  check (status <> 'completed' or terminal is not null),
  check ((status = 'running') = (finished_at is null))
);
create index run_created_at on run (created_at desc, id desc);
create index run_running_owner on run (owner_id) where status = 'running';
create index run_parent on run (parent_run_id) where parent_run_id is not null;
create index run_session on run (session_id, created_at desc);
