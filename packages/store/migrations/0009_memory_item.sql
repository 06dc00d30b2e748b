-- Conversation memory, scoped to a session.
create table memory_item (
  id         bigserial primary key,
  session_id text not null references session(id),
  run_id     uuid null references run(id),
  role       text not null check (role in ('user', 'assistant')),
  content    text not null,
  created_at timestamptz not null default now()
);
create index memory_item_session on memory_item (session_id, id desc);
