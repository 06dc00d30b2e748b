import type { AskResult } from '@sandscope/engine';

const VERDICT_LINE: Record<AskResult['verdict'], string> = {
  answered: 'ANSWERED',
  partial: 'PARTIAL — adjudicated from ambiguous evidence; confirm before acting',
  refused: 'REFUSED — the library does not answer this',
};

/** The human rendering of an ask result: answer with footnotes, sources, verdict, band and score. */
export function formatAskResult(r: AskResult): string {
  const lines: string[] = [];
  const score = r.score === null ? 'unscored' : `score ${r.score}`;
  lines.push(`${VERDICT_LINE[r.verdict]}  (band ${r.band}, ${score}${r.degraded ? ', DEGRADED: lexical only' : ''})`, '');
  if (r.verdict === 'refused') {
    lines.push('Why:');
    for (const reason of r.reasons) lines.push(`  - ${reason}`);
  } else {
    lines.push(r.answer, '', 'Sources:');
    r.sources.forEach((s, i) => lines.push(`  [${i + 1}] ${s.doc} › ${s.heading}  (${s.chunkId})`));
    lines.push('', 'Why:');
    for (const reason of r.reasons) lines.push(`  - ${reason}`);
  }
  return lines.join('\n');
}
