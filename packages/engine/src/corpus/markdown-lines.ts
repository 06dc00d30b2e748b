/**
 * How a reader of the rendered page sees a markdown line: as a heading, or as a fence that opens or closes a code
 * block. The chunker and the section-role reader both walk lines this way; one definition keeps a code comment
 * from being a heading in one and not the other.
 */

/**
 * An ATX heading: `## Steps`, `## Steps ##`. A closing run of `#` counts only after a space (CommonMark §4.2), so
 * `## C#` is about C#, not C (DEFECT_LOG S-078).
 */
export const HEADING = /^(#{1,6})\s+(.+?)(?:\s+#+)?\s*$/;

const FENCE_OPEN = /^\s*(`{3,}|~{3,})(.*)$/;

/**
 * The fence still open after `line`, given the one open before it (null: none). A fence closes only on a run of
 * its own character at least as long, with nothing after it (CommonMark §4.5): a "```" line inside a "~~~" block
 * is code, and once toggled the block shut, so the code after it became headings and prose (S-078).
 */
export function fenceAfter(open: string | null, line: string): string | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return open;
  const run = m[1]!;
  if (open === null) return run[0] === '`' && m[2]!.includes('`') ? null : run;
  return run[0] === open[0] && run.length >= open.length && !m[2]!.trim() ? null : open;
}
