import { type Outcome, type Source, sourceSchema, terminalSchema, verdictSchema } from '@sandscope/api';
import { citedHeadings } from '@sandscope/engine';
import { scrubDeep, type SecretScrubber } from '@sandscope/engine/models';
import { outcomeOf } from '@sandscope/engine/orchestrator';
import {
  type CitationRecord,
  type CitedTextFrom,
  type ClaimRecord,
  type Database,
  type FeedbackLabel,
  getRun,
  interruptIfOwnerGone,
  listRuns,
  type RunRecord,
  type RunStatus,
  type RunSummary,
  type SpendEntry,
} from '@sandscope/store';
import { type NodeEventView, nodeEventView, type ProviderEventView, type RunResultView, storedProviderEventView } from './run-views.ts';

/** One line of `GET /v1/runs`. */
export interface RunListItem {
  readonly id: string;
  readonly question: string;
  readonly workload: string;
  readonly status: RunStatus;
  readonly terminal: string | null;
  readonly verdict: string | null;
  /** What the run amounts to (outcomeOf); null until it reaches a terminal. */
  readonly outcome: Outcome | null;
  readonly band: string | null;
  readonly score: number | null;
  readonly costUsd: number;
  readonly createdAt: string;
  readonly parentRunId: string | null;
}

export interface RunPageView {
  readonly runs: RunListItem[];
  readonly page: number;
  readonly pageSize: number;
  readonly total: number;
}

/** `GET /v1/runs/:id`. */
export interface RunDetailView {
  readonly run: RunListItem & {
    readonly answer: string | null;
    readonly action: string | null;
    readonly risk: unknown;
    readonly reasons: readonly string[];
    /** Whether the asking session is the one that requested this run (it alone may approve it, T-17). */
    readonly sessionOwned: boolean;
    /** Why a run is `failed` or `interrupted`; null otherwise. */
    readonly error: string | null;
    readonly finishedAt: string | null;
  };
  readonly spans: NodeEventView[];
  /** Each citation's passage as the run read it (`textFrom: 'record'`), or — kept nowhere — the library's now, said so (S-257). */
  readonly claims: {
    readonly index: number;
    readonly text: string;
    readonly citations: { chunkId: string; doc: string; heading: string; text: string; textFrom: CitedTextFrom }[];
  }[];
  readonly providerEvents: ProviderEventView[];
  readonly spend: { readonly reservedUsd: number; readonly spentUsd: number; readonly ceilingUsd: number; readonly ledger: SpendEntry[] };
  readonly parent: { readonly id: string; readonly terminal: string | null } | null;
  readonly children: { readonly id: string; readonly terminal: string | null; readonly createdAt: string }[];
  /** A person's mark on this run, if any (POST /v1/runs/:id/feedback). */
  readonly feedback: { readonly label: FeedbackLabel; readonly note: string | null; readonly evidence: string | null; readonly createdAt: string } | null;
}

export interface RunReaderOptions {
  readonly db: Database;
  /** RUN_BUDGET_USD: the ceiling shown for a run that stopped before it reported its own. */
  readonly budgetUsd: number;
  /**
   * Configured secrets, scrubbed again on the way out: a run recorded before
   * writes were scrubbed (issue 12, defect 3) must not serve a key it stored then.
   */
  readonly scrub?: SecretScrubber;
  /**
   * This replica's owner id (its lease). With it, a run read as `running` whose
   * owner process holds no lease any more (killed) is marked interrupted first
   * (issue 11 section 2); the reader's own runs are never touched.
   */
  readonly ownerId?: string;
}

const money = (n: number) => Math.round(n * 1e9) / 1e9;

/**
 * The read side of the run record, shaped as docs/API.md says. Everything comes
 * from the store — the spans as written (allowlisted), the citations as rows with
 * the passages the run read — so a run read back months later shows what was
 * recorded, not what the current code (or this replica's corpus) would compute.
 */
export class RunReader {
  readonly #o: RunReaderOptions;

  constructor(options: RunReaderOptions) {
    this.#o = options;
  }

  async list(page: number, pageSize: number): Promise<RunPageView> {
    const { db } = this.#o;
    const listed = await listRuns(db, { page, pageSize });
    const scores = await this.#scores(listed.runs.map((r) => r.id));
    const view = { runs: listed.runs.map((r) => listItem(r, scores.get(r.id) ?? null)), page: listed.page, pageSize: listed.pageSize, total: listed.total };
    return this.#scrubbed(view);
  }

  /** Null when there is no such run (including an id that is not a uuid). */
  async get(runId: string, sessionId: string): Promise<RunDetailView | null> {
    const { db, budgetUsd, ownerId } = this.#o;
    let detail = await getRun(db, runId);
    if (!detail) return null;
    if (detail.run.status === 'running' && ownerId !== undefined && detail.run.ownerId !== ownerId && (await interruptIfOwnerGone(db, runId, { ownerId }))) {
      detail = (await getRun(db, runId)) ?? detail;
    }
    const { run } = detail;
    const result = storedResult(run);
    return this.#scrubbed<RunDetailView>({
      run: {
        ...listItem(run, run.score),
        answer: run.answer,
        action: result?.action ?? null,
        risk: run.risk ?? null,
        reasons: result?.reasons ?? [],
        sessionOwned: run.sessionId === sessionId,
        error: run.error,
        finishedAt: run.finishedAt,
      },
      spans: detail.spans.map((s) => nodeEventView(run.id, s)),
      claims: citedPassages(detail.claims, run),
      providerEvents: detail.providerEvents.map((e) => storedProviderEventView(run.id, e)),
      spend: {
        reservedUsd: money(Math.max(0, detail.spend.reservedUsd - detail.spend.releasedUsd)),
        spentUsd: money(detail.spend.settledUsd),
        ceilingUsd: result?.spend.ceilingUsd ?? budgetUsd,
        ledger: detail.spend.entries,
      },
      parent: detail.parent ? { id: detail.parent.id, terminal: detail.parent.terminal } : null,
      children: detail.children.map((c) => ({ id: c.id, terminal: c.terminal, createdAt: c.createdAt })),
      feedback: detail.feedback
        ? { label: detail.feedback.label, note: detail.feedback.note, evidence: detail.feedback.evidence, createdAt: detail.feedback.createdAt }
        : null,
    });
  }

  #scrubbed<T>(view: T): T {
    return this.#o.scrub ? scrubDeep(view, this.#o.scrub) : view;
  }

  /** The store's run list leaves the score out (it is a result field); one query fetches it for the page. */
  async #scores(ids: readonly string[]): Promise<Map<string, number | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#o.db.query<{ id: string; score: number | null }>('select id::text as id, score from run where id = any($1::uuid[])', [ids]);
    return new Map(rows.map((r) => [r.id, r.score]));
  }
}

/**
 * S-257: the passage each citation shows is the one the run read. A citation recorded since keeps it; one recorded
 * before kept only its chunk id, and the run's stored result still holds the passages it showed (`sources`, recorded
 * with the run when it finished), so those are read from there. Only a citation found in neither reads the
 * library as it is now — from the shared table, the same on every replica — named as `ask` names it (S-142) and
 * marked `library`: it may not be what the run read. It used to be this replica's in-memory corpus first, so one
 * record read differently on each replica after a corpus change.
 */
function citedPassages(claims: readonly ClaimRecord[], run: RunRecord): RunDetailView['claims'] {
  const shown = shownSources(run);
  const fromLibrary = (x: CitationRecord) => x.textFrom === 'library' && !shown.has(x.chunkId);
  const library = new Map(claims.flatMap((c) => c.citations.filter(fromLibrary).map((x) => [x.chunkId, x] as const)));
  const headings = citedHeadings(
    claims.map((c) => ({ text: c.text, citations: c.citations.map((x) => x.chunkId) })),
    (id) => library.get(id),
  );
  return claims.map((c) => ({
    index: c.index,
    text: c.text,
    citations: c.citations.map((x) => {
      if (x.textFrom === 'record') return { chunkId: x.chunkId, doc: x.doc, heading: x.heading, text: x.text, textFrom: 'record' as const };
      const source = shown.get(x.chunkId);
      if (source) return { chunkId: x.chunkId, doc: source.doc, heading: source.heading, text: source.text, textFrom: 'record' as const };
      return { chunkId: x.chunkId, doc: x.doc, heading: headings.get(x.chunkId) ?? x.heading, text: x.text, textFrom: 'library' as const };
    }),
  }));
}

/** The passages a run's stored result showed (`sources`), by chunk id; those that do not parse are left out. */
function shownSources(run: RunRecord): Map<string, Source> {
  const sources = (run.result as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(sources)) return new Map();
  return new Map(
    sources.flatMap((s) => {
      const parsed = sourceSchema.safeParse(s);
      return parsed.success ? [[parsed.data.chunkId, parsed.data] as const] : [];
    }),
  );
}

function listItem(r: RunSummary, score: number | null): RunListItem {
  return {
    id: r.id,
    question: r.question,
    workload: r.workload,
    status: r.status,
    terminal: r.terminal,
    verdict: r.verdict,
    outcome: recordedOutcome(r.verdict, r.terminal),
    band: r.band,
    score,
    costUsd: r.costUsd,
    createdAt: r.createdAt,
    parentRunId: r.parentRunId,
  };
}

/**
 * The outcome of a stored run, read from its recorded verdict and terminal.
 * Derived at read time rather than stored: it is a pure function of two
 * recorded columns, so every run — those recorded before the outcome existed
 * included — reads the same way the CLI and the stream showed it.
 */
function recordedOutcome(verdict: string | null, terminal: string | null): Outcome | null {
  const v = verdictSchema.safeParse(verdict);
  const t = terminalSchema.safeParse(terminal);
  return v.success && t.success ? outcomeOf(v.data, t.data) : null;
}

function storedResult(run: RunRecord): Pick<RunResultView, 'action' | 'reasons' | 'spend'> | null {
  const r = run.result as Partial<RunResultView> | null;
  if (!r || typeof r !== 'object' || !Array.isArray(r.reasons) || !r.spend) return null;
  return { action: r.action ?? null, reasons: r.reasons, spend: r.spend };
}
