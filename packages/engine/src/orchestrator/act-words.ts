import { stem, words } from '../retrieval/tokenizer.ts';

/**
 * The words of an act: the closed lists of verbs that reach or change the
 * running system, matched on the tokenizer's stems, and the rule for when such
 * a word is a verb at all ("restart checkout-api") or names a thing ("the
 * restart policy"). Issue 13 (codebase item 9): these replace two regexes of 526
 * and 692 characters that matched inflections by hand ("restart(?:s|ed|ing)?")
 * and could not tell a verb from a noun.
 */

export type ActKind = 'production' | 'change';

/** Verbs that reach the running system. */
const PRODUCTION_VERBS = [
  'deploy',
  'redeploy',
  'release',
  'ship',
  'push',
  'rollout',
  'rollback',
  'revert',
  'migrate',
  'restart',
  'reboot',
  'bounce',
  'recycle',
  'failover',
  'switchover',
  'promote',
  'demote',
  'drop',
  'delete',
  'truncate',
  'purge',
  'flush',
  'evict',
  'wipe',
  'kill',
  'terminate',
  'stop',
  'shutdown',
  'drain',
  'cordon',
  'hotfix',
  'rebuild',
  'reindex',
  'reset',
  'restore',
  'replay',
  'reprocess',
  'evacuate',
];

/** Verbs that change a setting of it. */
const CHANGE_VERBS = [
  'change',
  'raise',
  'increase',
  'lower',
  'decrease',
  'reduce',
  'bump',
  'set',
  'update',
  'upgrade',
  'downgrade',
  'patch',
  'apply',
  'enable',
  'disable',
  'toggle',
  'flip',
  'rotate',
  'resize',
  'scale',
  'tune',
  'edit',
  'modify',
  'reconfigure',
  'replace',
  'remove',
  'add',
  'adjust',
  'extend',
  'shorten',
  'double',
  'halve',
  'cap',
  'throttle',
  'pin',
  'unpin',
  'switch',
  'move',
  'expand',
  'shrink',
  'grow',
  'provision',
  'deprovision',
  'install',
  'uninstall',
  'pause',
  'resume',
  'suspend',
  'merge',
];

/**
 * Verbs that act only with their particle, within two words ("roll it back"):
 * "roll" alone is not an act, and "rolling restart" is a kind of restart.
 */
const PHRASAL: Readonly<Record<string, Readonly<Record<string, { verb: string; kind: ActKind }>>>> = {
  roll: { back: { verb: 'roll back', kind: 'production' }, out: { verb: 'roll out', kind: 'production' } },
  fail: { over: { verb: 'fail over', kind: 'production' } },
  shut: { down: { verb: 'shut down', kind: 'production' }, off: { verb: 'shut down', kind: 'production' } },
  take: { down: { verb: 'take down', kind: 'production' }, offline: { verb: 'take down', kind: 'production' } },
  bring: { down: { verb: 'take down', kind: 'production' }, up: { verb: 'bring up', kind: 'production' } },
  spin: { up: { verb: 'scale', kind: 'change' }, down: { verb: 'scale', kind: 'change' } },
  turn: { on: { verb: 'enable', kind: 'change' }, off: { verb: 'disable', kind: 'change' } },
  switch: { over: { verb: 'fail over', kind: 'production' }, on: { verb: 'enable', kind: 'change' }, off: { verb: 'disable', kind: 'change' } },
  scale: {
    up: { verb: 'scale', kind: 'change' },
    down: { verb: 'scale', kind: 'change' },
    out: { verb: 'scale', kind: 'change' },
    in: { verb: 'scale', kind: 'change' },
  },
};

const CANONICAL: Readonly<Record<string, string>> = {
  failover: 'fail over',
  switchover: 'fail over',
  rollback: 'roll back',
  rollout: 'roll out',
  shutdown: 'shut down',
};

/** The one-word verbs keyed by stem, so every form meets its verb ("restarting", "deployment"). */
const VERB_BY_STEM = new Map<string, { verb: string; kind: ActKind }>([
  ...CHANGE_VERBS.map((v) => [stem(v), { verb: v, kind: 'change' as const }] as const),
  ...PRODUCTION_VERBS.map((v) => [stem(v), { verb: CANONICAL[v] ?? v, kind: 'production' as const }] as const),
]);

/** The base spellings: only these (and a near miss of a long one) are read as an imperative or a verb after "to". */
const BASE_FORMS = new Set([...PRODUCTION_VERBS, ...CHANGE_VERBS]);

/**
 * Verbs that are also nouns, and head compounds: "the restart policy",
 * "failover time", "rollback plan", "deploy freeze", "change request". Followed
 * by one of `COMPOUND_HEADS` they name a thing instead of asking for it — the
 * noun reading that gated "what is the failover time of session-cache". A verb
 * that is not a noun keeps its object: "enable request coalescing".
 */
const NOUN_VERBS = new Set([
  'restart',
  'fail over',
  'deploy',
  'redeploy',
  'roll back',
  'roll out',
  'release',
  'change',
  'update',
  'reset',
  'patch',
  'hotfix',
  'shut down',
  'upgrade',
  'downgrade',
  'install',
  'merge',
  'drop',
  'push',
  'kill',
  'reboot',
  'flush',
  'drain',
  'stop',
  'cap',
  'set',
  'move',
  'pause',
  'restore',
  'rebuild',
  'replay',
  'purge',
  'switch',
  'scale',
  'double',
  'migrate',
  'ship',
  'revert',
]);

const COMPOUND_HEADS = new Set(
  [
    'time',
    'window',
    'count',
    'policy',
    'procedure',
    'process',
    'step',
    'plan',
    'runbook',
    'schedule',
    'freeze',
    'history',
    'log',
    'loop',
    'order',
    'checklist',
    'note',
    'frequency',
    'rule',
    'requirement',
    'template',
    'status',
    'strategy',
    'script',
    'command',
    'approval',
    'date',
    'calendar',
    'cadence',
    'duration',
    'playbook',
    'doc',
    'documentation',
    'page',
    'section',
    'guide',
    'notification',
    'ticket',
    'owner',
    'alert',
    'report',
    'summary',
    'review',
    'criteria',
    'gate',
    'pipeline',
    'storm',
    'reason',
    'test',
    'drill',
    'lag',
    'management',
    'request',
    'check',
    'switch',
    'quorum',
    'mode',
    'timeout',
    'threshold',
    'setting',
    'behaviour',
    'behavior',
    'logic',
    'mechanism',
    'path',
    'state',
    'period',
    'interval',
    'budget',
    'cost',
    'risk',
    'impact',
    'latency',
    'rate',
    'speed',
    'target',
    'type',
  ].map(stem),
);

/** After any verb, these make it a noun: "restart of checkout-api", "failover for session-cache", "update on the incident". */
const NOUN_PREPOSITIONS = new Set(['of', 'for', 'on']);

/** Names of production itself: "restart in prod" asks for it; "drop in traffic" does not. */
const PRODUCTION_NAMES = new Set(['prod', 'production', 'live', 'prd']);

function namesAThing(verb: string, ws: readonly string[], next: number): boolean {
  const w = ws[next];
  if (w === undefined) return false;
  if (NOUN_PREPOSITIONS.has(w)) return true;
  if (w === 'in') return !PRODUCTION_NAMES.has(ws[next + 1] ?? '');
  return NOUN_VERBS.has(verb) && COMPOUND_HEADS.has(stem(w));
}

/** "fail-over", "roll-back", "re-start": the tokenizer keeps a hyphenated word whole, as an identifier; these are verbs. */
export function joinHyphenatedVerbs(text: string): string {
  return text.replace(/\b(fail|switch)-(over)\b|\b(roll)-(back|out)\b|\b(shut)-(down)\b|\b(hot)-(fix)\b|\b(re)-(deploy|start|boot|index|build)\b/gi, (m) =>
    m.replace('-', ''),
  );
}

export interface VerbHit {
  readonly verb: string;
  readonly kind: ActKind;
  /** Words the verb took, with its particle and the object between ("roll it back" is 3). */
  readonly width: number;
}

/**
 * The act verb at position `i`, if the word there is one used as a verb: its
 * base form (or, with `gerund`, its -ing form; with `noun`, any form, for "needs
 * a restart"), not followed by a head noun ("restart policy"). `fuzzy` admits
 * one slip of the keyboard on a long verb ("restrat", "upgarde").
 */
export function verbAt(ws: readonly string[], i: number, opts: { gerund?: boolean; fuzzy?: boolean; noun?: boolean }): VerbHit | undefined {
  const w = ws[i];
  if (w === undefined) return undefined;
  const gerund = w.endsWith('ing') && w.length > 5;
  const phrasal = PHRASAL[w] ?? (gerund && (opts.gerund || opts.noun) ? phrasalOfGerund(w) : undefined);
  if (phrasal) {
    for (let k = i + 1; k <= i + 3 && k < ws.length; k++) {
      const p = phrasal[ws[k]!];
      if (p) return namesAThing(p.verb, ws, k + 1) ? undefined : { ...p, width: k - i + 1 };
    }
  }
  const known = VERB_BY_STEM.get(stem(w));
  const near = !known && opts.fuzzy && w.length >= 7 ? nearVerb(w) : undefined;
  const hit = known ?? near;
  if (!hit) return undefined;
  const form = near || BASE_FORMS.has(w) ? 'base' : gerund ? 'gerund' : 'other';
  if (!(opts.noun || form === 'base' || (form === 'gerund' && opts.gerund))) return undefined;
  if (namesAThing(hit.verb, ws, i + 1)) return undefined;
  return { ...hit, width: 1 };
}

/** "rolling" → roll's particles, "shutting" → shut's. */
function phrasalOfGerund(w: string) {
  if (!w.endsWith('ing')) return undefined;
  const base = w.slice(0, -3);
  return PHRASAL[base] ?? PHRASAL[base.slice(0, -1)];
}

/**
 * A word one edit (or one swap of neighbours) from a verb of seven letters or
 * more: "restrat", "upgarde". Shorter verbs have real neighbours ("remove" and
 * "remote", "change" and "chance").
 */
function nearVerb(w: string): { verb: string; kind: ActKind } | undefined {
  for (const list of [PRODUCTION_VERBS, CHANGE_VERBS]) {
    for (const v of list) if (v.length >= 7 && v !== w && editDistanceAtMostOne(w, v)) return VERB_BY_STEM.get(stem(v));
  }
  return undefined;
}

/** Optimal string alignment distance ≤ 1 (insert, delete, substitute, or swap two neighbours). */
function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * Act words in `text` — the closed lists above, matched on stems, whatever
 * the form ("deployment", "restarting") — lower-cased, de-duplicated, in the
 * canonical spelling. For reporting what a text mentions, never for deciding:
 * mentioning a restart is not asking for one.
 */
export function actWordsIn(text: string, kinds: readonly ActKind[] = ['production', 'change']): string[] {
  const ws = words(joinHyphenatedVerbs(text));
  const out = new Set<string>();
  for (let i = 0; i < ws.length; i++) {
    const phrasal = PHRASAL[ws[i]!]?.[ws[i + 1] ?? ''] ?? phrasalOfGerund(ws[i]!)?.[ws[i + 1] ?? ''];
    const hit = phrasal ?? VERB_BY_STEM.get(stem(ws[i]!));
    if (hit && kinds.includes(hit.kind)) out.add(hit.verb);
  }
  return [...out];
}
