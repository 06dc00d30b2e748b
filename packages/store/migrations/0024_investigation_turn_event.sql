-- A turn's events as they were streamed (issue 10): tool calls, provider
-- events, notes, then the result or the error. A streamed turn lost its events
-- with the connection: a client that dropped could not resume, and another
-- replica had nothing to replay. Stored here, GET …/turns/:turnId/events
-- replays them after Last-Event-ID on any replica, as runs replay their spans.
-- A turn is named by the user message that opened it; `seq` is the event's id
-- in the stream (1, 2, …), its natural key with the turn.
create table investigation_turn_event (
  turn_id          bigint not null references investigation_message(id) on delete cascade,
  seq              int not null check (seq >= 1),
  investigation_id uuid not null references investigation(id) on delete cascade,
  type             text not null check (type in ('tool', 'provider', 'note', 'result', 'error')),
  data             jsonb not null,
  created_at       timestamptz not null default now(),
  primary key (turn_id, seq)
);
