import { type Intent, questionIntent } from '../answerability/question-intent.ts';
import { words } from '../retrieval/tokenizer.ts';
import { type ActKind, joinHyphenatedVerbs, type VerbHit, verbAt } from './act-words.ts';

/**
 * What a question asks to DO, read from its form — not from its nouns, and
 * never from the passages cited in the answer.
 *
 * Issue 13: 13 of 50 CLI runs stopped for approval on look-ups ("what is the
 * failover time of session-cache", "what does the memory leak runbook say")
 * because the risk scorer matched production-touching words anywhere in the
 * question and in the proposed action, whose text is the cited evidence.
 * Approval noise teaches people to click Approve without reading, so the gate
 * now asks one question first: does the user ask for something to be done?
 *
 * An act is read clause by clause, in one of these forms:
 * - imperative: "fail over orders-db now", "restrat payments-api pods pls",
 *   "raising the pool ceiling to 150 tonight" (a change described as under way);
 * - proposal: "should we restart checkout-api?", "ok to flush pricing-cache?",
 *   "is it safe to restart inventory-db during peak?", "can you bounce it";
 * - declared: "going to restart edge-gateway, anything i should know",
 *   "we need to failover orders-db asap", "help me roll back checkout-api";
 * - described: a value → value, "orders-db max_connections 100 -> 150";
 * - confirmed: "action item says restart order-worker nightly - do it".
 * Anything else — "how do i restart checkout-api", "did we restart orders-db in
 * march", "draft a postmortem", "would a rolling restart help" — is a look-up:
 * it asks what the library says.
 *
 * Two weaker signals ("orders-db failover now pls" with no clause form, "checkout-api
 * needs a restart") count as an act only when the question has no information-seeking
 * shape of its own (the answerability model's question intent): "orders-db failing over
 * now, how long does it take" asks a value.
 */
export interface ActionIntent {
  readonly asks: 'act' | 'lookup';
  /** Each act the question asks for, by a verb from the closed lists of `act-words.ts` (never the user's own text: T-16). */
  readonly acts: readonly ActReading[];
  /** The question's shape as the answerability model reads it (what a look-up asks for). */
  readonly intent: Intent;
}

export interface ActReading {
  /** The canonical verb ("restart", "fail over", "raise"). */
  readonly verb: string;
  /** `production`: reaches the running system (restart, deploy, fail over); `change`: changes a setting of it (raise, bump, enable). */
  readonly kind: ActKind;
  readonly form: 'imperative' | 'proposal' | 'declared' | 'described' | 'urged' | 'needed' | 'confirmed';
}

const DESCRIBED_CHANGE: ActReading = { verb: 'change', kind: 'change', form: 'described' };

/**
 * After a gerund, one of these makes it the subject of a statement ("restarting
 * checkout-api did not help"), not a change under way ("raising the ceiling to 150").
 */
const GERUND_SUBJECT_OF = new Set([
  'did',
  'does',
  'do',
  'is',
  'was',
  'were',
  'will',
  'would',
  'could',
  'should',
  'can',
  'might',
  'may',
  'helped',
  'helps',
  'help',
  'fixed',
  'fixes',
  'fix',
  'caused',
  'causes',
  'cause',
  'broke',
  'breaks',
  'worked',
  'works',
  'made',
  'makes',
  'seems',
  'seemed',
  'takes',
  'took',
  'mean',
  'means',
]);

/** Where a clause asks something rather than tells: a look-up, unless it is a proposal (below). */
const QUESTION_START = new Set([
  'what',
  'whats',
  'wat',
  'wht',
  'which',
  'who',
  'whos',
  'whom',
  'whose',
  'when',
  'where',
  'wheres',
  'why',
  'how',
  'hows',
  'does',
  'do',
  'did',
  'is',
  'are',
  'was',
  'were',
  'has',
  'have',
  'had',
  'will',
  'would',
  'could',
  'can',
  'should',
  'shall',
  'may',
  'might',
  'must',
  'am',
  'any',
  'tell',
  'show',
  'explain',
  'describe',
  'list',
  'summarise',
  'summarize',
  'sumarize',
  'sumarise',
  'draft',
  'write',
  'find',
  'give',
  'remind',
  'compare',
  'walk',
]);

/** A condition or a time, not a request: "if we fail over orders-db, what breaks". */
const SUBORDINATE_START = new Set([
  'if',
  'whenever',
  'before',
  'after',
  'while',
  'once',
  'since',
  'because',
  'unless',
  'until',
  'though',
  'although',
  'whether',
]);

/** Words that open a request without changing it: "ok pls restart it", "go ahead and rotate", "let us". */
const FILLERS = new Set([
  'ok',
  'okay',
  'k',
  'kk',
  'alright',
  'pls',
  'please',
  'plz',
  'hey',
  'hi',
  'yo',
  'so',
  'right',
  'just',
  'now',
  'quick',
  'quickly',
  'urgent',
  'asap',
  'then',
  'also',
  'maybe',
  'and',
  'but',
  'let',
  'lets',
  'us',
  'go',
  'ahead',
  'someone',
  'somebody',
  'safely',
  'manually',
  'immediately',
  'again',
  'sandscope',
  'folks',
  'team',
  'guys',
]);

const MODALS = new Set(['should', 'can', 'could', 'may', 'shall', 'must', 'would', 'will']);
const SUBJECTS = new Set(['i', 'we', 'you', 'u', 'someone', 'somebody', 'ya']);
/** Words between a subject and its verb that declare an intention ("we are going to", "i need to"). */
const INTENT_WORDS = new Set([
  'am',
  'are',
  'is',
  'will',
  'shall',
  'would',
  'going',
  'about',
  'want',
  'wants',
  'need',
  'needs',
  'have',
  'has',
  'got',
  'plan',
  'planning',
  'intend',
  'intending',
  'like',
  'to',
  'just',
  'also',
  'now',
  'then',
  'still',
  'really',
  'try',
  'trying',
  'ready',
  'decided',
  'must',
  'should',
  'can',
  'could',
  'might',
  'may',
  'gonna',
  'wanna',
  'manually',
  'safely',
  'quickly',
  'immediately',
  'actually',
  'probably',
  'definitely',
]);
/** Subject-less declared intent at a clause's start: "planning to upgrade …", "need to manually fail over …". */
const INTENT_LEADS = new Set(['going', 'about', 'want', 'need', 'needs', 'have', 'plan', 'planning', 'intend', 'intending', 'time', 'ready', 'trying']);
/** "is it ok to …", "ok to …", "safe to …": asking permission to act is proposing it. */
const PERMISSION = new Set(['ok', 'okay', 'safe', 'fine', 'alright', 'allowed', 'good', 'wise', 'sensible', 'reasonable', 'clear', 'cool', 'worth']);
/** The object or urgency that makes a mid-clause verb a request: "orders-db failover now pls". */
const URGED_BY = new Set(['now', 'asap', 'immediately', 'pls', 'please', 'plz', 'it', 'them', 'everything', 'all']);
/** A clause that only says "yes, that": it confirms an act named elsewhere in the question. */
const CONFIRMATIONS = ['do it', 'go ahead', 'go for it', 'proceed', 'make it so', 'pull the trigger', 'just do it', 'do that'];

/** Question shapes that seek information; with one of these, the weak signals do not make an act. */
const INFORMATION_INTENTS = new Set<Intent>(['procedure', 'diagnosis', 'impact', 'cause', 'value', 'meaning']);

/** The question's acts and intent. Deterministic and model-free: a gate a prompt can talk down is not a gate (T-4). */
export function actionIntent(question: string): ActionIntent {
  const intent = questionIntent(question).intent;
  const clauses = clausesOf(question);
  // "add consumer capacity without a rebalance storm — how?" asks for the procedure, not for the act.
  const asksHow = clauses.some(({ words: c }) => c[0] === 'how' && c.slice(1).every((w) => HOW_FILLERS.has(w)));
  const strong: ActReading[] = [];
  const weak: ActReading[] = [];
  clauses.forEach((clause, n) => {
    const read = readClause(clause.words, n === clauses.length - 1) ?? (clause.arrow ? DESCRIBED_CHANGE : undefined);
    if (!read || (asksHow && read.form === 'imperative')) return;
    (read.form === 'urged' || read.form === 'needed' ? weak : strong).push(read);
  });
  if (clauses.some((c) => CONFIRMATIONS.includes(c.words.join(' ')))) {
    const named = verbsIn(clauses.flatMap((c) => c.words))[0];
    if (named) strong.push({ ...named, form: 'confirmed' });
  }
  const acts = [...strong, ...(INFORMATION_INTENTS.has(intent) ? [] : weak)];
  return { asks: acts.length > 0 ? 'act' : 'lookup', acts: dedupe(acts), intent };
}

/**
 * The question's clauses as word lists: split at sentence punctuation and
 * dashes, and at "and"/"then" outside a question ("go ahead and rotate the
 * keys"), but not inside one ("what is the difference between drain and restart").
 */
function clausesOf(question: string): Clause[] {
  const normalised = joinHyphenatedVerbs(question)
    .replace(/['’]ll\b/gi, ' will')
    .replace(/['’]re\b/gi, ' are')
    .replace(/\b(i)['’]m\b/gi, '$1 am')
    .replace(/\blet['’]s\b/gi, 'let us')
    .replace(/\bgonna\b/gi, 'going to')
    .replace(/\bwanna\b/gi, 'want to')
    .replace(/\bgotta\b/gi, 'have to');
  const out: Clause[] = [];
  for (const piece of normalised.split(/[.!?;:,()\n]+(?=\s|$)|\s[-–—]+\s|[—–](?!>)/)) {
    const ws = words(piece);
    if (ws.length === 0) continue;
    const first = skipFillers(ws, 0);
    const arrow = ARROW.test(piece);
    if (QUESTION_START.has(ws[first] ?? '') || SUBORDINATE_START.has(ws[first] ?? '')) {
      out.push({ words: ws, arrow: false });
      continue;
    }
    let current: string[] = [];
    for (const w of ws) {
      if ((w === 'and' || w === 'then') && current.length > 0) {
        out.push({ words: current, arrow });
        current = [];
      } else current.push(w);
    }
    if (current.length > 0) out.push({ words: current, arrow });
  }
  return out;
}

interface Clause {
  readonly words: readonly string[];
  /** A value → value in a clause that asks nothing: "orders-db max_connections 100 -> 150" describes a change. */
  readonly arrow: boolean;
}

const ARROW = /\S\s*(?:->|→|=>)\s*\S/;

function skipFillers(ws: readonly string[], from: number): number {
  let i = from;
  // "ok to …" is a proposal, not a filler before one.
  while (i < ws.length && FILLERS.has(ws[i]!) && !(PERMISSION.has(ws[i]!) && (ws[i + 1] === 'to' || ws[i + 1] === 'if'))) i++;
  return i;
}

/** The rest of a bare "how" clause: "how?", "how do i do that", "how to". */
const HOW_FILLERS = new Set(['do', 'does', 'can', 'should', 'would', 'i', 'we', 'you', 'one', 'to', 'that', 'it', 'this', 'so', 'exactly']);

/**
 * One clause's act, if it asks for one. A bare verb ("restart?") asks only as
 * the question's last clause: earlier, it is an item of a list ("orders-db
 * replicas, failover and snapshots").
 */
function readClause(ws: readonly string[], last: boolean): ActReading | undefined {
  const i = skipFillers(ws, 0);
  const first = ws[i];
  if (first === undefined) return undefined;

  const proposal = readProposal(ws, i);
  if (proposal) return proposal;
  if (SUBORDINATE_START.has(first)) return undefined;
  if (QUESTION_START.has(first)) return undefined;

  // Imperative, or a change described as under way ("raising the ceiling to 150 tonight").
  const verb = verbAt(ws, i, { gerund: true, fuzzy: true });
  const gerundSubject = verb && ws[i]!.endsWith('ing') && ws.slice(i + verb.width).some((w) => GERUND_SUBJECT_OF.has(w));
  // A bare "change" is a label ("change: bump the ttl"); a bare "restart?" is a request, if it ends the question.
  const bareLabel = verb && i + verb.width === ws.length && (verb.kind === 'change' || !last);
  if (verb && !gerundSubject && !bareLabel) return { ...verb, form: 'imperative' };

  // Asking for a hand with it: "help me roll back checkout-api".
  if (first === 'help' && (ws[i + 1] === 'me' || ws[i + 1] === 'us')) {
    const helped = verbAt(ws, ws[i + 2] === 'to' ? i + 3 : i + 2, { fuzzy: true });
    if (helped) return { ...helped, form: 'declared' };
  }

  // Declared: "we are going to delete …", "i want to drop …", "planning to upgrade …".
  if (SUBJECTS.has(first) || INTENT_LEADS.has(first)) {
    let j = i + 1;
    while (j < ws.length && INTENT_WORDS.has(ws[j]!)) j++;
    if (!SUBJECTS.has(first) || j > i + 1) {
      const declared = verbAt(ws, j, { gerund: true, fuzzy: true });
      if (declared) return { ...declared, form: 'declared' };
    }
  }

  // Weak signals, overruled by an information-seeking intent (see actionIntent).
  for (let k = i + 1; k < ws.length; k++) {
    const needed = /^needs?$/.test(ws[k]!) ? verbAt(ws, ws[k + 1] === 'a' || ws[k + 1] === 'an' ? k + 2 : k + 1, { noun: true }) : undefined;
    if (needed) return { ...needed, form: 'needed' };
    const mid = verbAt(ws, k, {});
    if (mid && URGED_BY.has(ws[k + mid.width] ?? '')) return { ...mid, form: 'urged' };
  }
  return undefined;
}

/**
 * "should we restart …", "can you bounce it", "is it safe to restart …",
 * "ok to flush …", "ok if i promote it", "am i ok to promote", "is restarting
 * orders-db safe", "worth restarting?": the question proposes the act.
 */
function readProposal(ws: readonly string[], i: number): ActReading | undefined {
  const w = ws[i]!;
  // modal + subject: "should we (just) restart", "can someone bounce it".
  if (MODALS.has(w) && SUBJECTS.has(ws[i + 1] ?? '')) {
    const j = skipFillers(ws, i + 2);
    const v = verbAt(ws, j, { fuzzy: true });
    return v && { ...v, form: 'proposal' };
  }
  // permission: "(is it | am i | are we)? ok to …", "ok if we …", "mind if i …", "worth restarting".
  let j = i;
  if (['is', 'am', 'are'].includes(w) && ['it', 'i', 'we'].includes(ws[i + 1] ?? '')) j = i + 2;
  if (PERMISSION.has(ws[j] ?? '') || ws[j] === 'mind') {
    let k = j + 1;
    if (ws[k] === 'to') k++;
    else if (ws[k] === 'if' && SUBJECTS.has(ws[k + 1] ?? '')) k += 2;
    else if (ws[j] !== 'worth') return undefined;
    const v = verbAt(ws, skipFillers(ws, k), { gerund: ws[j] === 'worth', fuzzy: true });
    return v && { ...v, form: 'proposal' };
  }
  // "any objection to restarting …", "any reason not to restart …".
  if (w === 'any' && /^(objections?|reasons?)$/.test(ws[i + 1] ?? '')) {
    let k = i + 2;
    if (ws[k] === 'not') k++;
    if (ws[k] === 'to') k++;
    const v = verbAt(ws, k, { gerund: true });
    return v && { ...v, form: 'proposal' };
  }
  // "is restarting orders-db safe?": a gerund subject judged safe or not.
  if ((w === 'is' || w === 'are') && ws.slice(i + 2).some((x) => PERMISSION.has(x) || x === 'risky' || x === 'dangerous')) {
    const v = verbAt(ws, i + 1, { gerund: true });
    return v && { ...v, form: 'proposal' };
  }
  return undefined;
}

/** Every act verb in the words, in order, in any form (what a confirmation like "do it" refers back to). */
function verbsIn(ws: readonly string[]): VerbHit[] {
  const out: VerbHit[] = [];
  for (let i = 0; i < ws.length; i++) {
    const v = verbAt(ws, i, { gerund: true, noun: true });
    if (v) out.push(v);
  }
  return out;
}

function dedupe(acts: readonly ActReading[]): ActReading[] {
  const seen = new Set<string>();
  return acts.filter((a) => !seen.has(a.verb) && (seen.add(a.verb), true));
}
