import type { Feedback } from '@sandscope/api';
import { isFeedbackLabel } from './feedback-labels';

/*
 * The mark a save replaced (S-289), for the page the 303 takes the browser back to. Marking again replaces a run's mark,
 * as documented, and it replaced a colleague's — read on a page loaded before their mark — without a word: the agent
 * now answers with the mark it replaced (`replaced`), and the page says it. It travels as the agent's refusal words do
 * (lib/refusal-words.ts): in a cookie set on that same 303, which only the browser that saved holds, so a crafted link
 * cannot put a "replaced" mark of its own words on the page; the URL says only `marked=1`.
 */

export const REPLACED_MARK_COOKIE = 'sandscope_replaced_mark';

/** Long enough to read the page the 303 leads to, and to reload it. */
const KEPT_SECONDS = 600;

/** The most of the replaced mark's note and passage the cookie carries: it stays well under a browser's 4 KB. */
const MAX_CARRIED_CHARS = 300;

const attributes = (maxAge: number) => `Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax`;

/** Cut between characters (code points), never inside one, with an ellipsis where it was cut. */
const carried = (text: string | null | undefined) => {
  if (!text) return null;
  const chars = [...text];
  return chars.length > MAX_CARRIED_CHARS ? `${chars.slice(0, MAX_CARRIED_CHARS - 1).join('')}…` : text;
};

/** The Set-Cookie for a save of run `runId`: the mark it replaced, or none (clearing any earlier one). */
export function replacedMarkCookie(runId: string, replaced: Feedback | null): string {
  if (!replaced) return `${REPLACED_MARK_COOKIE}=; ${attributes(0)}`;
  const value = { runId, label: replaced.label, note: carried(replaced.note), evidence: carried(replaced.evidence), createdAt: replaced.createdAt };
  return `${REPLACED_MARK_COOKIE}=${Buffer.from(JSON.stringify(value)).toString('base64url')}; ${attributes(KEPT_SECONDS)}`;
}

/** The mark the save of `runId` replaced, when this browser's cookie holds one for that run. */
export function replacedMarkFrom(cookie: string | undefined, runId: string): Feedback | null {
  if (!cookie) return null;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(Buffer.from(cookie, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || value.runId !== runId || !isFeedbackLabel(value.label) || typeof value.createdAt !== 'string') return null;
  const text = (v: unknown) => (typeof v === 'string' && v ? carried(v) : null);
  return { label: value.label, note: text(value.note), evidence: text(value.evidence), createdAt: value.createdAt };
}
