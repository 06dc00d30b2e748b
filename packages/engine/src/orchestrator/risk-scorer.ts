import type { Estate, Service } from '../corpus/estate.ts';
import { containsPhrase } from '../retrieval/question-shape.ts';

/**
 * The risk gate's line. A proposed action scoring ABOVE it stops at
 * `await_approval` for a human; at or below it, the run emits.
 *
 * 0.5 is a policy choice, not a measurement: with the weights below it is the
 * point where (for a change) a tier-1 service alone, or a production-touching
 * verb on anything above a tier-4 leaf, is enough to stop — and where advisory
 * text (triage, postmortem) stops only when it proposes a production action on a
 * service that matters. Moving it moves every one of those sentences; the tests
 * in `workloads.test.ts` pin them.
 */
export const RISK_THRESHOLD = 0.5;

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
  /** Added when the question or the proposed action uses a production-touching word. */
  readonly production: number;
  /**
   * When set, a question that proposes no change at all (no mutating word) is
   * read-only and its score is capped here: reading the library about a tier-1
   * service is not changing it.
   */
  readonly readOnlyCeiling?: number;
}

export interface RiskInput {
  readonly question: string;
  /** The proposed action's text (what would be done, as words only — nothing is executed, T-11). */
  readonly actionText: string;
  readonly estate: Estate | null;
}

/** Tier 1 is the most critical. A tier the estate does not know (no service named) is scored as `UNKNOWN_TIER_WEIGHT`. */
const TIER_WEIGHT: Readonly<Record<number, number>> = { 1: 1, 2: 0.6, 3: 0.3, 4: 0.1 };

/** No named service: the blast radius is unknown, so it is scored between tier 2 and 3 — not as safe as a leaf. */
const UNKNOWN_TIER_WEIGHT = 0.5;

/**
 * Words that mean an action reaches the running production system. Matched
 * whole-word, case-insensitive, on the question and on the proposed action.
 */
const PRODUCTION_WORDS =
  /\b(?:re)?deploy(?:s|ed|ing|ment|ments)?\b|\brelease(?:s|d)?\b|\brolling[ -]?out\b|\broll(?:s|ed)?[ -]out\b|\brollouts?\b|\bmigrat(?:e|es|ed|ing|ion|ions)\b|\brestart(?:s|ed|ing)?\b|\breboot(?:s|ed|ing)?\b|\bfail(?:s|ed|ing)?[ -]over\b|\bfailovers?\b|\bpromot(?:e|es|ed|ing|ion)\b|\bdrop(?:s|ped|ping)?\b|\bdelet(?:e|es|ed|ing|ion)\b|\btruncat(?:e|es|ed|ing)\b|\bpurg(?:e|es|ed|ing)\b|\bflush(?:es|ed|ing)?\b|\broll(?:s|ed|ing)?[ -]back\b|\brollbacks?\b|\bproduction\b|\bprod\b|\bhotfix(?:es|ed)?\b|\bkill(?:s|ed|ing)?\b/gi;

/** Words that mean the question proposes changing something (production words count too). */
const CHANGE_WORDS =
  /\bchang(?:e|es|ed|ing)\b|\bdeploy|\brais(?:e|es|ed|ing)\b|\bincreas(?:e|es|ed|ing)\b|\blower(?:s|ed|ing)?\b|\bdecreas(?:e|es|ed|ing)\b|\breduc(?:e|es|ed|ing)\b|\bbump(?:s|ed|ing)?\b|\bset(?:s|ting|tings)?\b|\bupdat(?:e|es|ed|ing)\b|\bupgrad(?:e|es|ed|ing)\b|\bdowngrad(?:e|es|ed|ing)\b|\bpatch(?:es|ed|ing)?\b|\bappl(?:y|ies|ied|ying)\b|\benabl(?:e|es|ed|ing)\b|\bdisabl(?:e|es|ed|ing)\b|\btoggl(?:e|es|ed|ing)\b|\bflip(?:s|ped|ping)?\b|\brotat(?:e|es|ed|ing)\b|\bresiz(?:e|es|ed|ing)\b|\bscal(?:e|es|ed|ing)\b|\btun(?:e|es|ed|ing)\b|\bedit(?:s|ed|ing)?\b|\bmodif(?:y|ies|ied|ying)\b|\breconfigur(?:e|es|ed|ing)\b|\breplac(?:e|es|ed|ing)\b|\bremov(?:e|es|ed|ing)\b|\badd(?:s|ed|ing)?\b/gi;

function matches(text: string, pattern: RegExp): string[] {
  return [...new Set([...text.matchAll(pattern)].map((m) => m[0].toLowerCase()))];
}

/** Production-touching words in `text`, lower-cased and de-duplicated. */
export function productionWords(text: string): string[] {
  return matches(text, PRODUCTION_WORDS);
}

/** Mutating words in `text` (a question with none proposes no change). */
export function changeWords(text: string): string[] {
  return [...new Set([...matches(text, CHANGE_WORDS), ...productionWords(text)])];
}

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

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The deterministic risk score: tier of the affected service, how much depends
 * on it, and whether the action touches production, weighted by the workload.
 * When the question names several services, the riskiest drives the score.
 * No model is consulted: a score an attacker can talk down is not a gate (T-4).
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

  const touching = productionWords(`${input.question}\n${input.actionText}`);
  let score = structural;
  if (touching.length > 0) {
    score += weights.production;
    factors.push(`touches production: ${touching.join(', ')}`);
  } else {
    factors.push('no production-touching word in the question or the proposed action');
  }

  if (weights.readOnlyCeiling !== undefined && changeWords(input.question).length === 0) {
    if (score > weights.readOnlyCeiling) factors.push(`read-only: the question proposes no change, so the score is capped at ${weights.readOnlyCeiling}`);
    else factors.push('read-only: the question proposes no change');
    score = Math.min(score, weights.readOnlyCeiling);
  }

  return { score: round(Math.min(1, Math.max(0, score))), factors, threshold: RISK_THRESHOLD, ...(service ? { service: service.id } : {}) };
}
