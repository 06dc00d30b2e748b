-- The invented company's estate: services, who depends on whom, and the raw
-- signals (telemetry, incidents) later workloads will read. Loaded from
-- estate.json at start-up; nothing here is written by a run.
create table service (
  id          text primary key,
  name        text not null,
  tier        int  not null check (tier between 1 and 4),
  kind        text not null,
  owner       text not null,
  description text not null
);

create table service_dependency (
  from_service text not null references service(id),
  to_service   text not null references service(id),
  primary key (from_service, to_service),
  check (from_service <> to_service)
);

create table telemetry_event (
  id      bigserial primary key,
  service text not null references service(id),
  signal  text not null,
  value   double precision not null,
  at      timestamptz not null default now()
);
create index telemetry_event_service_at on telemetry_event (service, at desc);

create table incident (
  id        text primary key,
  title     text not null,
  service   text not null references service(id),
  severity  text not null,
  opened_at timestamptz not null default now(),
  body      text not null default ''
);
create index incident_service on incident (service);
