import type { Budgets } from './calibration.ts';
import type { CrossValidation } from './cross-validation.ts';
import type { BaselineSignals, Measured } from './measure.ts';

export interface BaselineReport {
  readonly description: string;
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
  /** Folds where no threshold met the false-answer budget on the fitting folds. */
  readonly noWorkableThresholdFolds: number;
  /** Whether any threshold on this signal refuses anything at all on held-out data. */
  readonly refusesAnything: boolean;
}

export const BASELINES: Record<string, { description: string; signal: ((s: BaselineSignals) => number) | null }> = {
  noGate: { description: 'no gate: always answer', signal: null },
  denseOnly: { description: 'dense only: max unnormalised cosine, one threshold', signal: (s) => s.denseMax },
  bm25Only: { description: 'BM25 only: max unnormalised BM25, one threshold', signal: (s) => s.bm25Max },
  fusedNormalised: { description: 'normalised fused score of the top hit (0.6 lexical + 0.4 dense), one threshold', signal: (s) => s.fusedTop },
  productOnly: { description: 'our product score alone, one threshold, no guards, no adjudication', signal: (s) => s.product },
};

/** Answer iff signal ≥ t, with t fitted on the fitting folds: fewest false refusals within the false-answer budget. */
function fitOne(items: readonly { label: string; x: number }[], budgets: Budgets): { t: number; feasible: boolean } {
  const xs = [...new Set(items.map((i) => i.x))].sort((a, b) => a - b);
  const candidates = [...xs, Infinity];
  const nU = items.filter((i) => i.label === 'unanswerable').length || 1;
  const nA = items.filter((i) => i.label === 'answerable').length || 1;
  let best = { t: Infinity, feasible: false, fr: Infinity, fa: Infinity };
  for (const t of candidates) {
    let fa = 0;
    let fr = 0;
    for (const i of items) {
      const answers = i.x >= t;
      if (i.label === 'unanswerable' && answers) fa++;
      if (i.label === 'answerable' && !answers) fr++;
    }
    const feasible = fa / nU <= budgets.falseAnswerRate;
    const better = feasible ? !best.feasible || fr < best.fr : !best.feasible && fa / nU + fr / nA < best.fa + best.fr;
    if (better) best = { t, feasible, fr: feasible ? fr : fr / nA, fa: feasible ? fa : fa / nU };
  }
  return { t: best.t, feasible: best.feasible };
}

/** Every baseline on the same folds as the gate's cross-validation, held-out figures only. */
export function measureBaselines(measured: readonly Measured[], cv: CrossValidation, budgets: Budgets): Record<string, BaselineReport> {
  const folds = Math.max(...cv.assignment.values()) + 1;
  const out: Record<string, BaselineReport> = {};
  for (const [name, { description, signal }] of Object.entries(BASELINES)) {
    let fa = 0;
    let fr = 0;
    let refusals = 0;
    let noWorkable = 0;
    for (let f = 0; f < folds; f++) {
      const train = measured.filter((m) => cv.assignment.get(m.question.id) !== f);
      const test = measured.filter((m) => cv.assignment.get(m.question.id) === f);
      const fitted = signal ? fitOne(train.map((m) => ({ label: m.question.label, x: signal(m.signals) })), budgets) : { t: -Infinity, feasible: true };
      if (!fitted.feasible) noWorkable++;
      for (const m of test) {
        const answers = signal ? signal(m.signals) >= fitted.t : true;
        if (!answers) refusals++;
        if (m.question.label === 'unanswerable' && answers) fa++;
        if (m.question.label === 'answerable' && !answers) fr++;
      }
    }
    const nU = measured.filter((m) => m.question.label === 'unanswerable').length || 1;
    const nA = measured.filter((m) => m.question.label === 'answerable').length || 1;
    out[name] = { description, falseAnswerRate: fa / nU, falseRefusalRate: fr / nA, noWorkableThresholdFolds: noWorkable, refusesAnything: refusals > 0 };
  }
  return out;
}
