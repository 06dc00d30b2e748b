import { CUT_PARAM } from './kept-text';

/*
 * Apart from the console's form, which is a client module: a value a server page imports from one is a client
 * reference, not the value (app/page.tsx reads RUN_PARAM).
 */

/** The query parameter that names the run the console shows (S-239). */
export const RUN_PARAM = 'run';

/**
 * The console's address naming `runId` (or, with null, no run), the rest of its query kept — but for what described
 * an earlier refused post (`error`, `retryAfter`, the cut flag, `q`): kept, a reload would show that refusal again
 * beside this run, and its question in place of the run's.
 *
 * S-239: the address stayed `/` through a run, so a reload, or Back from the run's record, lost the question and its
 * answer though the run was kept. The simplest design that loses neither: the run's id in the address (replaced, not
 * pushed, so Back does not step through runs), and the page reading it back from the agent's record (app/page.tsx) —
 * the record is what the run page shows, and an id names no one's words, as a question in the address would.
 */
export function consoleAddress(href: string, runId: string | null): string {
  const url = new URL(href);
  for (const stale of ['error', 'retryAfter', CUT_PARAM, 'q']) url.searchParams.delete(stale);
  if (runId) url.searchParams.set(RUN_PARAM, runId);
  else url.searchParams.delete(RUN_PARAM);
  return `${url.pathname}${url.search}${url.hash}`;
}
