import type { Chunk } from '@sandscope/engine';
import { resolveEvidence } from '@sandscope/eval';
import { charCount } from '../char-count.ts';

/** The longest passage a mark may name, in characters (code points): a quotation of it, or its id. As long as a note. */
export const MAX_MARK_EVIDENCE_CHARS = 2000;

/** The passage a mark names, as its id; or why it names none the person can be told (their words, not a stack). */
export type MarkEvidence = { readonly passage: string | null } | { readonly problem: string };

/**
 * The passage a person names as answering a marked run (S-286: `--evidence`, the API's and the website's `evidence`),
 * as the id of one passage of the library: a passage id as it is, or a quotation matched to the one passage holding
 * it — exactly as `eval` matches a question file's evidence (resolveEvidence: white space, typography and emphasis
 * aside), so a mark names what its export will be scored against. Blank or absent is none. A quotation matching no
 * passage, or several, is refused with resolveEvidence's words (the nearest passage, or those it matched), never
 * stored to be found wrong at the next evaluation.
 */
export function markEvidence(evidence: string | null | undefined, chunks: readonly Chunk[]): MarkEvidence {
  const text = evidence?.trim() ?? '';
  if (text === '') return { passage: null };
  const length = charCount(text);
  if (length > MAX_MARK_EVIDENCE_CHARS) {
    return { problem: `the passage that answers is ${length} characters; the limit is ${MAX_MARK_EVIDENCE_CHARS}: name its id, or quote one sentence of it` };
  }
  const { questions, errors } = resolveEvidence(
    [{ id: 'mark', question: 'the marked run', label: 'answerable', mechanism: 'feedback', evidence: text }],
    chunks,
  );
  const passage = questions[0]?.evidence;
  if (passage) return { passage };
  // resolveEvidence speaks of a question file's "evidence"; here it is the passage named as answering.
  const message = errors[0]?.message ?? `"${text}" names no passage`;
  return {
    problem: message.startsWith('evidence ') ? `the passage that answers ${message.slice('evidence '.length)}` : `the passage that answers: ${message}`,
  };
}
