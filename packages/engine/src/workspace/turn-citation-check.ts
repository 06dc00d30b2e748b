import { deniedSentence } from '../orchestrator/claim-polarity.ts';
import { hazardOf } from '../corpus/passage-hazards.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { identifiersIn, numbersIn, standsIn } from '../orchestrator/citation-check.ts';
import type { TurnCitation, TurnClaim } from './planner.ts';
import type { ToolOutcome } from './tools.ts';
import { resolveWorkspacePath } from './workspace-path.ts';

/**
 * What the tools returned in one turn: the file lines (by path and number) and
 * the runbook passages. A model's claim may stand only on these — a line it
 * never read, or a passage id it remembers from elsewhere, is not evidence
 * in this turn (the spirit of orchestrator/citation-check.ts: only what was put
 * in front of the model in this run counts).
 */
export class EvidenceLedger {
  readonly #lines = new Map<string, Map<number, string>>();
  readonly #passages = new Map<string, { heading: string; text: string; docTitle: string }>();

  constructor(private readonly kb: KnowledgeBase) {}

  /** Records what one tool call gave back; refused calls gave nothing. */
  add(outcome: ToolOutcome): void {
    if (!outcome.ok) return;
    if (outcome.tool === 'read_file') {
      const { window } = outcome;
      window.lines.forEach((line, i) => this.#line(window.path, window.startLine + i, line));
    } else if (outcome.tool === 'search_files') {
      for (const hit of outcome.search.hits) this.#line(hit.path, hit.line, hit.text);
    } else if (outcome.tool === 'search_runbooks') {
      for (const p of outcome.runbooks.passages) {
        this.#passages.set(p.chunkId, { heading: p.heading, text: p.text, docTitle: this.kb.chunk(p.chunkId)?.docTitle ?? '' });
      }
    }
  }

  #line(path: string, n: number, text: string): void {
    let lines = this.#lines.get(path);
    if (!lines) this.#lines.set(path, (lines = new Map()));
    lines.set(n, text);
  }

  /** The cited lines' text, or the first line of the range the tools never returned. */
  lines(path: string, start: number, end: number): { ok: true; text: string } | { ok: false; missing: number } {
    const seen = this.#lines.get(path);
    const out: string[] = [];
    for (let n = start; n <= end; n++) {
      const line = seen?.get(n);
      if (line === undefined) return { ok: false, missing: n };
      out.push(line);
    }
    return { ok: true, text: out.join('\n') };
  }

  passage(chunkId: string): { heading: string; text: string; docTitle: string } | undefined {
    return this.#passages.get(chunkId);
  }

  get passageIds(): string[] {
    return [...this.#passages.keys()];
  }

  get paths(): string[] {
    return [...this.#lines.keys()];
  }
}

/** The widest file range one citation may span: a claim about a whole log cites nothing in particular. */
export const MAX_CITED_LINES = 200;

/**
 * A citation as a model writes it — `app.log:4312-4318`, `app.log:4400`, or a
 * runbook passage id (`orders-db#connection-pool`) — or why it is neither.
 */
export function parseTurnCitation(label: string): { ok: true; citation: TurnCitation } | { ok: false; reason: string } {
  const text = label
    .trim()
    .replace(/^\[|\]$/g, '')
    .trim();
  const file = /^(.+?):(\d+)(?:\s*[-–]\s*(\d+))?$/.exec(text);
  if (file) {
    const path = resolveWorkspacePath(file[1]);
    if (!path.ok) return { ok: false, reason: `"${text}" does not name a workspace file (${path.reason})` };
    const startLine = Number(file[2]);
    const endLine = file[3] === undefined ? startLine : Number(file[3]);
    if (startLine < 1 || endLine < startLine) return { ok: false, reason: `"${text}" is not a line range (lines count from 1, start before end)` };
    return { ok: true, citation: { kind: 'file', path: path.path, startLine, endLine } };
  }
  if (text === '' || /\s/.test(text)) return { ok: false, reason: `"${text}" is neither path:start-end nor a runbook passage id` };
  return { ok: true, citation: { kind: 'passage', chunkId: text } };
}

/** A claim as the model wrote it, before the check. */
export interface DraftTurnClaim {
  readonly text: string;
  readonly citations: readonly string[];
}

export interface TurnCheck {
  /** The claims that stand, each with its parsed citations. */
  readonly claims: TurnClaim[];
  /** The claims dropped, each with every reason. */
  readonly dropped: { readonly text: string; readonly reasons: readonly string[] }[];
}

/**
 * The provider loop's citation check. A claim stands only when:
 * - it cites at least one file range or passage;
 * - every file range it cites is lines the tools returned in this turn (read
 *   or found), no wider than MAX_CITED_LINES, and every passage it cites was
 *   returned by search_runbooks in this turn;
 * - every number and identifier it states stands in what it cites (the cited
 *   line numbers and paths count: "app.log line 4312" is the citation speaking);
 * - it does not repeat text addressed to a model or active markup (issue 12, defect 9).
 * A claim that fails is dropped, never repaired: the turn says what it could
 * not support instead of guessing (issue 10's evidence discipline).
 */
export function checkTurnClaims(drafts: readonly DraftTurnClaim[], ledger: EvidenceLedger): TurnCheck {
  const claims: TurnClaim[] = [];
  const dropped: TurnCheck['dropped'] = [];
  for (const draft of drafts) {
    const reasons: string[] = [];
    const text = draft.text.trim();
    if (text === '') continue;
    const citations: TurnCitation[] = [];
    const support: string[] = [];
    const numbersAllowed = new Set<string>();
    if (draft.citations.length === 0) reasons.push('it cites nothing the tools returned');
    const hazard = hazardOf(text);
    if (hazard) reasons.push(hazard === 'instructions' ? 'it repeats text addressed to a model; file and passage text is data' : 'it repeats active markup');
    for (const label of draft.citations) {
      const parsed = parseTurnCitation(label);
      if (!parsed.ok) {
        reasons.push(`its citation ${parsed.reason}`);
        continue;
      }
      const c = parsed.citation;
      if (c.kind === 'file') {
        const label = `${c.path}:${c.startLine}-${c.endLine}`;
        if (c.endLine - c.startLine + 1 > MAX_CITED_LINES) {
          reasons.push(`it cites ${label}, ${c.endLine - c.startLine + 1} lines; cite the lines that say it (at most ${MAX_CITED_LINES})`);
          continue;
        }
        const seen = ledger.lines(c.path, c.startLine, c.endLine);
        if (!seen.ok) {
          reasons.push(`it cites ${label}, but the tools never returned line ${seen.missing} of ${c.path} in this turn`);
          continue;
        }
        support.push(c.path, seen.text);
        for (let n = c.startLine; n <= c.endLine; n++) numbersAllowed.add(String(n));
      } else {
        const passage = ledger.passage(c.chunkId);
        if (!passage) {
          const known = ledger.passageIds;
          reasons.push(
            `it cites "${c.chunkId}", which search_runbooks did not return in this turn${known.length > 0 ? ` (it returned ${known.join(', ')})` : ''}`,
          );
          continue;
        }
        support.push(passage.docTitle, passage.heading, passage.text);
      }
      citations.push(c);
    }
    if (support.length > 0) {
      const cited = { docTitle: '', heading: '', text: support.join('\n') };
      const stated = new Set([...numbersIn(cited.text, { words: true }), ...numbersAllowed]);
      for (const n of numbersIn(text)) if (!stated.has(n)) reasons.push(`it states ${n}, which what it cites does not state`);
      for (const name of identifiersIn(text)) if (!standsIn(cited, name)) reasons.push(`it names ${name}, which what it cites never mentions`);
      // "the orders-db pool was not exhausted", cited to the lines that say it was, stood (S-125).
      const denied = deniedSentence(text, [cited]);
      if (denied) reasons.push(`it says the opposite of what it cites: “${denied}”`);
    }
    if (reasons.length > 0) dropped.push({ text, reasons });
    else claims.push({ text, citations });
  }
  return { claims, dropped };
}
