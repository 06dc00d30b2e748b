-- The investigation workspace (issue 10, seed 004): a multi-turn conversation
-- over an incident's own files. Three tables, one purpose: an investigation,
-- its files, its messages. Deleting an investigation deletes what is its own.
create table investigation (
  id         uuid primary key,
  title      text not null check (char_length(title) between 1 and 200),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Insertion order, for the same reason as 0015 (S-017): two investigations
  -- made in one millisecond still list in the order they were made.
  seq        bigint generated always as identity
);
create index investigation_created_at on investigation (created_at desc, seq desc);

-- A file is keyed by its natural key, (investigation, path): every replica
-- names the same row for the same file, with no id to cache or agree on (seed
-- #16's duplicate-workspace defect). Uploading the same path again replaces it.
-- The content is stored as text (uploads are refused unless they are UTF-8).
create table investigation_file (
  investigation_id uuid not null references investigation(id) on delete cascade,
  path             text not null check (char_length(path) between 1 and 255 and path !~ '(^|/)\.\.(/|$)' and left(path, 1) <> '/'),
  content          text not null,
  size_bytes       int not null check (size_bytes >= 0),
  -- 'error' carries the reason (seed #15: a failed embedding marks the file, the
  -- text stays searchable lexically); 'ok' carries none.
  status           text not null default 'ok' check (status in ('ok', 'error')),
  error            text null,
  created_at       timestamptz not null default now(),
  primary key (investigation_id, path),
  check ((status = 'error') = (error is not null))
);

-- The conversation. Only user and assistant messages are rows: tool calls are
-- part of the assistant message that made them (its result), never replayed as
-- model input (seed #17). An assistant message carries its final metrics
-- (seed #22) so a reload shows them; a user message carries none.
create table investigation_message (
  id                bigint generated always as identity primary key,
  investigation_id  uuid not null references investigation(id) on delete cascade,
  role              text not null check (role in ('user', 'assistant')),
  text              text not null check (char_length(text) >= 1),
  result            jsonb null,
  prompt_tokens     int null check (prompt_tokens >= 0),
  completion_tokens int null check (completion_tokens >= 0),
  elapsed_ms        float8 null check (elapsed_ms >= 0),
  cost_usd          float8 null check (cost_usd >= 0),
  provider          text null,
  created_at        timestamptz not null default now(),
  check (role = 'assistant' or (result is null and prompt_tokens is null and completion_tokens is null
                                and elapsed_ms is null and cost_usd is null and provider is null))
);
create index investigation_message_order on investigation_message (investigation_id, id);
