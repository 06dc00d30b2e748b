/** A topic the corpus deliberately does not cover, with the terms whose absence is verified. */
export interface Gap {
  readonly topic: string;
  readonly terms: readonly string[];
  /** Listed under "Corrections": once claimed a gap, found covered. Kept, never deleted. */
  readonly correction: boolean;
}

/**
 * Parse GAPS.md: lines `- **topic** — terms: \`a\`, \`b\` — why`. Lines under a
 * `## Corrections` heading are covered topics recorded in the open.
 */
export function parseGaps(markdown: string): Gap[] {
  const gaps: Gap[] = [];
  let inCorrections = false;
  for (const line of markdown.split('\n')) {
    if (/^#{1,6}\s/.test(line)) inCorrections = /corrections?/i.test(line);
    const m = /^\s*[-*]\s+\*\*(.+?)\*\*\s*[—-]+\s*terms:\s*(.+)$/i.exec(line);
    if (!m) continue;
    const terms = [...m[2]!.split(/\s[—-]\s/)[0]!.matchAll(/`([^`]+)`/g)].map((t) => t[1]!.trim()).filter(Boolean);
    if (terms.length) gaps.push({ topic: m[1]!.trim(), terms, correction: inCorrections });
  }
  return gaps;
}

/** Whole-word, case-insensitive: does the text contain the term? */
export function mentions(text: string, term: string): boolean {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, 'i').test(text);
}
