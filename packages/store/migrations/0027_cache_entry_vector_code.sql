-- S-079's open half: a similarity scan read every entry's `embedding real[]` and `response`, a thousand of each
-- per lookup that missed (a median 151 ms on a Postgres server at 1,000 entries, `npm run bench:cache`). The vector
-- is now written as a short string (the engine's vector-code.ts) that the scan reads without the answer;
-- `embedding` stays for rows written before, and is read only where a row has no code.
alter table cache_entry add column vector_code text null;
