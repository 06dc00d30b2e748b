-- A person's mark on a run: did it answer what it should have, refuse what it
-- should have (issue 9, part D)? One mark per run — marking again replaces it —
-- so run_id is the key. The marks become a question set that `sandscope eval
-- --feedback` scores with what ships. A mark points at a run, so a run that
-- was marked can never be deleted from under its mark.
create table feedback (
  run_id     uuid primary key references run(id),
  label      text not null check (label in ('wrong-answer', 'wrong-refusal', 'right')),
  note       text null check (note is null or char_length(note) between 1 and 2000),
  created_at timestamptz not null default now(),
  -- Insertion order, for the same reason as 0015 and 0016 (S-017): two marks in
  -- one millisecond must still list in the order they were made. Replacing a
  -- mark takes a fresh value, so a re-marked run lists as the newest.
  seq        bigint generated always as identity
);
create index feedback_created_at on feedback (created_at desc, seq desc);
