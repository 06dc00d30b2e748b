import { round3 } from '../round.ts';
import type { Estate, Service } from '../corpus/estate.ts';
import type { Intent } from '../answerability/question-intent.ts';
import { containsPhrase } from '../retrieval/question-shape.ts';
import { actWordsIn } from './act-words.ts';
import { type ActReading, actionIntent } from './action-intent.ts';

/**
 * The risk gate's line. A proposed action scoring ABOVE it stops at
 * `await_approval` for a human; at or below it, the run emits.
 *
 * 0.5 is a policy choice, not a measurement. With the workloads' weights, a
 * question that asks to act stops: for a change, on a tier-1 or tier-2 service,
 * an unnamed one, or a tier-3 service something depends on; for advisory text
 * (triage, postmortem), on anything but a tier-4 leaf. A look-up never stops
 * (`LOOKUP_CEILING`). Moving it moves every one of those sentences; the tests in
 * `workloads.test.ts` and `risk-questions.test.ts` pin them.
 */
export const RISK_THRESHOLD = 0.5;

/**
 * Where a look-up's score is capped, whatever the service: below the line by
 * construction, so no weight can gate a question that asks for nothing to be
 * done (issue 13: 13 of 50 CLI look-ups stopped for approval).
 */
export const LOOKUP_CEILING = 0.2;

/** What the risk gate reads, and what the run result carries. */
export interface RiskAssessment {
  /** 0..1; higher is riskier. Deterministic from the estate and the text. */
  readonly score: number;
  /** Why, one readable line per contribution. */
  readonly factors: readonly string[];
  readonly threshold: number;
  /** The named service the score is driven by, when one is named. */
  readonly service?: string;
}

/** How much each factor can add. A workload is data: these numbers are most of what makes change review stricter than triage. */
export interface RiskWeights {
  /** Times the service's tier weight (tier 1 → 1.0 … tier 4 → 0.1). */
  readonly tier: number;
  /** Times the blast radius d/(d+3), d = services depending on it directly or transitively. */
  readonly blastRadius: number;
  /**
   * Added when the question asks to act (`action-intent.ts`): a restart, a
   * deploy, a raised ceiling all reach the running system. (It was added for a
   * production-touching word anywhere in the question or the cited evidence:
   * issue 13.)
   */
  readonly act: number;
}

export interface RiskInput {
  readonly question: string;
  /**
   * The proposed action's text (what would be done, as words only — nothing is
   * executed, T-11). The workloads build it from the question and the cited
   * claims, so it is evidence: it is reported, never scored (issue 13).
   */
  readonly actionText: string;
  readonly estate: Estate | null;
}

/** Tier 1 is the most critical. A tier the estate does not know (no service named) is scored as `UNKNOWN_TIER_WEIGHT`. */
const TIER_WEIGHT: Readonly<Record<number, number>> = { 1: 1, 2: 0.6, 3: 0.3, 4: 0.1 };

/** No named service: the blast radius is unknown, so it is scored between tier 2 and 3 — not as safe as a leaf. */
const UNKNOWN_TIER_WEIGHT = 0.5;

/** Estate services a text names, by id (`orders-db`) or display name (`Orders database`). */
export function servicesNamed(text: string, estate: Estate | null): Service[] {
  if (!estate) return [];
  const lower = text.toLowerCase();
  return estate.services.filter((s) => containsPhrase(lower, s.id) || containsPhrase(lower, s.name.toLowerCase()));
}

/**
 * Services that depend on `serviceId`, directly and transitively — everything
 * that could feel a change to it. Cycles are tolerated.
 */
export function dependentsOf(serviceId: string, estate: Estate): { direct: string[]; all: string[] } {
  const dependents = new Map<string, string[]>();
  for (const d of estate.dependencies) dependents.set(d.to, [...(dependents.get(d.to) ?? []), d.from]);
  const direct = [...new Set(dependents.get(serviceId) ?? [])];
  const seen = new Set<string>();
  const queue = [...direct];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (next === serviceId || seen.has(next)) continue;
    seen.add(next);
    queue.push(...(dependents.get(next) ?? []));
  }
  return { direct, all: [...seen] };
}

/** What a look-up asks for, in the factor line (the answerability model's intents). */
export const LOOKUP_WORDING: Readonly<Record<Intent, string>> = {
  procedure: 'asks for a procedure',
  diagnosis: 'asks how to investigate',
  impact: 'asks about impact',
  cause: 'asks for a cause',
  value: 'asks for a value',
  meaning: 'asks what something means',
  'yes-no': 'asks whether something is so',
  lookup: 'asks what the library says',
};

const FORM_WORDING: Readonly<Record<ActReading['form'], string>> = {
  imperative: 'asked for',
  proposal: 'proposed',
  declared: 'declared',
  described: 'a change described',
  urged: 'urged',
  needed: 'said to be needed',
  confirmed: 'confirmed',
};

/**
 * The deterministic risk score: tier of the affected service, how much depends
 * on it, and whether the question asks to act, weighted by the workload. When
 * the question names several services, the riskiest drives the score.
 *
 * Only the question is read for the act — what the user asks to do — never the
 * words of the cited passages: a runbook that says "restart" answers a look-up,
 * it does not turn it into a restart (issue 13). A look-up is capped at
 * `LOOKUP_CEILING`. No model is consulted: a score an attacker can talk down is
 * not a gate (T-4). Factor lines carry only estate names and words from closed
 * lists, never the question's own text (T-16: factors are exported as spans).
 */
export function scoreRisk(input: RiskInput, weights: RiskWeights): RiskAssessment {
  const factors: string[] = [];
  const named = servicesNamed(input.question, input.estate);

  let service: Service | undefined;
  let structural = 0;
  if (named.length === 0 || !input.estate) {
    structural = weights.tier * UNKNOWN_TIER_WEIGHT;
    factors.push(
      input.estate
        ? `no service in the estate is named: blast radius unknown, scored as tier weight ${UNKNOWN_TIER_WEIGHT}`
        : `no estate is loaded: blast radius unknown, scored as tier weight ${UNKNOWN_TIER_WEIGHT}`,
    );
  } else {
    for (const s of named) {
      const { direct, all } = dependentsOf(s.id, input.estate);
      const tier = weights.tier * (TIER_WEIGHT[s.tier] ?? UNKNOWN_TIER_WEIGHT);
      const blast = weights.blastRadius * (all.length / (all.length + 3));
      const leaf = all.length === 0 ? ' — a leaf: nothing depends on it' : '';
      factors.push(`${s.id} is tier ${s.tier} (${s.kind}, 1 is most critical)${leaf}`);
      if (all.length > 0) {
        factors.push(`${all.length} service${all.length === 1 ? '' : 's'} depend on ${s.id} (${direct.length} directly): ${all.join(', ')}`);
      }
      if (!service || tier + blast > structural) {
        service = s;
        structural = tier + blast;
      }
    }
    if (named.length > 1 && service) factors.push(`${service.id} is the riskiest service named and drives the score`);
  }

  const ask = actionIntent(input.question);
  let score = structural;
  if (ask.asks === 'act') {
    score += weights.act;
    factors.push(`asks to act, which reaches the running system: ${ask.acts.map((a) => `${a.verb} (${FORM_WORDING[a.form]})`).join(', ')}`);
  } else {
    factors.push(
      `a look-up (${LOOKUP_WORDING[ask.intent]}): it proposes no action${score > LOOKUP_CEILING ? `, so the score is capped at ${LOOKUP_CEILING}` : ''}`,
    );
    score = Math.min(score, LOOKUP_CEILING);
  }

  // The words the scorer used to count from the evidence, named so a reader sees why a runbook's "restart" did not gate.
  const asked = new Set(actWordsIn(input.question));
  const cited = actWordsIn(input.actionText, ['production']).filter((w) => !asked.has(w));
  if (cited.length > 0) factors.push(`not scored: the cited passages mention ${cited.join(', ')} — what the library says is not what was asked`);

  return { score: round3(Math.min(1, Math.max(0, score))), factors, threshold: RISK_THRESHOLD, ...(service ? { service: service.id } : {}) };
}
