-- S-274 (the replicas audit): replicas on one database, some with REDIS_URL and some
-- without, each booked the daily spend in a different ledger (Redis, or spend_day
-- here), and the deployment spent $1.20 against a $1 DAILY_SPEND_CEILING_USD. Each
-- replica records here, at start-up, where it books; one whose ledger differs from
-- a live replica's refuses to start. A row counts while its owner holds its
-- run-ownership lease (owner-lease.ts), not for a time: a replica that stopped, even
-- by kill -9, stops counting at once, so a deployment that moves its ledger on
-- purpose (stop the old replicas, start the new) is never held back by a record of
-- one gone, and a live replica's record never lapses while it runs.
create table spend_ledger_replica (
  owner_id   text primary key,
  -- SANDSCOPE_REPLICA (the host name by default): named in the refusal.
  replica    text not null,
  ledger     text not null check (ledger in ('database', 'redis')),
  -- Redis only: host:port/database (never a password) and REDIS_KEY_PREFIX.
  redis_at   text null,
  key_prefix text null,
  started_at timestamptz not null default now(),
  constraint spend_ledger_replica_redis_whole check ((ledger = 'redis') = (redis_at is not null and key_prefix is not null))
);
