import { type Problem, problemQuery } from './problems';
import { CUT_PARAM, keptForUrl } from './kept-text';
import { refusalWordsCookie } from './refusal-words';

/*
 * The Investigations section's form posts (plain forms, so they work with
 * JavaScript off) all end the same way: a 303 back to a page, carrying the
 * problem's code and which form it came from (`during`), never the agent's own
 * words — a crafted link must not put arbitrary text on the page (problems.ts).
 * The words go in a cookie on the same 303 (refusal-words.ts).
 */

/** An investigation id as the URL may carry it; anything else cannot name one, so it is not forwarded. */
export const INVESTIGATION_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The forms of the section, each named so the page can say what was not done. */
export type InvestigationForm = 'new' | 'upload' | 'turn' | 'rename' | 'delete' | 'remove';

const FORMS: readonly InvestigationForm[] = ['new', 'upload', 'turn', 'rename', 'delete', 'remove'];

export function seeOther(location: string, setCookies: readonly string[] = []): Response {
  const headers = new Headers({ location });
  for (const c of setCookies) headers.append('set-cookie', c);
  return new Response(null, { status: 303, headers });
}

export const investigationHref = (id: string) => `/investigations/${encodeURIComponent(id)}`;

/** Back to the page with the problem named; `anchor` puts the reader at the form that failed. */
/** The most of a refused message carried back to its form (a URL holds it; the agent's own limit is far below). */
export const KEPT_MESSAGE_CHARS = 4000;

/**
 * Back to the form with the problem named, and what was typed kept (`kept`, the message of a refused turn): a
 * message over the agent's limit came back as an empty box, the engineer's 1,500 characters lost.
 */
export function backWithProblem(page: string, problem: Problem, during: InvestigationForm, anchor: string, kept?: string): Response {
  // Cut by its encoded length too: 2,000 Chinese characters made a Location of 18 KB, which the browser could not load
  // back (431), the message lost (S-223). The page says when it was cut.
  const fits = kept ? keptForUrl(kept, KEPT_MESSAGE_CHARS) : null;
  const message = fits?.text ? `&${new URLSearchParams({ message: fits.text, ...(fits.cut ? { [CUT_PARAM]: '1' } : {}) })}` : '';
  // The agent's reason ("the path … leaves the workspace") rides in a cookie, not the URL (S-197).
  return seeOther(`${page}?${problemQuery(problem)}&during=${during}${message}#${anchor}`, [refusalWordsCookie(problem, during)]);
}

/** `during` from the query, or null when it names none of the forms. */
export function formFromQuery(value: string | string[] | undefined): InvestigationForm | null {
  const v = Array.isArray(value) ? value[0] : value;
  return FORMS.find((f) => f === v) ?? null;
}

/**
 * What the page says when the agent (or the route) refused a form for the
 * person's own input. Only `invalid_request` and `payload_too_large` get words
 * of their own here; every other code is the site-wide problem panel's.
 */
export function inputRefusal(during: InvestigationForm, code: string): string | null {
  if (code === 'payload_too_large')
    return 'The file was not added: it is larger than the agent accepts (INVESTIGATION_FILE_MAX_BYTES). Upload the part of the log around the incident.';
  if (code !== 'invalid_request') return null;
  if (during === 'new') return 'The investigation was not created: give it a title (at most 200 characters), e.g. “checkout 502s 2024-05-01”.';
  if (during === 'rename') return 'The investigation was not renamed: give it a title (at most 200 characters), e.g. “checkout 502s 2024-05-01”.';
  if (during === 'remove') return 'No file was removed: choose one of the files listed.';
  if (during === 'delete') return null;
  if (during === 'upload')
    return 'The file was not added: only text files are accepted (logs, configs, command output saved as UTF-8), under a plain file name. Binary files (archives, images, core dumps) are refused.';
  return 'Nothing was asked: type a message about the files (e.g. “why did checkout return 502?”), within the agent’s limit (MAX_QUESTION_CHARS, 1,000 characters unless the agent sets another).';
}

/** `lines=4312-4318` (or `lines=4312`) → the range, or null when the query names none. */
export function citedRange(value: string | string[] | undefined): { start: number; end: number } | null {
  const raw = Array.isArray(value) ? value[0] : value;
  const m = raw ? /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(raw) : null;
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] === undefined ? start : Number(m[2]);
  return start >= 1 && end >= start ? { start, end } : null;
}
