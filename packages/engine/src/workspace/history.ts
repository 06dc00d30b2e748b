/**
 * Seed #17: the agent had no cross-turn memory — each turn saw only the new
 * message. Now each turn replays the persisted conversation as its input (our
 * messages are the one source of truth), user and assistant TEXT only: tool
 * calls and reasoning are plumbing, and the workspace files and the answers'
 * text carry the continuity. The window (HISTORY_MAX_MESSAGES, and
 * HISTORY_MAX_CHARS) keeps a long investigation inside a model's context.
 */

/**
 * HISTORY_MAX_CHARS when the caller sets none. The window counted messages only, and one answer can be tens of
 * thousands of characters (a model's unknowns, 500 characters each, are not counted): one replayed made every later
 * turn's prompt — priced at a token a byte — too big for its budget, so the model was never called again. 8,000
 * characters is half of the default RUN_TOKEN_BUDGET, the rest left for the instructions, the tools and what they return.
 */
export const DEFAULT_HISTORY_MAX_CHARS = 8_000;
export interface TranscriptEntry {
  /** `tool` and `reasoning` entries may be recorded by a provider loop; they are never replayed. */
  readonly role: 'user' | 'assistant' | 'tool' | 'reasoning';
  readonly text: string;
}

/** One message of a turn's model input. */
export interface ReplayedMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/**
 * The last user and assistant messages, oldest first: at most `maxMessages`
 * of them, holding at most `maxChars` characters together (a message that
 * would pass it ends the window, however small the ones before it). A window
 * that would open on an assistant message drops it: an answer without its
 * question reads as a claim nobody asked for.
 */
export function replayHistory(history: readonly TranscriptEntry[], maxMessages: number, maxChars = DEFAULT_HISTORY_MAX_CHARS): ReplayedMessage[] {
  const spoken = history.filter((m) => (m.role === 'user' || m.role === 'assistant') && m.text.trim() !== '');
  const window: TranscriptEntry[] = [];
  let chars = 0;
  for (let i = spoken.length - 1; i >= 0 && window.length < maxMessages; i--) {
    chars += spoken[i]!.text.length;
    if (chars > maxChars) break;
    window.unshift(spoken[i]!);
  }
  if (window[0]?.role === 'assistant') window.shift();
  return window.map((m) => ({ role: m.role as 'user' | 'assistant', content: m.text }));
}

/** A turn's whole input: the replayed window, then the new user message. */
export function turnInput(history: readonly TranscriptEntry[], message: string, maxMessages: number, maxChars?: number): ReplayedMessage[] {
  return [...replayHistory(history, maxMessages, maxChars), { role: 'user', content: message }];
}
