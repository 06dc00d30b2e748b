import type { Claim } from '@sandscope/engine';
import type { CitedPassage } from './citation-repository.ts';
import { citationRows } from './citation-rows.ts';
import type { Queryable } from './database.ts';
import type { ProviderEventInput } from './provider-event-repository.ts';
import { outcomeValues, type RunOutcome, type SpanInput, type SpanRecord } from './run-repository.ts';
import type { SpendKind } from './spend-ledger-repository.ts';
import { FOREIGN_KEY_VIOLATION, postgresError, StoreError } from './store-error.ts';
import { iso, json, requireUuid } from './values.ts';

/** What a run's recorder has collected since its last flush, each list in the order it happened. */
export interface RunEventBatch {
  readonly spans?: readonly SpanInput[];
  readonly providerEvents?: readonly ProviderEventInput[];
  readonly spend?: readonly { readonly kind: SpendKind; readonly usd: number; readonly provider?: string | null }[];
}

export interface AppendedRunEvents {
  /** The spans as stored, in order: their seq is the event id a client resumes from. */
  readonly spans: SpanRecord[];
  /** The seq given to each provider event, in order. */
  readonly providerEventSeqs: number[];
}

/**
 * Appends one flush of a run's record — its spans, provider events and spend
 * lines — as ONE statement: one round trip, one commit, all or nothing. ADR-0004:
 * a statement per event (about fourteen commits a run) cost more than the graph
 * itself; a flush is whatever the run emitted since the last one.
 *
 * Refused, writing nothing, once the run has stopped (a process whose run was
 * marked interrupted must not keep writing into it) — spend and provider lines
 * included, which a statement each used to write whatever the run's state.
 * One writer per run: seqs continue from the run's last one.
 */
export async function appendRunEvents(db: Queryable, runId: string, batch: RunEventBatch): Promise<AppendedRunEvents> {
  requireUuid(runId, 'run id');
  const spans = batch.spans ?? [];
  const providers = batch.providerEvents ?? [];
  const spend = batch.spend ?? [];
  for (const line of spend) {
    if (!Number.isFinite(line.usd) || line.usd < 0) throw new StoreError('invalid_argument', `usd must be a finite amount ≥ 0, got ${line.usd}`);
  }
  if (spans.length + providers.length + spend.length === 0) return { spans: [], providerEventSeqs: [] };
  const [row] = await db.query<{ running: boolean; spans: StoredSpanJson[]; provider_seqs: number[] }>(
    `with r as (select id from run where id = $1 and status = 'running'),
     s as (
       insert into span (run_id, seq, node, kind, at, duration_ms, attributes)
       select r.id, coalesce((select max(seq) from span where run_id = r.id), 0) + x.ord, x.node, x.kind,
              coalesce(x.at, now()), x.duration_ms, coalesce(x.attributes, '{}'::jsonb)
       from r, jsonb_to_recordset($2::jsonb) as x(ord int, node text, kind text, at timestamptz, duration_ms float8, attributes jsonb)
       returning seq, node, kind, at, duration_ms, attributes
     ),
     p as (
       insert into provider_event (run_id, seq, provider, kind, status, message, latency_ms, tokens, cost_usd)
       select r.id, coalesce((select max(seq) from provider_event where run_id = r.id), 0) + x.ord, x.provider, x.kind, x.status,
              x.message, x.latency_ms, x.tokens, x.cost_usd
       from r, jsonb_to_recordset($3::jsonb) as x(ord int, provider text, kind text, status text, message text, latency_ms float8, tokens int, cost_usd numeric)
       returning seq
     ),
     l as (
       insert into spend_ledger (run_id, kind, provider, usd)
       select r.id, x.kind, x.provider, x.usd
       from r, jsonb_to_recordset($4::jsonb) as x(ord int, kind text, provider text, usd numeric)
       order by x.ord
       returning id
     )
     select exists (select 1 from r) as running,
            coalesce((select jsonb_agg(to_jsonb(s) order by s.seq) from s), '[]'::jsonb) as spans,
            coalesce((select jsonb_agg(p.seq order by p.seq) from p), '[]'::jsonb) as provider_seqs,
            (select count(*) from l)::int as ledger_lines`,
    [
      runId,
      json(
        spans.map((s, i) => ({
          ord: i + 1,
          node: s.node,
          kind: s.kind,
          at: s.at?.toISOString() ?? null,
          duration_ms: s.durationMs ?? null,
          attributes: s.attributes ?? {},
        })),
      ),
      json(
        providers.map((e, i) => ({
          ord: i + 1,
          provider: e.provider,
          kind: e.kind,
          status: e.status,
          message: e.message ?? null,
          latency_ms: e.latencyMs ?? null,
          tokens: e.tokens ?? null,
          cost_usd: e.costUsd ?? null,
        })),
      ),
      json(spend.map((l, i) => ({ ord: i + 1, kind: l.kind, provider: l.provider ?? null, usd: l.usd }))),
    ],
  );
  if (!row?.running) return requireRunning(db, runId);
  return {
    spans: row.spans.map((s) => ({ seq: s.seq, node: s.node, kind: s.kind, at: iso(new Date(s.at)), durationMs: s.duration_ms, attributes: s.attributes })),
    providerEventSeqs: row.provider_seqs,
  };
}

/** A span as `to_jsonb` renders the row: the timestamp is text. */
interface StoredSpanJson {
  seq: number;
  node: string;
  kind: SpanRecord['kind'];
  at: string;
  duration_ms: number | null;
  attributes: Record<string, unknown>;
}

/**
 * Finishes a running run as completed with its claims — one citation row per
 * (claim, cited chunk) — in ONE statement: the run is never seen completed
 * without its citations, nor citations on a run that did not complete. A claim
 * citing a chunk that does not exist is refused by the foreign key and nothing
 * is written: a citation pointing at nothing is not evidence (seed §Six).
 * `passages` are the cited passages as the run read them (its result's
 * `sources`), one for every cited chunk: each citation keeps its passage, so the
 * record never changes when another corpus is written over the chunk table (S-257).
 */
export async function completeRun(
  db: Queryable,
  runId: string,
  outcome: Omit<RunOutcome, 'status'>,
  claims: readonly Pick<Claim, 'text' | 'citations'>[],
  passages: readonly CitedPassage[],
): Promise<void> {
  requireUuid(runId, 'run id');
  claims.forEach((claim, index) => {
    if (claim.citations.length === 0) {
      throw new StoreError('claim_without_citation', `claim ${index} ("${claim.text.slice(0, 60)}") cites nothing; run ${runId} was not completed`);
    }
  });
  const citations = citationRows(claims, passages, `run ${runId} was not completed`).map((c, i) => ({ ord: i + 1, ...c }));
  const rows = await db
    .query<{ id: string }>(
      `with u as (
         update run set status = 'completed', terminal = $2, verdict = $3, band = $4, score = $5, answer = $6,
           risk = $7::jsonb, result = $8::jsonb, error = $9, cost_usd = $10, tokens_in = $11, tokens_out = $12,
           finished_at = now()
         where id = $1 and status = 'running'
         returning id
       ),
       c as (
         insert into citation (run_id, claim_index, claim_text, chunk_id, passage_doc, passage_heading, passage_text)
         select u.id, x.claim_index, x.claim_text, x.chunk_id, x.passage_doc, x.passage_heading, x.passage_text
         from u, jsonb_to_recordset($13::jsonb) as x(ord int, claim_index int, claim_text text, chunk_id text,
                                                   passage_doc text, passage_heading text, passage_text text)
         order by x.ord
       )
       select id::text from u`,
      [runId, ...outcomeValues(outcome), json(citations)],
    )
    .catch((error: unknown) => {
      const pg = postgresError(error);
      if (pg?.code === FOREIGN_KEY_VIOLATION && pg.constraint === 'citation_chunk_id_fkey') return missingChunk(db, runId, citations, error);
      throw error;
    });
  if (rows.length === 0) await requireRunning(db, runId);
}

/** Names the first claim whose cited chunk does not exist, as saveClaims does. */
async function missingChunk(db: Queryable, runId: string, citations: readonly { claim_index: number; chunk_id: string }[], cause: unknown): Promise<never> {
  const found = await db.query<{ id: string }>('select id from chunk where id = any($1::text[])', [[...new Set(citations.map((c) => c.chunk_id))]]);
  const known = new Set(found.map((r) => r.id));
  const missing = citations.find((c) => !known.has(c.chunk_id));
  const which = missing
    ? `claim ${missing.claim_index} cites chunk "${missing.chunk_id}", which does not exist in the corpus`
    : 'a claim cites a chunk that does not exist in the corpus';
  throw new StoreError('citation_chunk_missing', `${which}; run ${runId} was not completed and no claims were saved`, { cause });
}

async function requireRunning(db: Queryable, runId: string): Promise<never> {
  const [row] = await db.query<{ status: string }>('select status from run where id = $1', [runId]);
  if (!row) throw new StoreError('run_not_found', `run ${runId} does not exist`);
  throw new StoreError('run_not_running', `run ${runId} is ${row.status}, not running`);
}
