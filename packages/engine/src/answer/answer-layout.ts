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
  // Each passage's sentences in reading order, with the shape each stands in. A sentence may stand twice in one
  // passage — "Check if your system has the SYN cookies service enabled." opens both a Linux and a FreeBSD list — so
  // a claim takes the first occurrence after the last one its passage gave (the draft keeps reading order), not the
  // first in the passage: the FreeBSD steps were printed as the Linux list's 1 and 3 around a 5 (S-146).
  const passages = new Map<string, { readonly placed: readonly { sentence: string; shape: Shape }[]; next: number }>();
  const shapeOf = (claim: C): Shape => {
    const passage = passageOf(claim);
    if (!passage) return { kind: 'prose' };
    let known = passages.get(passage.id);
    if (!known) {
      known = { placed: placedSentences(passage), next: 0 };
      passages.set(passage.id, known);
    }
    const at = (from: number) => known.placed.findIndex((p, i) => i >= from && p.sentence === claim.text);
    const after = at(known.next);
    const found = after >= 0 ? after : at(0);
    if (found < 0) return { kind: 'prose' };
    known.next = found + 1;
    return known.placed[found]!.shape;
  };
  const together = (a: Shape, b: Shape) => (a.kind === 'prose' ? b.kind === 'prose' : b.kind === a.kind && b.block === a.block);
  // Once per claim, in order: each placing moves its passage's place on.
  const shapes = claims.map(shapeOf);
  const parts: AnswerPart<C>[] = [];
  for (let i = 0; i < claims.length; ) {
    const shape = shapes[i]!;
    const group = [claims[i]!];
    for (i++; i < claims.length && together(shape, shapes[i]!); i++) group.push(claims[i]!);
    parts.push(shape.kind === 'item' ? { kind: 'item', claims: group, step: shape.step } : { kind: shape.kind, claims: group });
  }
  return parts;
}

/**
 * A passage's sentences in reading order, each with its shape. An item's number is its place among its list's
 * numbered items: a command or a note inside a step does not restart the count, and a step the draft left out keeps
 * its gap. A list starts again where its source restarts at 1 after a higher number ("Enable SYN cookies in FreeBSD:"
 * and a second 1, 2, 3 under the Linux one were numbered 4, 5, 6); a list written "1. 1. 1." counts on (S-146).
 */
function placedSentences(passage: { readonly id: string; readonly text: string }): { sentence: string; shape: Shape }[] {
  const placed: { sentence: string; shape: Shape }[] = [];
  let b = 0;
  for (const section of textSectionsOf(passage.text)) {
    let numbered = 0;
    let lastSource = 0;
    for (const block of section.blocks) {
      // A fenced block's lines share one key (the fence); a list item's sentences share the item's.
      const key = block.kind === 'code' ? `${passage.id} fence ${block.fence}` : `${passage.id} block ${b}`;
      b++;
      if (block.kind === 'numbered') {
        if (block.number === 1 && lastSource > 1) numbered = 0;
        lastSource = block.number ?? lastSource;
      }
      const shape: Shape =
        block.kind === 'code'
          ? { kind: 'code', block: key }
          : block.kind === 'numbered' || block.kind === 'bulleted'
            ? { kind: 'item', step: block.kind === 'numbered' ? ++numbered : null, block: key }
            : { kind: 'prose' };
      for (const sentence of block.sentences) placed.push({ sentence, shape });
    }
  }
  return placed;
}
