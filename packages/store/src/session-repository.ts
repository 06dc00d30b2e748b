import type { Queryable } from './database.ts';
import { StoreError } from './store-error.ts';
import { iso } from './values.ts';

export interface SessionRecord {
  readonly id: string;
  readonly createdAt: string;
  readonly lastSeenAt: string;
}

export interface MemoryItem {
  readonly sessionId: string;
  readonly runId: string | null;
  readonly role: 'user' | 'assistant';
  readonly content: string;
  readonly createdAt: string;
}

/** Creates the session on first sight, else marks it seen now. The id comes from a cookie (T-17): identity, not authentication. */
export async function touchSession(db: Queryable, sessionId: string): Promise<SessionRecord> {
  if (!sessionId) throw new StoreError('invalid_argument', 'session id is empty');
  const [row] = await db.query<{ id: string; created_at: Date; last_seen_at: Date }>(
    `insert into session (id) values ($1)
     on conflict (id) do update set last_seen_at = now()
     returning id, created_at, last_seen_at`,
    [sessionId],
  );
  return { id: row!.id, createdAt: iso(row!.created_at), lastSeenAt: iso(row!.last_seen_at) };
}

export async function appendMemory(
  db: Queryable,
  item: { sessionId: string; runId?: string | null; role: 'user' | 'assistant'; content: string },
): Promise<void> {
  await touchSession(db, item.sessionId);
  await db.query('insert into memory_item (session_id, run_id, role, content) values ($1, $2, $3, $4)', [
    item.sessionId,
    item.runId ?? null,
    item.role,
    item.content,
  ]);
}

/** The session's most recent `limit` items, oldest first — memory never crosses sessions. */
export async function listMemory(db: Queryable, sessionId: string, limit = 20): Promise<MemoryItem[]> {
  const rows = await db.query<{ session_id: string; run_id: string | null; role: 'user' | 'assistant'; content: string; created_at: Date }>(
    `select * from (
       select id, session_id, run_id::text, role, content, created_at from memory_item
       where session_id = $1 order by id desc limit $2
     ) recent order by id`,
    [sessionId, limit],
  );
  return rows.map((r) => ({ sessionId: r.session_id, runId: r.run_id, role: r.role, content: r.content, createdAt: iso(r.created_at) }));
}
