import type { Chunk, Claim } from '../types.ts';
import { footnoteMarks } from './footnotes.ts';
import { textSectionsOf } from './sentences.ts';

/** Where a claim's sentence stands in its passage: prose, a list item (which one), or a line of a fenced block. */
type Shape =
  | { readonly kind: 'prose' }
  | { readonly kind: 'item'; readonly numbered: boolean; readonly block: string }
  | { readonly kind: 'code'; readonly block: string };

/**
 * The answer as one text, what the command line and the API's `answer` carry: each claim followed by its
 * footnotes, prose run together as before. But a command stays a command: consecutive lines of one fenced block
 * of a passage are printed as that block again, with the footnotes on the line after it. Run together with "[1]"
 * after every line, a multi-line shell command could not be pasted (issue 9 E: commands kept verbatim). A list
 * item keeps a line of its own, numbered in order if its list was, so steps read as steps. The claims themselves
 * are unchanged; only the text they are printed as.
 */
export function answerText(claims: readonly Claim[], order: readonly string[], chunkOf: (id: string) => Chunk | undefined): string {
  const shapes = new Map<string, Map<string, Shape>>();
  const shapeOf = (claim: Claim): Shape => {
    const id = claim.citations[0];
    const chunk = id ? chunkOf(id) : undefined;
    if (!id || !chunk) return { kind: 'prose' };
    let known = shapes.get(id);
    if (!known) {
      known = new Map();
      let b = 0;
      for (const section of textSectionsOf(chunk.text))
        for (const block of section.blocks) {
          // A fenced block's lines share one key (the fence); a list item's sentences share the item's.
          const key = block.kind === 'code' ? `${id} fence ${block.fence}` : `${id} block ${b}`;
          b++;
          const shape: Shape =
            block.kind === 'code'
              ? { kind: 'code', block: key }
              : block.kind === 'numbered' || block.kind === 'bulleted'
                ? { kind: 'item', numbered: block.kind === 'numbered', block: key }
                : { kind: 'prose' };
          for (const sentence of block.sentences) if (!known.has(sentence)) known.set(sentence, shape);
        }
      shapes.set(id, known);
    }
    return known.get(claim.text) ?? { kind: 'prose' };
  };
  const sameBlock = (a: Shape, b: Shape) => a.kind !== 'prose' && b.kind === a.kind && b.block === a.block;
  const marks = (group: readonly Claim[]) => footnoteMarks([...new Set(group.flatMap((c) => c.citations))], order);
  const parts: { kind: Shape['kind']; text: string }[] = [];
  let step = 0;
  for (let i = 0; i < claims.length; ) {
    const shape = shapeOf(claims[i]!);
    const group = [claims[i]!];
    for (i++; i < claims.length && sameBlock(shape, shapeOf(claims[i]!)); i++) group.push(claims[i]!);
    step = shape.kind === 'item' && shape.numbered ? step + 1 : 0;
    if (shape.kind === 'code') {
      // The footnotes on a line of their own: text after a closing fence would make it no fence in Markdown.
      parts.push({ kind: 'code', text: `\`\`\`\n${group.map((c) => c.text).join('\n')}\n\`\`\`\n${marks(group)}` });
    } else if (shape.kind === 'item') {
      parts.push({ kind: 'item', text: `${shape.numbered ? `${step}.` : '-'} ${group.map((c) => `${c.text} ${marks([c])}`).join(' ')}` });
    } else {
      parts.push({ kind: 'prose', text: `${group[0]!.text} ${marks(group)}` });
    }
  }
  // Prose after prose continues the paragraph; anything else starts a line of its own.
  return parts.map((p, i) => (i === 0 ? p.text : p.kind === 'prose' && parts[i - 1]!.kind === 'prose' ? ` ${p.text}` : `\n${p.text}`)).join('');
}
