import { UNSTORABLE } from '@sandscope/engine/workspace';
import { z } from 'zod';

/** Where a request's text cannot be stored: the first offending character, by its 1-based position in code points. */
export interface UnstorableCharacter {
  readonly kind: 'nul' | 'unpaired_surrogate';
  /** The UTF-16 code unit, e.g. 0xd800. */
  readonly codeUnit: number;
  /** 1-based, counted in characters (code points) as a person counts them. */
  readonly position: number;
}

/**
 * The first character in `text` that the store cannot hold, or null.
 *
 * Issue 12, defect 5: JSON lets a client send `\u0000` and a lone `\ud800`;
 * JSON.parse turns them into a NUL and an unpaired surrogate, which Postgres
 * refuses in text and jsonb (and which are not valid Unicode anywhere). They
 * used to pass validation, so the request got 200 and then `internal` on the
 * stream when the run row was written. Found here, they are a 400 naming the
 * character and where it is.
 */
export function findUnstorableCharacter(text: string): UnstorableCharacter | null {
  const found = new RegExp(UNSTORABLE.source).exec(text);
  if (!found) return null;
  const codeUnit = text.charCodeAt(found.index);
  // Counted in characters: a complete pair before it is one.
  const position = [...text.slice(0, found.index)].length + 1;
  return { kind: codeUnit === 0 ? 'nul' : 'unpaired_surrogate', codeUnit, position };
}

export function describeUnstorableCharacter(found: UnstorableCharacter): string {
  const hex = found.codeUnit.toString(16).toUpperCase().padStart(4, '0');
  return found.kind === 'nul'
    ? `contains a NUL character (U+${hex}) at character ${found.position}; remove it`
    : `contains an unpaired surrogate (U+${hex}) at character ${found.position}; ` +
        'send valid Unicode text (a \\uD800–\\uDBFF escape must be followed by a \\uDC00–\\uDFFF one)';
}

/**
 * A text field of a request body: a string that holds no NUL and no unpaired
 * surrogate (defect 5). Every free-text field of every request schema uses it,
 * so no route can forget the check.
 */
export function requestText() {
  return z.string({ error: 'must be a string' }).superRefine((value, ctx) => {
    const found = findUnstorableCharacter(value);
    if (found) ctx.addIssue({ code: 'custom', message: describeUnstorableCharacter(found) });
  });
}
