-- Money is reserved before it is spent (D-010): every model call reserves, then
-- settles what it cost and releases the reservation. Append-only.
create table spend_ledger (
  id       bigserial primary key,
  run_id   uuid not null references run(id),
  kind     text not null check (kind in ('reserve', 'settle', 'release')),
  provider text null,
  usd      numeric(14, 6) not null check (usd >= 0),
  at       timestamptz not null default now()
);
create index spend_ledger_run on spend_ledger (run_id, id);
create index spend_ledger_at on spend_ledger (at) where kind = 'settle';
