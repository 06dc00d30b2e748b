import { textSectionsOf } from './sentences.ts';

/**
 * A run of an answer's claims that reads as one thing: a paragraph of prose, one list item (with its number in its
 * passage when its list was numbered), or consecutive lines of one fenced block — a command.
 */
export type AnswerPart<C> =
  | { readonly kind: 'prose'; readonly claims: readonly C[] }
  | { readonly kind: 'item'; readonly claims: readonly C[]; readonly step: number | null }
  | { readonly kind: 'code'; readonly claims: readonly C[] };

/** Where a claim's sentence stands in its passage; `block` names the list item or fenced block it belongs to. */
type Shape =
  | { readonly kind: 'prose' }
  | { readonly kind: 'item'; readonly step: number | null; readonly block: string }
  | { readonly kind: 'code'; readonly block: string };

/** The passage a claim is printed beside (its first citation), with its text; undefined when it is not at hand. */
export type PassageOfClaim<C> = (claim: C) => { readonly id: string; readonly text: string } | undefined;

/**
 * The answer's claims laid out as they stood in their passages, the one layout both the answer text (the command
 * line and the API's `answer`) and the website's run page print. Claims are one sentence each, so a multi-line
 * command is several claims: printed one by one, each with its footnote, it could not be pasted (S-049), and a
 * numbered procedure lost its numbers. Consecutive lines of one fenced block become one `code` part, each list item
 * an `item` part numbered as it is in its passage, and consecutive prose one paragraph. A claim whose passage is not at
 * hand, or whose sentence the passage does not hold, is prose. The claims themselves are never changed.
 */
export function answerLayout<C extends { readonly text: string }>(claims: readonly C[], passageOf: PassageOfClaim<C>): AnswerPart<C>[] {
  const shapes = new Map<string, Map<string, Shape>>();
  const shapeOf = (claim: C): Shape => {
    const passage = passageOf(claim);
    if (!passage) return { kind: 'prose' };
    let known = shapes.get(passage.id);
    if (!known) {
      known = new Map();
      let b = 0;
      for (const section of textSectionsOf(passage.text)) {
        // An item's number is its place among its section's numbered items: a command or a note inside a step
        // (parsed as blocks of their own) does not restart the count, and a step the draft left out keeps its gap.
        let numbered = 0;
        for (const block of section.blocks) {
          // A fenced block's lines share one key (the fence); a list item's sentences share the item's.
          const key = block.kind === 'code' ? `${passage.id} fence ${block.fence}` : `${passage.id} block ${b}`;
          b++;
          const shape: Shape =
            block.kind === 'code'
              ? { kind: 'code', block: key }
              : block.kind === 'numbered' || block.kind === 'bulleted'
                ? { kind: 'item', step: block.kind === 'numbered' ? ++numbered : null, block: key }
                : { kind: 'prose' };
          for (const sentence of block.sentences) if (!known.has(sentence)) known.set(sentence, shape);
        }
      }
      shapes.set(passage.id, known);
    }
    return known.get(claim.text) ?? { kind: 'prose' };
  };
  const together = (a: Shape, b: Shape) => (a.kind === 'prose' ? b.kind === 'prose' : b.kind === a.kind && b.block === a.block);
  const parts: AnswerPart<C>[] = [];
  for (let i = 0; i < claims.length; ) {
    const shape = shapeOf(claims[i]!);
    const group = [claims[i]!];
    for (i++; i < claims.length && together(shape, shapeOf(claims[i]!)); i++) group.push(claims[i]!);
    parts.push(shape.kind === 'item' ? { kind: 'item', claims: group, step: shape.step } : { kind: shape.kind, claims: group });
  }
  return parts;
}
