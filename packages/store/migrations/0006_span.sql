-- The trace of a run, one row per node start/end/event, written as it happens
-- so a crash loses nothing already written.
create table span (
  id          bigserial primary key,
  run_id      uuid not null references run(id),
  seq         int  not null check (seq > 0),
  node        text not null,
  kind        text not null check (kind in ('start', 'end', 'event')),
  at          timestamptz not null default now(),
  duration_ms double precision null check (duration_ms >= 0),
  attributes  jsonb not null default '{}'::jsonb,
  unique (run_id, seq)
);
