-- Insertion order for evaluation runs, for the same reason as 0015 (S-017):
-- two runs saved in one millisecond tied on created_at, and "the latest" was
-- whichever random uuid sorted last.
alter table eval_run add column seq bigint generated always as identity;
drop index eval_run_kind;
create index eval_run_kind on eval_run (kind, created_at desc, seq desc);
