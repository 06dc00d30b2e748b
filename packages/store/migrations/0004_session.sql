-- Session identity is a cookie (T-17): it scopes memory and binds approvals.
-- It is not authentication.
create table session (
  id           text primary key,
  created_at   timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
