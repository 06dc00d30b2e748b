import { isStopword, words } from '../retrieval/tokenizer.ts';

/**
 * What a message is about, as search terms: identifiers first (`orders-db`,
 * `OOMKilled`, `502`, `ERR_POOL`, a quoted phrase — the words a log contains
 * verbatim), then the remaining content words. The words that frame a
 * question ("when did it start", "why") are not its subject and are left out.
 */
export interface Subject {
  readonly identifiers: readonly string[];
  readonly words: readonly string[];
}

/** When the question asks about the first or the last occurrence. */
export type TimeIntent = 'first' | 'last' | null;

const FRAME = new Set(
  `when why how what which who where start started starts starting begin began begun first last latest end ended stop stopped
  happen happened happening occur occurred cause caused causing time see seen show shows look looked find found mean means
  anything something thing things going wrong issue problem log logs file files line lines tell`
    .split(/\s+/)
    .filter(Boolean),
);

export function subjectOf(text: string): Subject {
  const identifiers: string[] = [];
  const add = (list: string[], term: string) => {
    if (!list.some((t) => t.toLowerCase() === term.toLowerCase())) list.push(term);
  };
  for (const m of text.matchAll(/["'`“]([^"'`”]{2,80})["'`”]/g)) add(identifiers, m[1]!.trim());
  for (const raw of text.match(/[A-Za-z0-9][A-Za-z0-9_.:/-]*[A-Za-z0-9]|\d+/g) ?? []) {
    const isIdentifier = /\d/.test(raw) || /[-_.:/]/.test(raw) || /[a-z][A-Z]/.test(raw) || /^[A-Z]{2,}[A-Z0-9_]*$/.test(raw);
    // "502s" is the plural of a status a log writes as 502.
    if (isIdentifier && !/^\d{1,2}$/.test(raw)) add(identifiers, /^\d{3}s$/.test(raw) ? raw.slice(0, -1) : raw);
  }
  const lowered = new Set(identifiers.map((i) => i.toLowerCase()));
  const content: string[] = [];
  // S-244: "what is timeout_ms set to?" asks for a value; "set" was searched for and the answer said the setting's line
  // "does not use the words "set"". The verb of a value question frames it; "replica set" keeps its noun.
  for (const w of words(text.replace(/\b(?:set|configured)\s+(?=(?:to|as)\b)/gi, ' '))) {
    if (w.length < 3 || /\d/.test(w) || isStopword(w) || FRAME.has(w) || lowered.has(w) || [...lowered].some((i) => i.includes(w))) continue;
    add(content, w);
  }
  return { identifiers, words: content };
}

export function timeIntentOf(text: string): TimeIntent {
  if (/\b(when did .* (start|begin)|start(ed)?|began|begin|first)\b/i.test(text)) return 'first';
  if (/\b(last|latest|stop(ped)?|end(ed)?|recover(ed)?)\b/i.test(text)) return 'last';
  return null;
}

/**
 * A follow-up leans on the turn before it ("and when did it start?", "what
 * about the replica?"): it names no identifier of its own and either opens as
 * a continuation, points back with a pronoun, or has almost no subject at all.
 */
export function isFollowUp(text: string, subject: Subject): boolean {
  if (subject.identifiers.length > 0) return false;
  if (/^\s*(and|also|so|then|what about|how about|but)\b/i.test(text)) return true;
  if (/\b(it|that|this|they|them|those|these|its)\b/i.test(text)) return true;
  // One word of its own is the subject of a question asked in full ("when did the deploy happen?"): read as a
  // follow-up, it was searched behind the previous turn's identifiers and got the previous answer, the pool errors,
  // for the deploy's time (a colleague's test, 2026-12-05). Only a fragment ("which host?") leans on the turn before.
  return subject.words.length === 0 || (subject.words.length === 1 && words(text).length <= 3);
}
