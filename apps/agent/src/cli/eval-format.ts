import type { EvaluationReport } from '@sandscope/eval';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pad = (s: string, n: number) => s.padEnd(n);

/** The table `sandscope eval` prints on a terminal. */
export function formatEvaluation(r: EvaluationReport, origin: string, thresholdsFrom?: string): string {
  const lines: string[] = [];
  const heldOut = r.mode === 'cross-validated';
  lines.push(`Questions: ${r.n} (${r.answerable} answerable, ${r.unanswerable} unanswerable) — ${origin}`);
  const which = thresholdsFrom === 'corpus' ? "this corpus's own thresholds (from calibrate)" : thresholdsFrom === 'defaults' ? "the engine's UNCALIBRATED default thresholds" : 'the SHIPPED thresholds';
  lines.push(heldOut ? `Figures are HELD-OUT: each fold scored with thresholds fitted on the other ${r.folds.length - 1} folds.` : `Figures use ${which}; nothing was tuned on this set (pass --cv to cross-validate on it).`);
  lines.push('');
  lines.push(`  false answers   ${pad(pct(r.falseAnswerRate), 8)} budget ≤ ${pct(r.budgets.falseAnswerRate)}`);
  lines.push(`  false refusals  ${pad(pct(r.falseRefusalRate), 8)} budget ≤ ${pct(r.budgets.falseRefusalRate)}`);
  lines.push(`  deferral        ${pad(pct(r.deferralRate), 8)} (ambiguous band, before adjudication)`);
  lines.push(`  chunk MRR       ${r.mrr.toFixed(3)}`);
  lines.push(`  recall@6        ${r.recallAt6.toFixed(3)}`);
  if (heldOut) lines.push(`  folds with no workable band: ${r.noWorkableBandFolds} of ${r.folds.length}`);
  lines.push('', `  ${pad('mechanism', 30)}${pad('label', 14)}${pad('n', 5)}${pad('answered', 10)}${pad('partial', 9)}refused`);
  for (const [m, row] of Object.entries(r.byMechanism)) {
    lines.push(`  ${pad(m, 30)}${pad(row.label, 14)}${pad(String(row.n), 5)}${pad(String(row.answered), 10)}${pad(String(row.partial), 9)}${row.refused}`);
  }
  lines.push('', '  baselines (same folds, held-out):');
  for (const [name, b] of Object.entries(r.baselines)) {
    lines.push(`  ${pad(name, 18)} false answers ${pad(pct(b.falseAnswerRate), 7)} false refusals ${pad(pct(b.falseRefusalRate), 7)} ${b.description}`);
  }
  const t = r.thresholds;
  lines.push('', `  thresholds ${heldOut ? '(fitted on the whole set after CV)' : '(shipped)'}: insufficientBelow ${t.insufficientBelow.toFixed(3)}, sufficientAbove ${t.sufficientAbove.toFixed(3)}, minTermCoverage ${t.minTermCoverage}, minConcentration ${t.minConcentration}, identifyingEntityMaxPassages ${t.identifyingEntityMaxPassages}`);
  if (r.inSample) lines.push(`  the same thresholds scored on the set they were fitted on (a memory, not a measurement): false answers ${pct(r.inSample.falseAnswerRate)}, false refusals ${pct(r.inSample.falseRefusalRate)}`);
  return lines.join('\n');
}
