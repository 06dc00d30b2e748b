import type { Queryable } from './database.ts';
import { StoreError } from './store-error.ts';
import { iso, isUuid, json } from './values.ts';

/** What a streamed turn sends, in order; `result` and `error` end it. */
export type TurnEventType = 'tool' | 'provider' | 'note' | 'result' | 'error';

export interface StoredTurnEvent {
  /** The event's id in the stream: 1, 2, … within its turn. */
  readonly seq: number;
  readonly type: TurnEventType;
  readonly data: unknown;
  readonly createdAt: string;
}

export const TERMINAL_TURN_EVENTS: readonly TurnEventType[] = ['result', 'error'];

/** Stores one event of a turn (migration 0024). A second event with the same seq is a bug, and fails. */
export async function appendTurnEvent(
  db: Queryable,
  event: { readonly investigationId: string; readonly turnId: number; readonly seq: number; readonly type: TurnEventType; readonly data: unknown },
): Promise<void> {
  await db.query('insert into investigation_turn_event (turn_id, seq, investigation_id, type, data) values ($1, $2, $3, $4, $5::jsonb)', [
    event.turnId,
    event.seq,
    event.investigationId,
    event.type,
    json(event.data) ?? 'null',
  ]);
}

/** A turn's stored events after a seq, and what a resumed stream needs to know of the ones before it. */
export interface TurnEventPage {
  /** When the turn was asked (its user message). */
  readonly askedAt: string;
  readonly events: StoredTurnEvent[];
  /** Whether the turn's `result` or `error` is stored — at any seq, the ones at or before `afterSeq` included. */
  readonly ended: boolean;
  /** When its newest event was stored (at any seq), or null before the first. */
  readonly lastEventAt: string | null;
}

/**
 * A turn's stored events after `afterSeq`, in order, and when it was asked.
 * The turn is the user message `turnId` of this investigation; anything else
 * (another investigation's message, an answer, a number naming nothing) is
 * turn_not_found — a client cannot read another investigation's turn by guessing.
 * `ended` and `lastEventAt` cover every event, so a stream resumed after the
 * turn's last event knows the turn is over (or how recently it moved) without
 * reading the events it skips; when `ended`, `events` holds every event after
 * `afterSeq` there will ever be.
 */
export async function listTurnEvents(db: Queryable, investigationId: string, turnId: number, afterSeq = 0): Promise<TurnEventPage> {
  const [turn] =
    isUuid(investigationId) && Number.isSafeInteger(turnId)
      ? await db.query<{ created_at: Date }>("select created_at from investigation_message where id = $1 and investigation_id = $2 and role = 'user'", [
          turnId,
          investigationId,
        ])
      : [];
  if (!turn) throw new StoreError('turn_not_found', `investigation ${investigationId} has no turn ${turnId}`);
  // Read before the events: a turn seen ended here has every event stored (the end is written last), so the events
  // read next are all of them; one that ends in between has its end among those events.
  const [state] = await db.query<{ ended: boolean; last_at: Date | null }>(
    `select coalesce(bool_or(type in ('result', 'error')), false) as ended, max(created_at) as last_at
     from investigation_turn_event where turn_id = $1`,
    [turnId],
  );
  const rows = await db.query<{ seq: number; type: TurnEventType; data: unknown; created_at: Date }>(
    'select seq, type, data, created_at from investigation_turn_event where turn_id = $1 and seq > $2 order by seq',
    [turnId, afterSeq],
  );
  return {
    askedAt: iso(turn.created_at),
    events: rows.map((r) => ({ seq: r.seq, type: r.type, data: r.data, createdAt: iso(r.created_at) })),
    ended: state?.ended === true,
    lastEventAt: iso(state?.last_at ?? null),
  };
}

/** How a turn's events say it ended (S-270): with its `result`, with an `error` (its data), or not yet. */
export interface TurnEnd {
  readonly turnId: number;
  /** Its `result` is stored: the turn answered. */
  readonly answered: boolean;
  /** Its last `error` event's data (the API's error body), or null when none is stored. */
  readonly error: unknown;
  /** When its newest event was stored. */
  readonly lastEventAt: string;
}

/**
 * How each of these turns of the investigation ended, by their stored events; a turn with no event stored is left
 * out. One query for a whole conversation, by the events' key (turn_id), so opening an investigation does not read
 * its turns one by one.
 */
export async function listTurnEnds(db: Queryable, investigationId: string, turnIds: readonly number[]): Promise<TurnEnd[]> {
  const ids = turnIds.filter((id) => Number.isSafeInteger(id));
  if (!isUuid(investigationId) || ids.length === 0) return [];
  const rows = await db.query<{ turn_id: number; answered: boolean; error: unknown; last_at: Date }>(
    `select turn_id::int as turn_id, bool_or(type = 'result') as answered,
            (array_agg(data order by seq desc) filter (where type = 'error'))[1] as error, max(created_at) as last_at
     from investigation_turn_event where turn_id = any($1::bigint[]) and investigation_id = $2
     group by turn_id`,
    [ids, investigationId],
  );
  return rows.map((r) => ({ turnId: r.turn_id, answered: r.answered, error: r.error ?? null, lastEventAt: iso(r.last_at) }));
}
