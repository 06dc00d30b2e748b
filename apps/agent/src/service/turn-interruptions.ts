import type { InvestigationMessage, TurnEnd } from '@sandscope/store';

/**
 * A turn with no new event for this long, and no result or error, is taken as
 * stopped (its process ended mid-turn): a resumed stream says so and ends
 * instead of waiting forever, and its question reads as interrupted. Longer
 * than a provider call can take.
 */
export const TURN_STALE_MS = 10 * 60_000;

/** Why a question has no answer, for the person who asked it (S-270). */
export interface TurnInterruption {
  /** The API's code the turn ended with (`shutting_down`, `internal`, …), or `interrupted` when it ended with no word. */
  readonly code: string;
  /** What happened, as a sentence a person reads; the surfaces add that the question can be asked again. */
  readonly reason: string;
}

/**
 * What became of each question that has no answer and never will (S-270): its turn ended with an error — stopped by
 * a shutdown (S-269), failed on the agent, its database lost — or went silent for TURN_STALE_MS (its process killed
 * mid-turn). The history showed the question and nothing after it, as if it were still being answered; the next turn
 * was not told either. A question whose turn is still going (events within TURN_STALE_MS) is not here: it may yet be
 * answered. An answer stored before answers named their turn still counts as the next message after its question.
 */
export function interruptedTurns(
  messages: readonly InvestigationMessage[],
  ends: readonly TurnEnd[],
  now: number,
  staleMs = TURN_STALE_MS,
): Map<number, TurnInterruption> {
  const answered = new Set<number>();
  messages.forEach((m, i) => {
    const turnId = answeredTurnOf(m);
    if (turnId !== null) answered.add(turnId);
    // An answer stored before answers named their turn, or a message with no result: it answers the question before it.
    const before = messages[i - 1];
    if (m.role === 'assistant' && turnId === null && before?.role === 'user') answered.add(before.id);
  });
  const endOf = new Map(ends.map((e) => [e.turnId, e]));
  const out = new Map<number, TurnInterruption>();
  for (const m of messages) {
    if (m.role !== 'user' || answered.has(m.id)) continue;
    const end = endOf.get(m.id);
    if (end?.answered) continue;
    const error = end ? errorOf(end.error) : null;
    if (error) out.set(m.id, { code: error.code, reason: reasonOf(error.code, error.message) });
    else if (now - Math.max(Date.parse(m.createdAt), end ? Date.parse(end.lastEventAt) : 0) > staleMs)
      out.set(m.id, { code: 'interrupted', reason: reasonOf('interrupted', '', staleMs) });
  }
  return out;
}

/** The turn an assistant message answers (its result's `turnId`), or null. */
export function answeredTurnOf(m: InvestigationMessage): number | null {
  if (m.role !== 'assistant' || typeof m.result !== 'object' || m.result === null) return null;
  const turnId = (m.result as { turnId?: unknown }).turnId;
  return typeof turnId === 'number' ? turnId : null;
}

/** A stored `error` event's code and message (the API's error body), or null when it holds none. */
function errorOf(data: unknown): { code: string; message: string } | null {
  const error = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string') return null;
  return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
}

/**
 * What happened to the turn, in words. The stored message is the stream's — written for a client that was there,
 * with that surface's remedy ("… Ask again: another replica …") — so the codes a turn usually ends with are said
 * here once, for every surface; another code keeps its message's first sentence.
 */
function reasonOf(code: string, message: string, staleMs = TURN_STALE_MS): string {
  switch (code) {
    case 'shutting_down':
      return 'The agent answering it shut down (a restart or a deployment) before the answer was ready.';
    case 'interrupted':
      return message.trim() !== ''
        ? firstSentence(message)
        : `The agent answering it stopped mid-turn: no answer, and no word from it for ${Math.round(staleMs / 60_000)} minutes.`;
    case 'store_unavailable':
      return 'The agent lost its database mid-turn, so no answer was kept.';
    case 'internal':
      return 'The turn failed on the agent (the error is in its log).';
    default:
      return firstSentence(message) || `The turn ended with ${code} and no answer.`;
  }
}

function firstSentence(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.search(/[.!?](\s|$)/);
  return end < 0 ? trimmed : trimmed.slice(0, end + 1);
}

/**
 * What the next turn's model reads after a question that was never answered (S-270): said as the assistant's turn,
 * so the replayed history does not read the question as answered by whatever came next, and the model knows it may be
 * asked again.
 */
export function unansweredNote(interruption: TurnInterruption): string {
  return `(Not answered: ${interruption.reason} The question may be asked again.)`;
}
