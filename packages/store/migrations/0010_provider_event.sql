-- What the router did on a run's behalf: each provider call, failure and
-- failover, in order.
create table provider_event (
  id         bigserial primary key,
  run_id     uuid not null references run(id),
  seq        int  not null check (seq > 0),
  provider   text not null,
  kind       text not null,
  status     text not null,
  message    text null,
  latency_ms double precision null check (latency_ms >= 0),
  tokens     int null check (tokens >= 0),
  cost_usd   numeric(14, 6) null check (cost_usd >= 0),
  at         timestamptz not null default now(),
  unique (run_id, seq)
);
