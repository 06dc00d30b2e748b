-- S-257 (the replicas audit): a citation named its chunk and nothing else, so a run
-- read back showed the passage as the serving replica's corpus (or the shared chunk
-- table, which the latest replica to start writes over in place) held it NOW: a run
-- that answered "at most 100 connections" cited "at most 250" once another corpus
-- was loaded. A record of evidence does not change after the fact: each citation
-- keeps the passage as the run read it — its document, the heading the run named it
-- by and its text. The foreign key to the chunk stays (the citation still points at
-- a passage of the library). Rows recorded before this have none: all three are null
-- together, and they are read from the chunk table, said to be the library's text.
alter table citation
  add column passage_doc     text null,
  add column passage_heading text null,
  add column passage_text    text null,
  add constraint citation_passage_whole check (
    (passage_doc is null) = (passage_text is null) and (passage_heading is null) = (passage_text is null)
  );
