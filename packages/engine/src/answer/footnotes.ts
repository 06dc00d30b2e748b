import type { Claim } from '../types.ts';

/**
 * The passages a set of claims cites, in first-cited order: footnote n is the
 * n-th. The answer's markers, its `sources` list and the proposed action all
 * number from this one ordering, so a `[2]` means the same passage wherever it
 * is printed.
 */
export function footnoteIds(claims: readonly Claim[]): string[] {
  const ids: string[] = [];
  for (const c of claims) for (const id of c.citations) if (!ids.includes(id)) ids.push(id);
  return ids;
}

/** `[1][3]`: the footnote markers for `ids`, numbered by their place in `order` (from footnoteIds). */
export function footnoteMarks(ids: readonly string[], order: readonly string[]): string {
  return ids.map((id) => `[${order.indexOf(id) + 1}]`).join('');
}
