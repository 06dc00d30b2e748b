-- Insertion order for runs. created_at is the transaction's now(), whose
-- resolution on PGlite is a millisecond: runs created in the same instant tied,
-- and the tie-break on a random uuid listed them in random order (S-017, caught
-- by CI). A database-wide identity gives every replica one order to agree on.
alter table run add column seq bigint generated always as identity;
drop index run_created_at;
create index run_created_at on run (created_at desc, seq desc);
