import { Fragment, type ReactNode } from 'react';

/*
 * S-240: user text in a right-to-left script displayed scrambled. A question of Arabic words with a U+202E override in
 * it showed its heading as "… لـ orders-dblive ؟", and a reason's quoted words (“ما”, “هو”, …) in reverse order with
 * their quote marks misplaced: in a left-to-right line the quote marks, commas and spaces between two right-to-left
 * words are drawn right to left with them, and an override in user text reorders what follows it. Where the site shows
 * user text as a whole element, that element has `dir="auto"`; where it sits inside the site's own sentence, it is in
 * a <bdi>. Either isolates it: its direction is its own first strong letter's, and nothing in it reaches past its end.
 */

/** A quoted stretch of a sentence: “curly” (the engine's reasons) or "straight" (the workspace's notes). */
const QUOTED = /(“[^“”]*”|"[^"]*")/;

/** A sentence of the site's with the words it quotes (a question's, a file's) each isolated in a <bdi>. */
export function isolateQuoted(text: string): ReactNode {
  const parts = text.split(QUOTED);
  if (parts.length === 1) return text;
  return parts.map((part, i) =>
    // split() with one capturing group puts the quoted stretches at the odd places.
    i % 2 === 1 ? (
      <Fragment key={i}>
        {part[0]}
        <bdi>{part.slice(1, -1)}</bdi>
        {part[part.length - 1]}
      </Fragment>
    ) : (
      part
    ),
  );
}
