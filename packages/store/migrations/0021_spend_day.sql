-- Issue 11 section 2: the deployment's daily spend ceiling (DAILY_SPEND_CEILING_USD)
-- is booked here by every replica on one server, so two processes cannot each
-- spend "what is left". spend_day holds one UTC day's running totals in integer
-- nano-dollars; a reservation is a conditional UPDATE of its row (atomic under
-- concurrent writers). spend_hold is one open reservation, swept into spent_nano
-- in full once it expires: the process that made it died mid-call.
-- spend_ledger (0011) stays the per-run record of every reserve and settle.
create table spend_day (
  day           date primary key,
  spent_nano    bigint not null default 0 check (spent_nano >= 0),
  reserved_nano bigint not null default 0 check (reserved_nano >= 0)
);
create table spend_hold (
  id         uuid primary key,
  day        date not null references spend_day(day),
  nano       bigint not null check (nano >= 0),
  expires_ms bigint not null
);
create index spend_hold_expiry on spend_hold (day, expires_ms);
