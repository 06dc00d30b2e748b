-- The corpus: documents and their heading-aligned passages. A chunk is the unit
-- of citation, so its id is what a citation's foreign key points at.
create table document (
  doc   text primary key,
  title text not null,
  text  text not null,
  words int  not null check (words >= 0)
);

create table chunk (
  id      text primary key,
  doc     text not null references document(doc),
  heading text not null,
  text    text not null,
  ord     int  not null check (ord >= 0)
);
create index chunk_doc on chunk (doc, ord);
