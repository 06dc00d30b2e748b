import { randomUUID } from 'node:crypto';
import { resolveWorkspacePath } from '@sandscope/engine/workspace';
import type { Queryable } from './database.ts';
import { StoreError } from './store-error.ts';
import { cosine } from '@sandscope/engine';
import { floats, iso, isUuid, json } from './values.ts';

/** Longest title, in characters (migration 0018's CHECK). */
export const MAX_INVESTIGATION_TITLE_CHARS = 200;

export interface InvestigationRecord {
  readonly id: string;
  readonly title: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A line of the list: the record with how much it holds. */
export interface InvestigationSummary extends InvestigationRecord {
  readonly fileCount: number;
  readonly messageCount: number;
}

/** A file without its content: what a listing shows. */
export interface InvestigationFileInfo {
  readonly path: string;
  readonly sizeBytes: number;
  readonly status: 'ok' | 'error';
  readonly error: string | null;
  readonly createdAt: string;
}

export interface InvestigationFile extends InvestigationFileInfo {
  readonly content: string;
}

/**
 * What an assistant message cost, persisted with it (seed #22) so a reload
 * shows what the live turn showed. The offline planner calls no model: its
 * tokens are estimates of what it read and wrote, at no cost.
 */
export interface TurnMetrics {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly elapsedMs: number;
  readonly costUsd: number;
  readonly provider: string;
}

export interface InvestigationMessage {
  readonly id: number;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  /** An assistant message's claims, citations and tool calls (JSON as the turn produced it); null for a user message. */
  readonly result: unknown;
  readonly metrics: TurnMetrics | null;
  readonly createdAt: string;
}

export type NewInvestigationMessage =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly result?: unknown; readonly metrics: TurnMetrics };

/** The title as stored (trimmed), or a StoreError saying what is wrong — every door refuses the same titles. */
export function normalizeTitle(title: unknown): string {
  if (typeof title !== 'string') throw new StoreError('invalid_argument', 'the title must be text');
  const trimmed = title.trim();
  if (trimmed === '') throw new StoreError('invalid_argument', 'the title is empty; give the investigation a name, e.g. "orders-db latency 2024-05-01"');
  const length = [...trimmed].length;
  if (length > MAX_INVESTIGATION_TITLE_CHARS) {
    throw new StoreError('invalid_argument', `the title is ${length} characters; the limit is ${MAX_INVESTIGATION_TITLE_CHARS}`);
  }
  return trimmed;
}

/** A workspace path as stored, or a StoreError with the reason (the engine's one rule, workspace-path.ts). */
export function normalizeFilePath(path: unknown): string {
  const resolved = resolveWorkspacePath(path);
  if (!resolved.ok) throw new StoreError('invalid_argument', resolved.reason);
  return resolved.path;
}

type InvestigationRow = { id: string; title: string; created_at: Date; updated_at: Date };

const toRecord = (r: InvestigationRow): InvestigationRecord => ({ id: r.id, title: r.title, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at) });

/** A fresh investigation. Its id is random: a title is not a key (two incidents may share one). */
export async function createInvestigation(db: Queryable, input: { readonly title: string }): Promise<InvestigationRecord> {
  const title = normalizeTitle(input.title);
  const [row] = await db.query<InvestigationRow>('insert into investigation (id, title) values ($1, $2) returning id::text, title, created_at, updated_at', [
    randomUUID(),
    title,
  ]);
  return toRecord(row!);
}

/** The investigation, or null (also for an id that is not a uuid: it cannot name one). */
export async function getInvestigation(db: Queryable, id: string): Promise<InvestigationRecord | null> {
  if (!isUuid(id)) return null;
  const [row] = await db.query<InvestigationRow>('select id::text, title, created_at, updated_at from investigation where id = $1', [id]);
  return row ? toRecord(row) : null;
}

/** Every investigation, newest first, with its file and message counts. */
export async function listInvestigations(db: Queryable): Promise<InvestigationSummary[]> {
  const rows = await db.query<InvestigationRow & { files: number; messages: number }>(
    `select i.id::text, i.title, i.created_at, i.updated_at,
       (select count(*)::int from investigation_file f where f.investigation_id = i.id) as files,
       (select count(*)::int from investigation_message m where m.investigation_id = i.id) as messages
     from investigation i order by i.created_at desc, i.seq desc`,
  );
  return rows.map((r) => ({ ...toRecord(r), fileCount: r.files, messageCount: r.messages }));
}

export async function renameInvestigation(db: Queryable, id: string, title: string): Promise<InvestigationRecord> {
  const normalized = normalizeTitle(title);
  const [row] = isUuid(id)
    ? await db.query<InvestigationRow>(
        'update investigation set title = $2, updated_at = now() where id = $1 returning id::text, title, created_at, updated_at',
        [id, normalized],
      )
    : [];
  if (!row) throw notFound(id);
  return toRecord(row);
}

/** Deletes the investigation with its files and messages (ON DELETE CASCADE). */
export async function deleteInvestigation(db: Queryable, id: string): Promise<void> {
  const rows = isUuid(id) ? await db.query('delete from investigation where id = $1 returning id', [id]) : [];
  if (rows.length === 0) throw notFound(id);
}

/** A file's embedded passages as uploaded (migration 0023): consecutive lines and their vector, in one embedding space. */
export interface FilePassageEmbeddings {
  readonly embedderId: string;
  readonly passages: readonly { readonly startLine: number; readonly endLine: number; readonly vector: ArrayLike<number> }[];
}

/**
 * Stores a file under its path, replacing one already there (the natural key
 * is the row's key, so a second upload of `app.log` is that file, not a twin).
 * The file's passages are replaced with it: a new upload without `embeddings`
 * (its embedding failed) keeps no vector of the old text, which would rank
 * lines that are no longer there. Call it inside a transaction to make the
 * file and its passages one write.
 */
export async function putInvestigationFile(
  db: Queryable,
  investigationId: string,
  file: {
    readonly path: string;
    readonly content: string;
    readonly status?: 'ok' | 'error';
    readonly error?: string | null;
    readonly embeddings?: FilePassageEmbeddings;
  },
): Promise<InvestigationFileInfo> {
  const path = normalizeFilePath(file.path);
  const status = file.status ?? 'ok';
  const error = status === 'error' ? (file.error ?? 'processing failed') : null;
  const [row] = isUuid(investigationId)
    ? await db.query<FileRow>(
        `insert into investigation_file (investigation_id, path, content, size_bytes, status, error)
         select i.id, $2, $3, $4, $5, $6 from investigation i where i.id = $1
         on conflict (investigation_id, path) do update
           set content = excluded.content, size_bytes = excluded.size_bytes, status = excluded.status,
               error = excluded.error, created_at = now()
         returning path, size_bytes, status, error, created_at`,
        [investigationId, path, file.content, Buffer.byteLength(file.content, 'utf8'), status, error],
      )
    : [];
  if (!row) throw notFound(investigationId);
  await db.query('delete from investigation_file_passage where investigation_id = $1 and path = $2', [investigationId, path]);
  if (file.embeddings && file.embeddings.passages.length > 0) {
    const passages = file.embeddings.passages.map((p) => {
      if (!Number.isInteger(p.startLine) || !Number.isInteger(p.endLine) || p.startLine < 1 || p.endLine < p.startLine) {
        throw new StoreError('invalid_argument', `a passage must cover lines start..end with 1 <= start <= end, got ${p.startLine}..${p.endLine}`);
      }
      return { s: p.startLine, e: p.endLine, v: floats(p.vector) };
    });
    // One statement for the whole file: the vectors travel as one JSON array.
    await db.query(
      `insert into investigation_file_passage (investigation_id, path, start_line, end_line, embedder_id, dimensions, embedding)
       select $1, $2, (p.value->>'s')::int, (p.value->>'e')::int, $3, jsonb_array_length(p.value->'v'),
              array(select x::real from jsonb_array_elements_text(p.value->'v') with ordinality as t(x, i) order by i)
       from jsonb_array_elements($4::jsonb) as p`,
      [investigationId, path, file.embeddings.embedderId, JSON.stringify(passages)],
    );
  }
  await touch(db, investigationId);
  return toFileInfo(row);
}

/** A stored passage of an investigation's file and how near it is to a query vector. */
export interface SimilarFilePassage {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  /** Cosine similarity, -1..1. */
  readonly similarity: number;
}

/**
 * The investigation's passages nearest a query vector, in one embedding space
 * (`embedderId`: a file embedded by another embedder is not comparable, and is
 * left to the lexical search). Ranked in-process on every Postgres: one
 * investigation holds a few hundred passages, and Debian's server has no
 * pgvector. `path` narrows to one file or a folder prefix, as search_files does.
 */
export async function similarInvestigationPassages(
  db: Queryable,
  investigationId: string,
  query: ArrayLike<number>,
  options: { readonly embedderId: string; readonly k: number; readonly path?: string },
): Promise<SimilarFilePassage[]> {
  if (!Number.isInteger(options.k) || options.k < 1) throw new StoreError('invalid_argument', `k must be a positive integer, got ${options.k}`);
  await requireInvestigation(db, investigationId);
  const q = floats(query);
  const scope = options.path === undefined ? null : normalizeFilePath(options.path).replace(/\/$/, '');
  const rows = await db.query<{ path: string; start_line: number; end_line: number; embedding: number[] }>(
    `select path, start_line, end_line, embedding from investigation_file_passage
     where investigation_id = $1 and embedder_id = $2 and dimensions = $3
       and ($4::text is null or path = $4 or left(path, char_length($4) + 1) = $4 || '/')`,
    [investigationId, options.embedderId, q.length, scope],
  );
  return rows
    .map((r) => ({ path: r.path, startLine: r.start_line, endLine: r.end_line, similarity: cosine(q, r.embedding) }))
    .sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.startLine - b.startLine))
    .slice(0, options.k);
}

type FileRow = { path: string; size_bytes: number; status: 'ok' | 'error'; error: string | null; created_at: Date };

const toFileInfo = (r: FileRow): InvestigationFileInfo => ({
  path: r.path,
  sizeBytes: r.size_bytes,
  status: r.status,
  error: r.error,
  createdAt: iso(r.created_at),
});

/** The investigation's files without content, path order; a StoreError when the investigation does not exist. */
export async function listInvestigationFiles(db: Queryable, investigationId: string): Promise<InvestigationFileInfo[]> {
  await requireInvestigation(db, investigationId);
  const rows = await db.query<FileRow>(
    'select path, size_bytes, status, error, created_at from investigation_file where investigation_id = $1 order by path collate "C"',
    [investigationId],
  );
  return rows.map(toFileInfo);
}

/** One file with its content, or null when the investigation has no such file. */
export async function readInvestigationFile(db: Queryable, investigationId: string, path: string): Promise<InvestigationFile | null> {
  await requireInvestigation(db, investigationId);
  const [row] = await db.query<FileRow & { content: string }>(
    'select path, content, size_bytes, status, error, created_at from investigation_file where investigation_id = $1 and path = $2',
    [investigationId, normalizeFilePath(path)],
  );
  return row ? { ...toFileInfo(row), content: row.content } : null;
}

export async function removeInvestigationFile(db: Queryable, investigationId: string, path: string): Promise<void> {
  await requireInvestigation(db, investigationId);
  const normalized = normalizeFilePath(path);
  const rows = await db.query('delete from investigation_file where investigation_id = $1 and path = $2 returning path', [investigationId, normalized]);
  if (rows.length === 0) throw new StoreError('file_not_found', `investigation ${investigationId} has no file "${normalized}"`);
  await touch(db, investigationId);
}

/** Appends a message to the conversation. */
export async function appendInvestigationMessage(db: Queryable, investigationId: string, message: NewInvestigationMessage): Promise<InvestigationMessage> {
  if (message.text.trim() === '') throw new StoreError('invalid_argument', 'a message must not be empty');
  const m = message.role === 'assistant' ? message.metrics : null;
  const [row] = isUuid(investigationId)
    ? await db.query<MessageRow>(
        `insert into investigation_message (investigation_id, role, text, result, prompt_tokens, completion_tokens, elapsed_ms, cost_usd, provider)
         select i.id, $2, $3, $4::jsonb, $5, $6, $7, $8, $9 from investigation i where i.id = $1
         returning ${MESSAGE_COLUMNS}`,
        [
          investigationId,
          message.role,
          message.text,
          message.role === 'assistant' ? json(message.result ?? null) : null,
          m?.promptTokens ?? null,
          m?.completionTokens ?? null,
          m?.elapsedMs ?? null,
          m?.costUsd ?? null,
          m?.provider ?? null,
        ],
      )
    : [];
  if (!row) throw notFound(investigationId);
  await touch(db, investigationId);
  return toMessage(row);
}

/** The conversation, oldest first. */
export async function listInvestigationMessages(db: Queryable, investigationId: string): Promise<InvestigationMessage[]> {
  await requireInvestigation(db, investigationId);
  const rows = await db.query<MessageRow>(`select ${MESSAGE_COLUMNS} from investigation_message where investigation_id = $1 order by id`, [investigationId]);
  return rows.map(toMessage);
}

const MESSAGE_COLUMNS = 'id::int, role, text, result, prompt_tokens, completion_tokens, elapsed_ms, cost_usd, provider, created_at';

type MessageRow = {
  id: number;
  role: 'user' | 'assistant';
  text: string;
  result: unknown;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  elapsed_ms: number | null;
  cost_usd: number | null;
  provider: string | null;
  created_at: Date;
};

function toMessage(r: MessageRow): InvestigationMessage {
  const metrics: TurnMetrics | null =
    r.role === 'assistant' && r.prompt_tokens !== null
      ? {
          promptTokens: r.prompt_tokens,
          completionTokens: r.completion_tokens ?? 0,
          elapsedMs: r.elapsed_ms ?? 0,
          costUsd: r.cost_usd ?? 0,
          provider: r.provider ?? 'unknown',
        }
      : null;
  return { id: r.id, role: r.role, text: r.text, result: r.result ?? null, metrics, createdAt: iso(r.created_at) };
}

async function requireInvestigation(db: Queryable, id: string): Promise<void> {
  if (!(await getInvestigation(db, id))) throw notFound(id);
}

async function touch(db: Queryable, id: string): Promise<void> {
  await db.query('update investigation set updated_at = now() where id = $1', [id]);
}

function notFound(id: string): StoreError {
  return new StoreError('investigation_not_found', `there is no investigation ${id}`);
}
