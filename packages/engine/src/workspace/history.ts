/**
 * Seed #17: the agent had no cross-turn memory — each turn saw only the new
 * message. Now each turn replays the persisted conversation as its input (our
 * messages are the one source of truth), user and assistant TEXT only: tool
 * calls and reasoning are plumbing, and the workspace files and the answers'
 * text carry the continuity. The window (HISTORY_MAX_MESSAGES) keeps a long
 * investigation inside a model's context.
 */
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
 * The last `maxMessages` user and assistant messages, oldest first. A window
 * that would open on an assistant message drops it: an answer without its
 * question reads as a claim nobody asked for.
 */
export function replayHistory(history: readonly TranscriptEntry[], maxMessages: number): ReplayedMessage[] {
  const spoken = history.filter((m) => (m.role === 'user' || m.role === 'assistant') && m.text.trim() !== '');
  const window = maxMessages > 0 ? spoken.slice(-maxMessages) : [];
  if (window[0]?.role === 'assistant') window.shift();
  return window.map((m) => ({ role: m.role as 'user' | 'assistant', content: m.text }));
}

/** A turn's whole input: the replayed window, then the new user message. */
export function turnInput(history: readonly TranscriptEntry[], message: string, maxMessages: number): ReplayedMessage[] {
  return [...replayHistory(history, maxMessages), { role: 'user', content: message }];
}
