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
import { inTimeOrder, type TimeOrdered } from './time-order.ts';
import { lineTime } from './log-time.ts';
import { filesNamed } from './named-files.ts';
import { readWhole } from './read-whole.ts';
import { singularForms } from './singular.ts';
import { shapeOf } from './line-shape.ts';
import { askedWindow, isWindowWord } from './time-window.ts';
import { windowClaims } from './window-claims.ts';
import { FAILURE, reportsTrouble } from './trouble.ts';

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
  const weight = (t: string) => (subject.identifiers.includes(t) ? 3 : 1);
  const intent = timeIntentOf(p.message);
  const outputs: string[] = [];

  const listed = await p.toolbox.call('list_files', {});
  outputs.push(listed.text);
  const listedFiles = listed.ok && listed.tool === 'list_files' ? listed.files : [];
  // S-233: a file the question names is where to look, not a text to look for.
  const namedFiles = filesNamed(p.message, listedFiles);
  // S-234: a time of day the question asks about is a window on the lines' stamps, not a text ("03:11-03:13" included).
  const window = askedWindow(p.message);
  const terms = [...subject.identifiers, ...subject.words]
    .filter((t) => !namedFiles.names.includes(t.toLowerCase()) && !(window !== null && ((/^[\d:.\s–-]+$/.test(t) && t.includes(':')) || isWindowWord(t))))
    .slice(0, MAX_TERMS);
  const scopes = namedFiles.paths.length > 0 ? namedFiles.paths : [undefined];
  // Every line any term hits, scored by the terms it holds (identifiers weigh more).
  // A line found only by similarity (worded differently from the question) counts for less than one
  // that holds the term, and ranks after every such line (rankHits): it fills the claims the words left.
  const scored = new Map<string, ScoredHit>();
  /** The terms some line of the files holds as written, or a cited line says in other words (its claim says so). */
  const written = new Set<string>();
  // Logs say a failure in their own words: "why are requests failing?" matched no line as written, and the lines
  // nearest it in meaning were `"code":"OK","msg":"request served"`, cited as the answer while 410 ERROR lines went
  // unmentioned (a colleague's test, 2026-12-05). A question about a failure searches for the word logs use too.
  // A window's lines are read whole (windowClaims), not searched for.
  const patterns = window !== null ? [] : FAILURE.test(p.message) && !terms.some((t) => /^err/i.test(t)) ? [...terms, 'error'] : terms;
  /** S-235: the singular a plural term was found as, where no line holds the plural. */
  const forms = new Map<string, string>();
  let capped = false;
  /** The lines `pattern` is found in (every scope), and whether some line holds it as written. */
  const search = async (pattern: string): Promise<{ found: boolean; hits: SearchHit[] }> => {
    const hits: SearchHit[] = [];
    for (const scope of scopes) {
      const out = await p.toolbox.call('search_files', scope === undefined ? { pattern } : { pattern, path: scope });
      outputs.push(out.text);
      if (!out.ok || out.tool !== 'search_files') continue;
      hits.push(...out.search.hits);
      // S-236: lines past the search's cap match too, and are not among the hits to count.
      if (out.search.totalHits > out.search.hits.filter((h) => h.match === 'text').length) capped = true;
    }
    return { found: hits.some((h) => h.match === 'text'), hits };
  };
  for (const term of patterns) {
    let result = await search(term);
    // S-235: a plural in no line is searched as its singular; what the plural found only by meaning is then dropped.
    if (!result.found && subject.words.includes(term)) {
      for (const form of singularForms(term)) {
        const singular = await search(form);
        if (!singular.found) continue;
        forms.set(term, form);
        result = singular;
        break;
      }
    }
    if (result.found) written.add(term);
    for (const hit of result.hits) {
      const key = `${hit.path}\u0000${hit.line}`;
      const entry = scored.get(key) ?? { hit, score: 0, literal: false, terms: new Set<string>(), similar: new Set<string>() };
      if (hit.match === 'similar') entry.similar.add(term);
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
  // S-233: a file named with nothing else to look for ("what does nginx.log show?") is read whole; its lines are the
  // candidates, ranked as search hits are (a log's trouble first, a config's lines as they are).
  if (patterns.length === 0 && window === null) {
    for (const path of namedFiles.paths) {
      for (const line of (await readWhole(p.toolbox, path, outputs)) ?? []) {
        const hit: SearchHit = { path, line: line.line, text: line.text, match: 'text' };
        scored.set(`${path}\u0000${line.line}`, { hit, score: 0, literal: true, terms: new Set(), similar: new Set() });
      }
    }
  }
  const claims: TurnClaim[] = [];
  const cited: { path: string; start: number; end: number }[] = [];
  const { ranked, timing } = rankHits([...scored.values()], intent);
  for (const entry of ranked) {
    const { hit, literal, terms: near } = entry;
    if (cited.length >= (intent === null ? MAX_FILE_CLAIMS : 1)) break;
    // A line already in a cited range is cited; a line beside one is not. Skipping every hit within CONTEXT_LINES of a
    // cited range left out events.jsonl's second and third errors after its first (S-233), and app.log's two 502s after
    // the refusal a line before them (S-234).
    if (cited.some((c) => c.path === hit.path && hit.line >= c.start && hit.line <= c.end)) continue;
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
    const held = terms.filter((t) => text.toLowerCase().includes((forms.get(t) ?? t).toLowerCase()));
    const about = (held.length ? held : [...near]).slice(0, 2).join(', ');
    // A line can hold one term and say another in other words: "Was anything throttling requests?" finds "request
    // throttled" by "request" once a plural is searched as its singular (S-235), and it still does not say "throttling".
    const reworded = literal ? [...entry.similar].filter((t) => !held.includes(t)) : [...near];
    const lead =
      !literal || (intent === null && reworded.length > 0)
        ? `${hit.path} line ${start} does not use the words ${reworded.map((t) => `"${t}"`).join(', ')} but says something similar in meaning: `
        : intent !== null && acrossFiles(timing, entry)
          ? `The ${intent === 'first' ? 'earliest' : 'latest'} line reporting trouble about ${about}, by timestamp across ${[...timing!.timedFiles].sort().join(', ')}, is ${hit.path} line ${intent === 'first' ? start : hit.line} (${(lineTime(text) ?? timing!.timeOf(entry)!).written}): `
          : intent === 'first'
            ? `The earliest line in ${hit.path} reporting trouble about ${about} is line ${start}: `
            : intent === 'last'
              ? `The latest line in ${hit.path} reporting trouble about ${about} is line ${hit.line}: `
              : `${hit.path} line ${start}: `;
    for (const t of reworded) written.add(t); // its claim says the line words it differently
    claims.push({ text: `${lead}${quoted}`, citations: [{ kind: 'file', path: hit.path, startLine: start, endLine: end }] });
  }

  // S-236: the lines that match and no claim cites are counted, not dropped without a word: "what errors happened around
  // 03:12?" quoted three of the eleven lines reporting trouble that minute and said nothing of the rest. A "first" or
  // "last" asks for one line.
  const uncited = ranked.filter((e) => e.literal && !cited.some((c) => c.path === e.hit.path && e.hit.line >= c.start && e.hit.line <= c.end));
  let more = intent === null ? uncited.length : 0;
  const windowUnknown: string[] = [];
  if (window !== null) {
    const found = await windowClaims({
      toolbox: p.toolbox,
      paths: namedFiles.paths.length > 0 ? namedFiles.paths : listedFiles.map((f) => f.path),
      window,
      // Errors asked for are what troubleOnly says; the question's other terms narrow the window's lines.
      terms: terms.filter((t) => !FAILURE.test(t)),
      troubleOnly: FAILURE.test(p.message),
      outputs,
    });
    claims.push(...found.claims);
    windowUnknown.push(...found.unknown);
    more = found.more;
  }
  const shown = more > 0 ? [`${capped && window === null ? 'At least ' : ''}${more} more matching line${more === 1 ? '' : 's'} not shown.`] : [];

  // Seed #21: the jailed tools where they help (jq over a JSON file the question names, log_summary over a large log).
  const sandboxed = await consultSandbox({
    toolbox: p.toolbox,
    files: listedFiles,
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
  if (intent !== null && timing !== null && cited.length > 0) unknown.push(...uncompared(timing, intent));
  const searched = terms.length > 0 ? terms.map((t) => `"${t}"`).join(', ') : 'nothing (the message names no term to search for)';
  const where = namedFiles.paths.length > 0 ? namedFiles.paths.join(', ') : "the investigation's files";
  if (window !== null) unknown.push(...windowUnknown);
  else if (cited.length === 0) unknown.push(`No line of ${where} mentions ${searched}.`);
  else {
    // The lines cited hold the question's other words, or say something like it: what no line holds is said, not left
    // for the reader to infer from a list of lines. "What is the CPU usage on orders-db?" cited pool errors and said
    // nothing of CPU (a colleague's test, 2026-12-05).
    // Only what the question names (its nouns and identifiers): "getting" is how it was asked, not what about.
    const named = new Set(questionNouns(p.message));
    const unwritten = terms.filter((t) => !written.has(t) && (subject.identifiers.includes(t) || named.has(stem(t.toLowerCase()))));
    if (unwritten.length > 0) unknown.push(`No line of ${where} mentions ${unwritten.map((t) => `"${t}"`).join(', ')}.`);
  }
  if (claims.length === 0) {
    // S-108: "does not answer" only where the gate claims absence; an unsure refusal gave no answer, and says why.
    const library = runbookClaim === 'absent' || runbookClaim === null ? 'does not answer this either' : 'gave no answer either';
    unknown.push(`The runbook library ${library}${runbookRefusal ? ` (${runbookRefusal.replace(/\.$/, '')})` : ''}, so it is unknown.`);
  }
  const citations = uniqueCitations(claims);
  const answer = turnAnswerText(claims, unknown, (id) => p.kb.chunk(id), shown);
  // S-200: a follow-up is searched with an earlier question's subject, and said nothing of it: "?!?" after "why is
  // checkout getting 502s?" was answered about 502s and checkout as if asked. What it was read with is said.
  const notes = [
    ...(subject.from === 'history' ? [`Read as a follow-up to “${clip(subject.earlier, 120)}”: searched for ${terms.map((t) => `"${t}"`).join(', ')}.`] : []),
    ...shown,
    ...sandboxed.notes,
  ];
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
function rankHits(entries: ScoredHit[], intent: 'first' | 'last' | null): { ranked: ScoredHit[]; timing: TimeOrdered<ScoredHit> | null } {
  const order = (a: { hit: SearchHit }, b: { hit: SearchHit }) => (a.hit.path === b.hit.path ? a.hit.line - b.hit.line : a.hit.path < b.hit.path ? -1 : 1);
  const severity = (e: { hit: SearchHit }) => (reportsTrouble(e.hit.text) ? 1 : 0);
  if (intent !== null) {
    // Lines holding the terms first; lines only similar in meaning when none does.
    const literal = entries.filter((e) => e.literal);
    const from = literal.length > 0 ? literal : entries;
    const troubled = from.filter((e) => severity(e) === 1);
    // S-232: by the time each line states, across the files, not by file name then line.
    const timing = inTimeOrder(troubled.length > 0 ? troubled : from, (e) => e.hit, intent === 'first' ? 'earliest' : 'latest');
    return { ranked: [...timing.ordered], timing };
  }
  // In a file whose lines report trouble, only those are evidence: "checkout-api request ok status=200" was cited
  // beside a 502 for holding "checkout" and "request" (a colleague's test of the website, 2026-12-05). A file with no
  // such line (a config) keeps its lines.
  const troubledFiles = new Set(entries.filter((e) => e.literal && severity(e) === 1).map((e) => e.hit.path));
  // S-244: of lines holding the same terms, a comment only talks about a setting; the line that sets it comes first.
  // "what is the timeout_ms?" cited two comments naming the key and left `timeout_ms: 2500` among "1 more not shown".
  const stated = (e: { hit: SearchHit }) => (isCommentLine(e.hit.text) ? 0 : 1);
  const ranked = entries
    .filter((e) => !troubledFiles.has(e.hit.path) || severity(e) === 1)
    .sort((a, b) => Number(b.literal) - Number(a.literal) || b.score - a.score || stated(b) - stated(a) || severity(b) - severity(a) || order(a, b));
  return { ranked, timing: null };
}

/**
 * A line that is a comment in the config and script syntaxes an investigation holds: `#` (YAML, TOML, shell, INI),
 * `;` (INI), `//` and `/*` (JSON5, HCL, code), `-- ` (SQL, Lua). A bare `--flag` is a command's argument, not a comment.
 */
function isCommentLine(text: string): boolean {
  return /^\s*(?:#|;|\/\/|\/\*|--\s)/.test(text);
}

/** S-232: the line was ordered by its time among lines of more than one file, so the answer says it compared times. */
function acrossFiles(timing: TimeOrdered<ScoredHit> | null, entry: ScoredHit): boolean {
  return timing !== null && timing.timedFiles.length > 1 && timing.timeOf(entry)?.at != null;
}

/**
 * S-232: what could not be compared by time, said: the lines of a file that state no time that can be read (none of
 * its lines found does) were not placed among the others, and where no line's time could be read at all, "first" is
 * only the first in file order. A file whose other lines are dated has its undated ones (a stack trace's) in place.
 */
function uncompared(timing: TimeOrdered<ScoredHit>, intent: 'first' | 'last'): string[] {
  const files = [...new Set(timing.ordered.map((e) => e.hit.path))];
  const undated = [...new Set(timing.untimed.map((e) => e.hit.path))].filter((f) => !timing.timedFiles.includes(f));
  if (undated.length === 0 || files.length < 2) return [];
  const which = intent === 'first' ? 'earliest' : 'latest';
  if (timing.timedFiles.length === 0) {
    return [
      `No line found in ${files.join(', ')} states a time that could be read, so their times could not be compared: the ${which} line is taken in file order, not by time.`,
    ];
  }
  return [
    `The lines found in ${undated.join(', ')} state no time that could be read, so they could not be compared by time with the others; one of them may be ${intent === 'first' ? 'earlier' : 'later'}.`,
  ];
}

/** A line some term's search returned, with how much the terms it answers weigh. */
interface ScoredHit {
  hit: SearchHit;
  score: number;
  /** It holds at least one term verbatim; otherwise it was found by similarity only. */
  literal: boolean;
  terms: Set<string>;
  /** The terms that found it by similarity only (it does not hold them). */
  similar: Set<string>;
}

function clip(text: string, max = 300): string {
  return clipText(text, max);
}
