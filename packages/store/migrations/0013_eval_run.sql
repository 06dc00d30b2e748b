-- Evaluation results, kept so the latest measured figures can be read back.
create table eval_run (
  id         uuid primary key,
  created_at timestamptz not null default now(),
  kind       text not null,
  summary    jsonb not null
);
create index eval_run_kind on eval_run (kind, created_at desc);
