import { MAX_MESSAGE_CHARS } from './agent-problem';
import type { InvestigationForm } from './investigation-forms';
import type { Problem } from './problems';

/*
 * The words of a refused form post, for the page the 303 takes the browser back to (JavaScript off). The redirect's
 * URL carries the problem's code only — a crafted link must not put arbitrary text on the page (problems.ts) — so
 * the reason was lost on the way: "question contains a NUL character (U+0000) at character 3" came back as "Type a
 * question, pick a workload, and ask again" (S-197), the agent's "the path … leaves the workspace" as the upload form's
 * "only text files are accepted" (S-197). The words travel instead in a cookie set on that same 303: only the browser
 * that posted holds it, so a link cannot bring words of its own. The page shows them when the cookie names the code
 * and the form its URL names (each refusal replaces the cookie, and one without words clears it, so an earlier
 * reason is never shown for a later refusal), and says its generic line alone when it does not.
 */

export const REFUSAL_WORDS_COOKIE = 'sandscope_refusal';

/** Long enough to read the page the 303 leads to, and to reload it; the words are not kept beyond that. */
const KEPT_SECONDS = 600;

/** The agent's message is at most MAX_MESSAGE_CHARS (agent-problem.ts); with the detail the cookie stays well under a browser's 4 KB. */
const MAX_DETAIL_CHARS = 300;

/**
 * A form the words belong to: one of the Investigations section's (`during`), the console, or one of a run page's —
 * its Approve button and its "Was this right?" form (`during=approval`, `during=feedback`), whose refusals came back
 * with the code's generic line alone: an approval from another browser, or a note the agent refused, never said why.
 */
export type RefusalForm = InvestigationForm | 'console' | 'approval' | 'feedback';

interface Words {
  readonly code: string;
  readonly form: RefusalForm;
  readonly message?: string;
  readonly detail?: string;
}

const attributes = (maxAge: number) => `Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax`;

/** The Set-Cookie for a refusal sent back to `form`: its words, or none (clearing any earlier ones). */
export function refusalWordsCookie(problem: Problem, form: RefusalForm): string {
  const message = problem.message?.slice(0, MAX_MESSAGE_CHARS);
  const detail = problem.detail?.slice(0, MAX_DETAIL_CHARS);
  if (!message && !detail) return `${REFUSAL_WORDS_COOKIE}=; ${attributes(0)}`;
  const words: Words = { code: problem.code, form, ...(message ? { message } : {}), ...(detail ? { detail } : {}) };
  return `${REFUSAL_WORDS_COOKIE}=${Buffer.from(JSON.stringify(words)).toString('base64url')}; ${attributes(KEPT_SECONDS)}`;
}

/** `problem` (from the URL) with the words this browser's own post left for it, when the cookie is for it. */
export function withRefusalWords(problem: Problem, form: RefusalForm, cookie: string | undefined): Problem {
  if (!cookie) return problem;
  let words: Partial<Words>;
  try {
    words = JSON.parse(Buffer.from(cookie, 'base64url').toString('utf8')) as Partial<Words>;
  } catch {
    return problem;
  }
  if (typeof words !== 'object' || words === null || words.code !== problem.code || words.form !== form) return problem;
  const message = typeof words.message === 'string' ? words.message.slice(0, MAX_MESSAGE_CHARS) : undefined;
  const detail = typeof words.detail === 'string' ? words.detail.slice(0, MAX_DETAIL_CHARS) : undefined;
  return { ...problem, ...(message ? { message } : {}), ...(detail ? { detail } : {}) };
}
