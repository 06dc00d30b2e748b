-- S-263 (a black-box audit): a `wrong-answer` mark evicts the run's answer from the
-- semantic cache (S-132), but with the cache's Redis down the eviction failed, was
-- logged, and once Redis was back the answer the person had marked wrong was served
-- again to everyone who asked alike, until it expired. What the mark withdraws is
-- written here, in the same statement as the mark, in the database every replica
-- shares: each cache key the run's drafts were served from or stored under, and when.
-- A cached entry under a withdrawn key written at or before that time is not served,
-- whether or not its eviction succeeded. One row per key, the latest withdrawal's time:
-- an answer written under the key after the mark (drafted afresh) is served as any other.
create table cache_withdrawal (
  cache_key    text primary key,
  withdrawn_at timestamptz not null,
  -- The run whose mark withdrew it last, for an operator asking why an answer is not served.
  run_id       uuid not null references run(id)
);
