-- Issue 13 (codebase 4): nothing ever wrote or read conversation memory. The
-- investigation workspace keeps its own history (investigation_message), and a
-- table no code uses is a schema a reader must understand for nothing. Dropped
-- until something uses it; a later migration creates it again with its reader.
drop table memory_item;
