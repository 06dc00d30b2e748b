import { z } from 'zod';

/*
 * `GET /v1/corpus` (docs/API.md) as a zod schema: what the agent's data view
 * is tested against and the website's data page parses it with. A file of its
 * own with no relative imports, for the reason runs.ts gives. Not strict: a
 * field the agent adds is stripped, a field the website reads is checked.
 */

/** A corpus document with its full text (the data page publishes it). */
export const corpusDocumentSchema = z.object({ doc: z.string(), title: z.string(), text: z.string(), words: z.number() });
export type CorpusDocument = z.infer<typeof corpusDocumentSchema>;

/** A passage as retrieval cuts it: its id is what a citation names. */
export const corpusChunkSchema = z.object({ id: z.string(), doc: z.string(), heading: z.string() });
export type CorpusChunk = z.infer<typeof corpusChunkSchema>;

/**
 * A topic from GAPS.md: verified absent, or (`correction`) once listed as a gap
 * and found covered. A boolean: the website's hand-written copy allowed a string
 * here that the agent never sends.
 */
export const gapSchema = z.object({ topic: z.string(), terms: z.array(z.string()), correction: z.boolean() });
export type Gap = z.infer<typeof gapSchema>;

/**
 * Which library the agent reads: its folder's name, and whether it is the bundled one (Larkspur, invented). A team's
 * own library was introduced as "Larkspur's production estate" with presets about orders-db (S-149).
 */
export const librarySchema = z.object({ name: z.string(), bundled: z.boolean() });
export type Library = z.infer<typeof librarySchema>;

/**
 * `GET /v1/library`: the library named and sized, without its text. The console and the evaluation page need only its
 * name, and read it from here: they fetched every document of `GET /v1/corpus` to learn it (S-151).
 */
export const libraryViewSchema = librarySchema.extend({ version: z.string(), documents: z.number(), passages: z.number() });
export type LibraryView = z.infer<typeof libraryViewSchema>;

export const corpusSchema = z.object({
  version: z.string(),
  documents: z.array(corpusDocumentSchema),
  chunks: z.array(corpusChunkSchema),
  gaps: z.array(gapSchema),
  /** From questions.jsonl beside the corpus; zero and empty when there is none. */
  questions: z.object({ total: z.number(), byMechanism: z.record(z.string(), z.object({ label: z.string(), n: z.number() })) }),
  /** Absent from an agent older than S-149: read as bundled. */
  library: librarySchema.optional(),
});
export type Corpus = z.infer<typeof corpusSchema>;
