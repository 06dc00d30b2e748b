import type { Chunk, Claim } from '../types.ts';
import { answerLayout } from './answer-layout.ts';
import { footnoteMarks } from './footnotes.ts';

/**
 * The answer as one text, what the command line and the API's `answer` carry, in the layout the website prints
 * too (answer-layout.ts): prose run together, each claim followed by its footnotes; a list item on a line of its
 * own, numbered as in its passage; consecutive lines of one fenced block printed as that block again, with the
 * footnotes on the line after it — run together with "[1]" after every line, a multi-line shell command could not
 * be pasted (issue 9 E, S-049). The claims themselves are unchanged; only the text they are printed as.
 */
export function answerText(claims: readonly Claim[], order: readonly string[], chunkOf: (id: string) => Chunk | undefined): string {
  const marks = (group: readonly Claim[]) => footnoteMarks([...new Set(group.flatMap((c) => c.citations))], order);
  const each = (group: readonly Claim[]) => group.map((c) => `${c.text} ${marks([c])}`).join(' ');
  const parts = answerLayout(claims, (claim) => {
    const id = claim.citations[0];
    const chunk = id ? chunkOf(id) : undefined;
    return chunk ? { id: chunk.id, text: chunk.text } : undefined;
  });
  return parts
    .map((part) => {
      const lines = part.claims.map((c) => c.text).join('\n');
      // The footnotes on a line of their own: text after a closing fence would make it no fence in Markdown.
      if (part.kind === 'code') return `\n\`\`\`\n${lines}\n\`\`\`\n${marks(part.claims)}`;
      if (part.kind === 'item') return `\n${part.step === null ? '-' : `${part.step}.`} ${each(part.claims)}`;
      return `\n${each(part.claims)}`;
    })
    .join('')
    .slice(1);
}
