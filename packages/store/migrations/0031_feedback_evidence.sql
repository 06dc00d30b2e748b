-- S-286 (a black-box audit of the feedback loop): a mark said only what the library can
-- answer, never where. A `right` mark was exported with the run's own first citation as
-- its evidence, so `eval --feedback` scored right source 100% by construction, even where
-- the person noted the answer came from the wrong passage; and `wrong-answer`, the only
-- other label, exported the question as unanswerable, which a question answered from the
-- wrong passage is not. A mark may now name the passage that answers: the id of a passage
-- of the library (a quotation is matched to its passage before it is stored, as eval
-- matches evidence). Null: the person named none. No foreign key to chunk: the chunk
-- table holds the library as the latest replica loaded it, and a mark keeps its label.
alter table feedback
  add column evidence text null check (evidence is null or char_length(evidence) > 0);
