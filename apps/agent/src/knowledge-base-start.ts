import { createHash } from 'node:crypto';
import { corpusVersion, type Estate, HashingEmbedder, type KnowledgeBase, SnapshotError } from '@sandscope/engine';
import { type Database, loadIndexSnapshot, saveIndexSnapshot } from '@sandscope/store';
import type { CorpusSource } from './corpus-source.ts';
import { indexCodeTag } from './index-code-tag.ts';
import { knowledgeBaseFromSnapshot, knowledgeBaseOf } from './knowledge-base-of.ts';

/** An estate with nothing in it, for a corpus folder without estate.json (the tables still load). */
export const EMPTY_ESTATE: Estate = { company: '', services: [], dependencies: [], faults: [], properties: [], policyValues: [] };

export interface StartedKnowledgeBase {
  readonly kb: KnowledgeBase;
  /** How it was made, for the start-up lines. */
  readonly note: string;
  readonly from: 'snapshot' | 'built';
}

/**
 * The corpus version a snapshot is filed under: the one every run records (KnowledgeBase.version, over the
 * documents), with the estate's digest beside it — the estate's service names are in the lexicon.
 */
export function snapshotCorpusVersion(source: CorpusSource): string {
  const estate = createHash('sha256')
    .update(JSON.stringify(source.estate ?? EMPTY_ESTATE))
    .digest('hex')
    .slice(0, 16);
  return `${corpusVersion(source.documents)}+estate-${estate}`;
}

/**
 * A replica's knowledge base (issue 11): from the index snapshot in the store when one matches this corpus
 * version and this index code, else built — and then saved, so the next replica loads it. A snapshot that
 * is missing, torn or unreadable is never an error: the replica builds, as it did before snapshots.
 */
export async function startKnowledgeBase(db: Database, source: CorpusSource, options: { indexCodeTag?: string | null } = {}): Promise<StartedKnowledgeBase> {
  const tag = options.indexCodeTag !== undefined ? options.indexCodeTag : indexCodeTag(new HashingEmbedder());
  if (!tag) {
    const kb = await knowledgeBaseOf(source);
    return { kb, from: 'built', note: 'index: built (no snapshot: the engine sources are not readable, so a stale snapshot could not be told apart)' };
  }
  const started = performance.now();
  const key = { corpusVersion: snapshotCorpusVersion(source), indexFormat: tag };
  const loaded = await loadIndexSnapshot(db, key);
  let why = 'none saved for this corpus version and index code';
  if (loaded.status === 'found') {
    try {
      const kb = knowledgeBaseFromSnapshot(source, loaded.bytes);
      return {
        kb,
        from: 'snapshot',
        note: `index: loaded from snapshot (corpus ${key.corpusVersion}, ${(loaded.bytes.length / 1e6).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms`,
      };
    } catch (error) {
      if (!(error instanceof SnapshotError)) throw error;
      why = `the saved one is unusable: ${error.message}`;
    }
  } else if (loaded.status === 'corrupt') why = `the saved one is corrupt: ${loaded.reason}`;
  const kb = await knowledgeBaseOf(source);
  const built = performance.now() - started;
  if (kb.chunks.length > 0 && kb.retriever.parts.vectors === null) {
    return { kb, from: 'built', note: `index: built in ${Math.round(built)} ms (${why}); not saved: retrieval is degraded` };
  }
  const { parts } = await saveIndexSnapshot(db, key, kb.snapshot());
  return { kb, from: 'built', note: `index: built in ${Math.round(built)} ms (${why}); snapshot saved in ${parts} part(s) for the next replica` };
}
