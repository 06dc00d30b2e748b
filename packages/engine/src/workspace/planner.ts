import { questionNouns } from '../answerability/question-nouns.ts';
import { stem } from '../retrieval/tokenizer.ts';
import { round3 } from '../round.ts';
import { draftExtractive } from '../answer/extractive.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { estimateTokens } from '../models/pricing.ts';
import type { Chunk, RefusalClaim } from '../types.ts';
import { type ReplayedMessage, type TranscriptEntry, turnInput } from './history.ts';
import { isFollowUp, type Subject, subjectOf, timeIntentOf } from './subject.ts';
import { clipText } from './clip-text.ts';
import { consultSandbox } from './sandbox-plan.ts';
import type { SearchHit } from './search-files.ts';
import type { ToolCallRecord, WorkspaceToolbox } from './tools.ts';
import type { TurnCitation } from './turn-citation.ts';
import { turnAnswerText, uniqueCitations } from './turn-text.ts';

export type { TurnCitation } from './turn-citation.ts';

export interface TurnClaim {
  readonly text: string;
  /** Never empty: a sentence nothing supports is not a claim (it goes to `unknown`). */
  readonly citations: readonly TurnCitation[];
}

/** Seed #22: what the turn cost, persisted on the assistant message. */
export interface TurnMetrics {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly elapsedMs: number;
  readonly costUsd: number;
  readonly provider: string;
}

export interface TurnAnswer {
  readonly answer: string;
  readonly claims: readonly TurnClaim[];
  /** Every citation of every claim, once, in order. */
  readonly citations: readonly TurnCitation[];
  readonly toolCalls: readonly ToolCallRecord[];
  /** What the files and the library do not support, said plainly. */
  readonly unknown: readonly string[];
  /** The terms searched for; a follow-up's include the earlier turn's subject. */
  readonly subject: Subject & { readonly from: 'message' | 'history' };
  /** Said beside the answer: for a follow-up, which earlier question it was read with (S-200). */
  readonly notes: readonly string[];
  /** The model input of this turn (seed #17): the replayed window and the message. */
  readonly input: readonly ReplayedMessage[];
  readonly metrics: TurnMetrics;
}

export interface OfflinePlannerInput {
  readonly message: string;
  /** The persisted conversation before this message, oldest first. */
  readonly history: readonly TranscriptEntry[];
  /** HISTORY_MAX_MESSAGES. */
  readonly historyMaxMessages: number;
  /** HISTORY_MAX_CHARS (history.ts). */
  readonly historyMaxChars?: number;
  readonly toolbox: WorkspaceToolbox;
  readonly kb: KnowledgeBase;
  readonly now?: () => number;
}

export const OFFLINE_PROVIDER = 'offline';
const MAX_FILE_CLAIMS = 3;
/**
 * Sentences drafted by overlap with the question. Not a cap on a procedure: `draftExtractive` gives a section's steps
 * whole (three steps of four is a wrong procedure — the cut dropped "Do not restart orders-db" after a pool
 * runbook's three steps, S-064), as `ask` does.
 */
const MAX_RUNBOOK_CLAIMS = 3;
const MAX_TERMS = 6;
const CONTEXT_LINES = 2;
/** The most lines after a hit one claim's range runs on for (a burst of the same error). */
const MAX_BURST_LINES = 10;

/**
 * The offline agent (no keys: the default): the same tools a provider loop
 * would call, in a fixed plan. Search the files for the question's
 * identifiers and words; read around the best hits; consult the runbooks
 * through the gate; answer extractively — each claim a quoted file line cited
 * `path:start-end`, or a runbook sentence cited by passage id. What neither
 * supports is said to be unknown, never guessed. A follow-up that names no
 * subject of its own takes the previous question's (seed #17), read from the
 * replayed input — so what the window dropped is forgotten here too.
 */
export async function planOffline(p: OfflinePlannerInput): Promise<TurnAnswer> {
  const now = p.now ?? (() => performance.now());
  const started = now();
  const input = turnInput(p.history, p.message, p.historyMaxMessages, p.historyMaxChars);
  const subject = resolveSubject(p.message, input);
  const terms = [...subject.identifiers, ...subject.words].slice(0, MAX_TERMS);
  const weight = (t: string) => (subject.identifiers.includes(t) ? 3 : 1);
  const intent = timeIntentOf(p.message);
  const outputs: string[] = [];

  const listed = await p.toolbox.call('list_files', {});
  outputs.push(listed.text);
  // Every line any term hits, scored by the terms it holds (identifiers weigh more).
  // A line found only by similarity (worded differently from the question) counts for less than one
  // that holds the term, and ranks after every such line (rankHits): it fills the claims the words left.
  const scored = new Map<string, ScoredHit>();
  /** The terms some line of the files holds as written, or a cited line says in other words (its claim says so). */
  const written = new Set<string>();
  // Logs say a failure in their own words: "why are requests failing?" matched no line as written, and the lines
  // nearest it in meaning were `"code":"OK","msg":"request served"`, cited as the answer while 410 ERROR lines went
  // unmentioned (a colleague's test, 2026-12-05). A question about a failure searches for the word logs use too.
  const patterns = FAILURE.test(p.message) && !terms.some((t) => /^err/i.test(t)) ? [...terms, 'error'] : terms;
  for (const term of patterns) {
    const out = await p.toolbox.call('search_files', { pattern: term });
    outputs.push(out.text);
    if (!out.ok || out.tool !== 'search_files') continue;
    if (out.search.hits.some((h) => h.match === 'text')) written.add(term);
    for (const hit of out.search.hits) {
      const key = `${hit.path}\u0000${hit.line}`;
      const entry = scored.get(key) ?? { hit, score: 0, literal: false, terms: new Set<string>() };
      if (hit.match === 'text' && !entry.literal) {
        entry.literal = true;
        entry.hit = hit;
      }
      if (!entry.terms.has(term)) {
        entry.terms.add(term);
        entry.score += hit.match === 'text' ? weight(term) : weight(term) * (hit.similarity ?? 0);
      }
      scored.set(key, entry);
    }
  }
  const claims: TurnClaim[] = [];
  const cited: { path: string; start: number; end: number }[] = [];
  for (const { hit, literal, terms: near } of rankHits([...scored.values()], intent)) {
    if (cited.length >= (intent === null ? MAX_FILE_CLAIMS : 1)) break;
    if (cited.some((c) => c.path === hit.path && hit.line >= c.start - CONTEXT_LINES && hit.line <= c.end + CONTEXT_LINES)) continue;
    const out = await p.toolbox.call('read_file', {
      path: hit.path,
      offset: Math.max(1, hit.line - CONTEXT_LINES),
      limit: CONTEXT_LINES + 1 + MAX_BURST_LINES,
    });
    outputs.push(out.text);
    if (!out.ok || out.tool !== 'read_file') continue;
    const { window } = out;
    // The cited range: the hit line and the lines right after it that say the same thing (a burst of one error, its
    // times and counts aside). A line holding any of the question's terms was enough before, and "checkout-api request
    // ok status=200" lines were cited as "7 more lines like it" of a 502 (a colleague's test of the website, 2026-12-05).
    const shape = shapeOf(hit.text);
    // A burst is cited from its first line (the latest line of a "when did it stop" stays where it is).
    let start = hit.line;
    while (intent !== 'last' && start - 1 >= window.startLine && shapeOf(window.lines[start - 1 - window.startLine] ?? '') === shape) start--;
    let end = hit.line;
    while (end + 1 <= window.endLine && shapeOf(window.lines[end + 1 - window.startLine] ?? '') === shape) end++;
    cited.push({ path: hit.path, start, end });
    const more = end - start;
    const text = start === hit.line ? hit.text : (window.lines[start - window.startLine] ?? hit.text);
    const quoted = `"${clip(text.trim())}"${more > 0 ? `, and ${more} more line${more === 1 ? '' : 's'} like it to line ${end}` : ''}`;
    // What the line is said to be about is what it holds: the question's first two terms were named whether or not
    // the line held them, so "when did the 502s start on web-2?" was answered "the earliest line … reporting trouble
    // about 502, web-2 is line 2011" of a line that never names web-2 (a colleague's test, 2026-12-05).
    const held = terms.filter((t) => text.toLowerCase().includes(t.toLowerCase()));
    const about = (held.length ? held : [...near]).slice(0, 2).join(', ');
    const lead = !literal
      ? `${hit.path} line ${start} does not use the words ${[...near].map((t) => `"${t}"`).join(', ')} but says something similar in meaning: `
      : intent === 'first'
        ? `The earliest line in ${hit.path} reporting trouble about ${about} is line ${start}: `
        : intent === 'last'
          ? `The latest line in ${hit.path} reporting trouble about ${about} is line ${hit.line}: `
          : `${hit.path} line ${start}: `;
    if (!literal) for (const t of near) written.add(t); // its claim says the line words it differently
    claims.push({ text: `${lead}${quoted}`, citations: [{ kind: 'file', path: hit.path, startLine: start, endLine: end }] });
  }

  // Seed #21: the jailed tools where they help (jq over a JSON file the question names, log_summary over a large log).
  const sandboxed = await consultSandbox({
    toolbox: p.toolbox,
    files: listed.ok && listed.tool === 'list_files' ? listed.files : [],
    message: p.message,
    terms,
  });
  outputs.push(...sandboxed.outputs);
  claims.push(...sandboxed.claims);

  const query = subject.from === 'history' ? `${p.message} ${terms.join(' ')}` : p.message;
  const runbooks = await p.toolbox.call('search_runbooks', { query });
  outputs.push(runbooks.text);
  let runbookRefusal: string | null = null;
  let runbookClaim: RefusalClaim | null = null;
  if (runbooks.ok && runbooks.tool === 'search_runbooks') {
    const passages = runbooks.runbooks.passages.map((r) => p.kb.chunk(r.chunkId)).filter((c): c is Chunk => c !== undefined);
    if (passages.length > 0) {
      for (const c of draftExtractive(query, passages, { maxClaims: MAX_RUNBOOK_CLAIMS })) {
        claims.push({ text: c.text, citations: c.citations.map((chunkId) => ({ kind: 'passage' as const, chunkId })) });
      }
    } else {
      runbookRefusal = runbooks.runbooks.reasons[0] ?? null;
      runbookClaim = runbooks.runbooks.refusal;
    }
  }

  const unknown: string[] = [];
  const searched = terms.length > 0 ? terms.map((t) => `"${t}"`).join(', ') : 'nothing (the message names no term to search for)';
  if (cited.length === 0) unknown.push(`No line of the investigation's files mentions ${searched}.`);
  else {
    // The lines cited hold the question's other words, or say something like it: what no line holds is said, not left
    // for the reader to infer from a list of lines. "What is the CPU usage on orders-db?" cited pool errors and said
    // nothing of CPU (a colleague's test, 2026-12-05).
    // Only what the question names (its nouns and identifiers): "getting" is how it was asked, not what about.
    const named = new Set(questionNouns(p.message));
    const unwritten = terms.filter((t) => !written.has(t) && (subject.identifiers.includes(t) || named.has(stem(t.toLowerCase()))));
    if (unwritten.length > 0) unknown.push(`No line of the investigation's files mentions ${unwritten.map((t) => `"${t}"`).join(', ')}.`);
  }
  if (claims.length === 0) {
    // S-108: "does not answer" only where the gate claims absence; an unsure refusal gave no answer, and says why.
    const library = runbookClaim === 'absent' || runbookClaim === null ? 'does not answer this either' : 'gave no answer either';
    unknown.push(`The runbook library ${library}${runbookRefusal ? ` (${runbookRefusal.replace(/\.$/, '')})` : ''}, so it is unknown.`);
  }
  const citations = uniqueCitations(claims);
  const answer = turnAnswerText(claims, unknown, (id) => p.kb.chunk(id));
  // S-200: a follow-up is searched with an earlier question's subject, and said nothing of it: "?!?" after "why is
  // checkout getting 502s?" was answered about 502s and checkout as if asked. What it was read with is said.
  const notes =
    subject.from === 'history' ? [`Read as a follow-up to “${clip(subject.earlier, 120)}”: searched for ${terms.map((t) => `"${t}"`).join(', ')}.`] : [];
  const promptText = [...input.map((m) => m.content), ...outputs].join('\n');
  return {
    answer,
    claims,
    citations,
    toolCalls: [...p.toolbox.calls],
    unknown,
    subject,
    notes,
    input,
    metrics: {
      promptTokens: estimateTokens(promptText),
      completionTokens: estimateTokens(answer),
      elapsedMs: round3(now() - started),
      costUsd: 0,
      provider: OFFLINE_PROVIDER,
    },
  };
}

/** The message's own subject, or — for a follow-up — the nearest earlier user message's in the replayed input. */
function resolveSubject(
  message: string,
  input: readonly ReplayedMessage[],
): (Subject & { from: 'message' }) | (Subject & { from: 'history'; earlier: string }) {
  const own = subjectOf(message);
  if (!isFollowUp(message, own)) return { ...own, from: 'message' };
  for (let i = input.length - 2; i >= 0; i--) {
    const m = input[i]!;
    if (m.role !== 'user') continue;
    const earlier = subjectOf(m.content);
    if (earlier.identifiers.length + earlier.words.length === 0) continue;
    return {
      identifiers: earlier.identifiers,
      words: [...own.words.filter((w) => !earlier.words.includes(w)), ...earlier.words],
      from: 'history',
      earlier: m.content,
    };
  }
  return { ...own, from: 'message' };
}

/**
 * The hit lines in the order to read around them. For "when did it start" the
 * first line about the subject that reports trouble — not the first that names
 * it (a service is named in its healthy start-up lines too) — and for "when did
 * it stop" the last; otherwise the lines holding the most (and the weightiest)
 * terms, trouble first, in file order on a tie.
 */
function rankHits(entries: ScoredHit[], intent: 'first' | 'last' | null): ScoredHit[] {
  const order = (a: { hit: SearchHit }, b: { hit: SearchHit }) => (a.hit.path === b.hit.path ? a.hit.line - b.hit.line : a.hit.path < b.hit.path ? -1 : 1);
  const severity = (e: { hit: SearchHit }) => (SEVERE.test(e.hit.text) ? 1 : 0);
  if (intent !== null) {
    // Lines holding the terms first; lines only similar in meaning when none does.
    const literal = entries.filter((e) => e.literal);
    const from = literal.length > 0 ? literal : entries;
    const troubled = from.filter((e) => severity(e) === 1);
    const pool = (troubled.length > 0 ? troubled : from).sort(order);
    return intent === 'first' ? pool : pool.reverse();
  }
  // In a file whose lines report trouble, only those are evidence: "checkout-api request ok status=200" was cited
  // beside a 502 for holding "checkout" and "request" (a colleague's test of the website, 2026-12-05). A file with no
  // such line (a config) keeps its lines.
  const troubledFiles = new Set(entries.filter((e) => e.literal && severity(e) === 1).map((e) => e.hit.path));
  return entries
    .filter((e) => !troubledFiles.has(e.hit.path) || severity(e) === 1)
    .sort((a, b) => Number(b.literal) - Number(a.literal) || b.score - a.score || severity(b) - severity(a) || order(a, b));
}

/** A line some term's search returned, with how much the terms it answers weigh. */
interface ScoredHit {
  hit: SearchHit;
  score: number;
  /** It holds at least one term verbatim; otherwise it was found by similarity only. */
  literal: boolean;
  terms: Set<string>;
}

/** A question about something going wrong. */
const FAILURE = /\b(?:fail\w*|error\w*|broken|break(?:s|ing)?|crash\w*|down|wrong|outage)\b/i;
/** A log line reporting trouble. */
const SEVERE = /\b(error|err|warn|warning|fatal|crit|critical|panic|exception|fail(ed|ure)?|timeout|timed out|refused|exhausted|oomkilled|5\d\d)\b/i;

/** What a log line says, its leading timestamp and every number aside: two lines of one burst have the same shape. */
function shapeOf(line: string): string {
  return line
    .trim()
    .replace(/^\S*\d\S*\s+/, '')
    .replace(/\d+/g, '#')
    .toLowerCase();
}

function clip(text: string, max = 300): string {
  return clipText(text, max);
}
