import { answerLayout } from '../answer/answer-layout.ts';
import type { Chunk } from '../types.ts';
import type { TurnClaim } from './planner.ts';
import { citationLabel, type TurnCitation } from './turn-citation.ts';

/** Every citation of every claim, once, in the order first cited. */
export function uniqueCitations(claims: readonly TurnClaim[]): TurnCitation[] {
  const seen = new Set<string>();
  return claims
    .flatMap((c) => c.citations)
    .filter((c) => {
      const key = citationLabel(c);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** A cited passage as a run's `sources` carry it. */
export interface TurnPassage {
  readonly chunkId: string;
  readonly doc: string;
  readonly heading: string;
  readonly text: string;
}

/** The runbook passages a turn cites, with their text, so a reader can lay the claims out and open what they stand on. */
export function turnPassages(citations: readonly TurnCitation[], chunkOf: (id: string) => Chunk | undefined): TurnPassage[] {
  return citations.flatMap((c) => {
    const chunk = c.kind === 'passage' ? chunkOf(c.chunkId) : undefined;
    return chunk ? [{ chunkId: chunk.id, doc: chunk.doc, heading: chunk.heading, text: chunk.text }] : [];
  });
}

/**
 * A turn's answer as one text (what the CLI prints and the API's `answer` carries), in the layout the run page and
 * `ask` use (answer-layout.ts): a runbook's step on a line of its own, numbered as in its passage, and a command's
 * lines as one fenced block with the citations after it. Printed one claim per line with "[passage]" after each, a
 * procedure lost its numbers and a multi-line command could not be pasted — the defect S-049 mended for runs,
 * left in the workspace (S-063). A claim on file lines stays a line of its own: each is a separate finding.
 */
export function turnAnswerText(
  claims: readonly TurnClaim[],
  unknown: readonly string[],
  chunkOf: (id: string) => Chunk | undefined,
  /** Said after the claims, before what is unknown: how many matching lines the claims leave out (S-236). */
  said: readonly string[] = [],
): string {
  const cites = (group: readonly TurnClaim[]) => `[${uniqueCitations(group).map(citationLabel).join('; ')}]`;
  const parts = answerLayout(claims, (claim) => {
    const first = claim.citations[0];
    const chunk = first?.kind === 'passage' ? chunkOf(first.chunkId) : undefined;
    return chunk ? { id: chunk.id, text: chunk.text } : undefined;
  });
  const lines = parts.map((part) => {
    if (part.kind === 'code') return `\`\`\`\n${part.claims.map((c) => c.text).join('\n')}\n\`\`\`\n${cites(part.claims)}`;
    if (part.kind === 'item') return `${part.step === null ? '-' : `${part.step}.`} ${part.claims.map((c) => `${c.text} ${cites([c])}`).join(' ')}`;
    return part.claims.map((c) => `${c.text} ${cites([c])}`).join('\n');
  });
  return [...lines, ...said, ...unknown.map((u) => `Unknown: ${u}`)].join('\n');
}
