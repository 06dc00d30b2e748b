import type { Chunk } from '../types.ts';
import { indexText } from './hybrid-retriever.ts';
import { CAMEL_CASE_NAME, camelParts, isStopword, singularCode, stem, words } from './tokenizer.ts';

/**
 * What a question demands, read from its shape alone — no knowledge of how any
 * test question was generated. Used by the gate's guards and by adjudication.
 */

/** The kind of value a question demands: a duration ("how long"), or any quantity ("what is the limit"). */
export type DemandedValue = 'duration' | 'quantity' | null;

const DURATION_ASK =
  /\bhow (long|soon|quickly|often|frequently)\b|\b(duration|period|interval|window|timeout|ttl|deadline|time[- ]to[- ]live|delay|expiry|cooldown|retention)\b/i;
const QUANTITY_ASK =
  /\bhow (many|much|big|large|high|low|far)\b|\b(limit|ceiling|threshold|maximum|minimum|size|count|capacity|budget|percentage|quota|number of)\b/i;
// A request in the imperative ("remind me of the pool ceiling", "tell me the TTL") asks for a fact as surely as "what is".
const ASKS_FOR_FACT = /\b(what|which|how|is there an?|are there)\b|\b(?:remind|tell|give|show) me\b|\bI need (?:to know )?the\b/i;

// "What does the policy say about the observation period?" asks what the text says, not for a value:
// a policy that says a period exists without saying how long still answers it.
const ASKS_WHAT_IT_SAYS =
  /\b(?:say|says|said|state|states|write|writes)\s+(?:about|on|regarding)\b|\bwhere (?:is|are|do|does)\b.*\b(?:described|documented|explained|covered)\b/i;

export function demandedValue(question: string): DemandedValue {
  if (/\bhow (long|soon|quickly)\b/i.test(question)) return 'duration';
  if (/\bhow (many|much|big|large|high|low|far|often|frequently)\b/i.test(question)) return 'quantity';
  if (ASKS_WHAT_IT_SAYS.test(question)) return null;
  if (!ASKS_FOR_FACT.test(question)) return null;
  if (DURATION_ASK.test(question)) return 'duration';
  if (QUANTITY_ASK.test(question)) return 'quantity';
  return null;
}

const NUMBER_WORDS = '(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|half an?|an?)';
// Digits may touch their unit ("30s"); a number word needs a space ("an hour") — else "and" reads as "an" + "d".
const DURATION_VALUE = new RegExp(
  `(?:\\b\\d+(?:[.,]\\d+)?\\s*|\\b${NUMBER_WORDS}\\s+)(?:-\\s*)?(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|d|weeks?|months?|business days?|working days?)\\b`,
  'i',
);
// "once they exceed the retry limit" is a conjunction, not a count: "once" followed by a subject or determiner states no value.
const ANY_VALUE = new RegExp(
  `\\d|\\b${NUMBER_WORDS.replace('|half an?|an?', '')}\\b|\\btwice\\b|\\bonce\\b(?!\\s+(?:they|the|it|we|you|he|she|this|that|these|those|there|its|their|our|your|every|each|all|any)\\b)`,
  'i',
);

/** Does this text state a value of the kind demanded? */
export function statesValue(text: string, kind: Exclude<DemandedValue, null>): boolean {
  return kind === 'duration' ? DURATION_VALUE.test(text) : ANY_VALUE.test(text);
}

/** Common hyphenated words that are not names of anything. */
const NOT_ENTITIES = new Set([
  'on-call',
  'follow-up',
  'read-only',
  'write-ahead',
  'real-time',
  'long-running',
  'post-incident',
  'self-serve',
  'third-party',
  'end-to-end',
  'step-by-step',
  'roll-back',
  'rollback',
  'sign-off',
  'built-in',
  'up-to-date',
  'non-production',
  'pre-production',
  'cross-region',
  'multi-region',
  'single-region',
  'high-risk',
  'low-risk',
  'customer-facing',
  'user-facing',
  'e-mail',
  'how-to',
  'opt-in',
  'opt-out',
  'day-to-day',
  'well-known',
  'in-flight',
  'in-process',
  'out-of-band',
  'write-through',
  're-run',
  're-enable',
  'per-service',
  'time-to-live',
  'x-request-id',
  'p50',
  'p95',
  'p99',
  'p999',
  '5xx',
  '4xx',
  '2xx',
]);

/**
 * An identifier-shaped token: kebab/snake case (`orders-db`), dotted names,
 * CamelCase alert names (`OrdersDbPoolSaturated`), or letters fused with
 * digits (`SEV1`). These name specific things; a passage that never mentions
 * the thing cannot be evidence about it.
 */
export function identifierTokens(text: string): string[] {
  const out = new Set<string>();
  // Each pattern reads a word from its start once (S-211). Without the look-behind the first was tried again from
  // every letter of a long word with no separator, to its end and back (a 20,000-letter word: 0.35 s, a 2 MB
  // one in a runbook: an hour); a match never starts after a letter or digit, so it finds the same names. The second
  // was written `[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b`, the same words, but tried every way of splitting the word
  // at its capitals when the closing `\b` failed: a question "AbAb…AbA_" of 58 characters took 8 s, and each "Ab" more
  // about three times as long.
  for (const m of text.matchAll(/(?<![A-Za-z0-9])[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+/g)) {
    const t = m[0].toLowerCase();
    if (/^\d+(?:\.\d+)*$/.test(t)) continue; // plain numbers and versions
    if (!NOT_ENTITIES.has(t)) out.add(t);
  }
  for (const m of text.matchAll(/\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b/g)) out.add(m[0].toLowerCase());
  for (const m of text.matchAll(/\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,}\b/g)) {
    const t = m[0].toLowerCase();
    // "5xxs" is the status class "5xx", no name (S-160).
    if (!NOT_ENTITIES.has(singularCode(t) ?? t) && !/^\d+(ms|s|m|h|d|k|mb|gb|kb|x|th|st|nd|rd|am|pm)$/.test(t)) out.add(t);
  }
  return [...out];
}

const KEBAB_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/;

/**
 * Abbreviations that name parts of things in service names, and the words people
 * say instead: `payments-db` is "the payments database", `auth-svc` "the auth
 * service". A fixed vocabulary of the trade, not a tuned constant.
 */
const SPOKEN: Record<string, readonly string[]> = {
  db: ['database', 'db'],
  svc: ['service'],
  api: ['api'],
  mq: ['queue', 'message queue'],
  msg: ['message'],
  k8s: ['kubernetes'],
  pg: ['postgres', 'postgresql'],
  cfg: ['config', 'configuration'],
  auth: ['auth', 'authentication'],
  gw: ['gateway'],
  lb: ['load balancer'],
  repl: ['replica', 'replication'],
  prod: ['production'],
  mgr: ['manager'],
  sched: ['scheduler'],
  notif: ['notification', 'notifications'],
};

/** The plain-words phrases that say a kebab name: its parts, with spoken forms of abbreviations ("payments database"). */
export function plainWordAliases(name: string): string[] {
  const parts = name.split('-');
  // "what-is" (a URL anchor) is no name people say: every part must be a word of content.
  if (parts.length < 2 || parts.some((p) => /\d/.test(p) || isStopword(p))) return [];
  let phrases: string[] = [''];
  for (const part of parts) {
    const forms = [part, ...(SPOKEN[part] ?? [])];
    phrases = phrases.flatMap((ph) => forms.map((f) => `${ph} ${f}`.trim()));
  }
  // The bare parts ("payments db") are an alias too, but only when one of them is spoken differently would
  // they differ from the name; every phrase needs two words or more to say something specific.
  return [...new Set(phrases)].filter((ph) => ph.includes(' '));
}
/** What may come before a sentence's subject: markup, punctuation and a determiner. */
const OPENING = /^[\W_]*(?:(?:the|each|every|a|an|our|all|any)\b[\W_]*)?$/i;

const LEVEL_CODE = /^[a-z]{1,4}\d{1,2}s?$/;

/** An EntityLexicon's contents (its passage counts are a memo, made again on demand). */
export interface LexiconParts {
  readonly names: readonly string[];
  readonly multiWord: readonly string[];
  readonly aliases: readonly (readonly [string, string])[];
  readonly vocabulary: readonly string[];
  readonly subjects: readonly string[];
}

/**
 * The names a corpus (and, when there is one, its estate) uses for things.
 * Built from the text itself so an unseen corpus needs no per-corpus code.
 */
export class EntityLexicon {
  private readonly names: Set<string>;
  private readonly multiWord: string[];
  /** A plain-words phrase ("payments database") → the kebab name it says (`payments-db`). */
  private readonly aliases: Map<string, string> = new Map();
  /** Every plain word the corpus uses. */
  private readonly vocabulary: Set<string> = new Set();
  private readonly subjects: Set<string>;
  private readonly passageCounts = new Map<string, number>();

  /**
   * `serviceNames` are the estate's services (ids and display names): known names,
   * and SUBJECTS — things that have many properties, so naming one never
   * identifies what is asked about it, however few passages mention it.
   */
  constructor(
    private readonly chunks: readonly Chunk[],
    serviceNames: readonly string[] = [],
    restored?: LexiconParts,
  ) {
    if (restored) {
      this.names = new Set(restored.names);
      this.multiWord = [...restored.multiWord];
      this.aliases = new Map(restored.aliases);
      this.vocabulary = new Set(restored.vocabulary);
      this.subjects = new Set(restored.subjects);
      return;
    }
    this.names = new Set<string>();
    this.subjects = new Set<string>();
    for (const c of chunks) {
      for (const t of identifierTokens(`${c.heading}\n${c.text}`)) this.names.add(t);
      for (const w of `${c.docTitle} ${c.heading} ${c.text}`.toLowerCase().match(/[a-z0-9]+/g) ?? []) this.vocabulary.add(w);
    }
    const multi: string[] = [];
    for (const raw of serviceNames) {
      const name = raw.toLowerCase().trim();
      if (!name) continue;
      this.subjects.add(name);
      if (/\s/.test(name)) multi.push(name);
      else this.names.add(name);
    }
    this.multiWord = multi;
    for (const name of this.names) {
      if (!KEBAB_NAME.test(name)) continue;
      for (const alias of plainWordAliases(name)) if (!this.aliases.has(alias)) this.aliases.set(alias, name);
    }
  }

  /** What the lexicon is made of, in its own order (an index snapshot stores it; see `restore`). */
  get parts(): LexiconParts {
    return {
      names: [...this.names],
      multiWord: [...this.multiWord],
      aliases: [...this.aliases],
      vocabulary: [...this.vocabulary],
      subjects: [...this.subjects],
    };
  }

  /** The lexicon `parts` came from, over the same passages, without reading their text again. */
  static restore(chunks: readonly Chunk[], parts: LexiconParts): EntityLexicon {
    return new EntityLexicon(chunks, [], parts);
  }

  /**
   * Is this entity a subject — a service, host or queue, which has many properties
   * — rather than an alert, error code or other name of one condition? The estate
   * says so where there is one; without it, the shape does: kebab-case names
   * (`card-gw`, `ledger-svc`) are how services are named, CamelCase
   * (`CardGwAuthLatencyHigh`) how alerts are. On a small corpus without an estate
   * every service is "rare", and naming one said nothing about what was asked of it.
   * With an estate the shape is not used: it would also catch compounds such as
   * `dead-letter`, which name a condition, not a subject.
   */
  isSubject(entity: string): boolean {
    return this.subjects.size > 0 ? this.subjects.has(entity) : KEBAB_NAME.test(entity);
  }

  /**
   * Can naming this entity identify what is asked, on its own? An alert or error
   * name can; a subject cannot, and neither can a code of a level or class
   * (`sev3`, `p1`), which many rules mention with different answers (S-025).
   */
  identifiesTopic(entity: string): boolean {
    return !this.isSubject(entity) && !LEVEL_CODE.test(entity);
  }

  /**
   * How many passages of the corpus name this entity. An entity few passages
   * mention (an alert name, an error string) identifies its topic by itself;
   * one that many mention (a central service) is a subject that still needs
   * its predicate carried.
   */
  passagesNaming(entity: string): number {
    let n = this.passageCounts.get(entity);
    if (n === undefined) {
      n = this.chunks.filter((c) => passageNames(c, entity)).length;
      this.passageCounts.set(entity, n);
    }
    return n;
  }

  /** The thing a block of text names first — what its pronouns are about ("`playback-api` … It runs 12 replicas"). */
  firstNamedIn(text: string): string | null {
    return this.firstNamed(text)?.entity ?? null;
  }

  /**
   * The thing a sentence names first, and whether the sentence opens on it — its subject, named before anything
   * but markup and a determiner ("`catalog-pg` is the cluster behind catalog-api…", "The payments-db pool…"),
   * not after a pronoun, a verb or a phrase. One search for both, as a value's sentence needs both (S-039).
   */
  firstNamed(text: string): { entity: string; opens: boolean } | null {
    let first: { entity: string; at: number } | null = null;
    for (const e of this.entitiesIn(text)) {
      const i = text.search(phrasePattern(e));
      if (i >= 0 && (!first || i < first.at)) first = { entity: e, at: i };
    }
    return first && { entity: first.entity, opens: OPENING.test(text.slice(0, first.at)) };
  }

  /**
   * Services said in plain words the way the estate's own are, that no alias catches: "the payments database", where
   * `orders-db` and `inventory-db` are databases and "payments" begins `payments-api`, is `payments-db` — S-121's unknown
   * sibling, said instead of written, which no passage names. Read as its words, it was answered with orders-db's pool
   * ceiling (S-168). A qualifier that is a known sibling's, differently inflected ("the order database"), says that one.
   */
  private servicesSaid(question: string): string[] {
    if (this.subjects.size === 0) return [];
    const services = [...this.subjects].filter((s) => KEBAB_NAME.test(s));
    const ws = words(question);
    const out: string[] = [];
    for (let i = 0; i + 1 < ws.length; i++) {
      const qualifier = ws[i]!;
      if (isStopword(qualifier)) continue;
      const root = stem(qualifier);
      const begins = services.some((s) => stem(s.slice(0, s.indexOf('-'))) === root);
      for (const family of this.familiesSaidAs(ws[i + 1]!)) {
        const known = services.find((s) => s.endsWith(`-${family}`) && stem(s.slice(0, -family.length - 1)) === root);
        if (known) out.push(known);
        else if (begins && this.unknownSibling(`${qualifier}-${family}`)) out.push(`${qualifier}-${family}`);
      }
    }
    return out;
  }

  /** The last parts of the estate's kebab ids that a word says ("database" says `db`, "worker" says `worker`). */
  private familiesSaidAs(word: string): string[] {
    const families = new Set<string>();
    for (const s of this.subjects) {
      if (!KEBAB_NAME.test(s)) continue;
      const family = s.slice(s.lastIndexOf('-') + 1);
      if (family === word || SPOKEN[family]?.includes(word)) families.add(family);
    }
    return [...families];
  }

  /** A kebab name the corpus never uses that ends as two or more of the estate's services do (`payments-db`). */
  private unknownSibling(token: string): boolean {
    if (this.subjects.size === 0 || this.names.has(token) || !KEBAB_NAME.test(token)) return false;
    const family = token.slice(token.lastIndexOf('-'));
    let siblings = 0;
    for (const s of this.subjects) if (KEBAB_NAME.test(s) && s.endsWith(family)) siblings++;
    return siblings >= 2;
  }

  private madeOfKnownWords(token: string, question: string): boolean {
    if (LEVEL_CODE.test(token)) return false;
    const camel = [...question.matchAll(CAMEL_CASE_NAME)].find((m) => m[0].toLowerCase() === token);
    const parts = camel ? camelParts(camel[0]) : token.split(/[-_.]/);
    return parts.length > 1 && parts.every((p) => p.length < 2 || this.vocabulary.has(p));
  }

  /** The entities a question is about: known names it mentions, plus identifier-shaped tokens that name something. */
  entitiesIn(question: string): string[] {
    // An identifier the corpus never uses, made only of words it does use ("single-instance",
    // "month-end", `DataGovUkHighTrafficRate` where the runbook writes "data.gov.uk high traffic"),
    // is read as those words, not as a name the passage must carry: people paraphrase names.
    // But not one built like the estate's own services that is none of them: `payments-db`, beside
    // `orders-db` and `inventory-db`, names a database the estate does not have, and was answered with orders-db's
    // pool ceiling, read as "payments" and "db" (S-121). Only where an estate lists the services: without one,
    // nothing says which names are a family of things rather than of words.
    const found = new Set(identifierTokens(question).filter((t) => this.names.has(t) || !this.madeOfKnownWords(t, question) || this.unknownSibling(t)));
    const lower = question.toLowerCase();
    for (const w of words(question)) if (this.names.has(w)) found.add(w);
    for (const name of this.multiWord) if (containsPhrase(lower, name)) found.add(name);
    // Named in plain words: "the payments database" is `payments-db` (issue 9, class 3).
    if (this.aliases.size) {
      const plain = ` ${words(question).join(' ')} `;
      for (const [alias, name] of this.aliases) if (plain.includes(` ${alias} `)) found.add(name);
    }
    for (const name of this.servicesSaid(question)) found.add(name);
    // A name inside a longer one it was found in ("orders" inside "orders-db") is not a separate subject.
    return [...found].filter((e) => ![...found].some((o) => o !== e && o.includes(e) && /[-_.]/.test(o)));
  }
}

function phrasePattern(phraseLower: string): RegExp {
  const escaped = phraseLower.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![a-z0-9-])${escaped}(?![a-z0-9-])`, 'i');
}

export function containsPhrase(haystackLower: string, phraseLower: string): boolean {
  return phrasePattern(phraseLower).test(haystackLower);
}

const aliasCache = new Map<string, string[]>();

/** Does this text name the entity? */
export function textNames(text: string, entity: string): boolean {
  const hay = text.toLowerCase();
  if (containsPhrase(hay, entity)) return true;
  // "sev3s" and "5xxs" are the codes "sev3" and "5xx": a text naming either names them ("k8s", written so, is named first).
  const singular = singularCode(entity);
  if (singular && containsPhrase(hay, singular)) return true;
  // CamelCase alert names are often written with spaces or backticks in prose.
  if (!/[-_.]/.test(entity)) return hay.replace(/[\s`_-]/g, '').includes(entity);
  // A kebab name said in plain words ("the payments database", "release notes") is named too.
  const aliases = aliasCache.get(entity) ?? aliasCache.set(entity, plainWordAliases(entity)).get(entity)!;
  if (aliases.length) {
    const plain = ` ${words(text).join(' ')} `;
    if (aliases.some((a) => plain.includes(` ${a} `))) return true;
  }
  // An alert named after its service names the service: `OrdersDbPoolSaturated` is about orders-db.
  const compact = entity.replace(/[-_.]/g, '');
  for (const m of text.matchAll(CAMEL_CASE_NAME)) if (m[0].toLowerCase().startsWith(compact)) return true;
  return false;
}

/** Does the passage (its heading, document title or text) name this entity? */
export function passageNames(chunk: Chunk, entity: string): boolean {
  return textNames(indexText(chunk), entity);
}

/**
 * A sentence that says the document does NOT answer something ("this policy does
 * not cover retention", "out of scope", "set elsewhere"). Every query term can
 * stand inside such a disclaimer (seed §Two: "Every query term present, inside
 * a disclaimer"), so a disclaimer is never evidence for an answer.
 */
const SCOPE_NEGATION =
  /\b(?:out of scope|outside (?:the |its |this )?scope|(?:does|do|is|are) not (?:cover|covered|address|addressed|describe|described|define|defined|specify|specified|state|stated|documented)|not covered|(?:is|are) (?:set|defined|decided|owned|documented) elsewhere|no (?:guidance|policy) (?:on|for)|nothing (?:here|in this (?:policy|document)) (?:covers|says))\b/i;

export function disclaims(text: string): boolean {
  return SCOPE_NEGATION.test(text);
}
