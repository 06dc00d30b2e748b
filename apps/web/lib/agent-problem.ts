import { apiErrorBodySchema } from '@sandscope/api/errors';
import type { Problem, ProblemCode } from './problems';

/*
 * An agent's refusal, read once, on the server (STYLE 7): the BFF's lib/agent.ts
 * turns every non-2xx answer into a Problem here. Apart from problems.ts because
 * it parses with the API contract's error schema, whose module holds the API's
 * remedies — which may name the token variable and must not reach a client
 * bundle (T-12); problems.ts is shared with client components.
 */

function retryAfterSeconds(res: Response): number | undefined {
  const raw = res.headers.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, Math.round((date - Date.now()) / 1000)) : undefined;
}

/** Convert a non-2xx agent response into a Problem, once (STYLE 7). */
export async function problemFromResponse(res: Response): Promise<Problem> {
  let code: ProblemCode = res.status === 401 ? 'unauthorized' : res.status === 404 ? 'not_found' : res.status >= 500 ? 'internal' : 'bad_gateway';
  let message: string | undefined;
  let detail: string | undefined;
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    detail = `The agent answered HTTP ${res.status} without a JSON error body.`;
  }
  // The shared contract's error body (@sandscope/api/errors); a body that is not one keeps the status's code.
  const parsed = apiErrorBodySchema.safeParse(body);
  if (parsed.success) {
    code = parsed.data.error.code;
    message = parsed.data.error.message.slice(0, 500);
  } else if (body !== undefined) {
    detail = `The agent answered HTTP ${res.status} with an error body the contract does not know.`;
  }
  const retry = retryAfterSeconds(res);
  return {
    code,
    status: res.status,
    ...(message ? { message } : {}),
    ...(detail ? { detail } : {}),
    ...(retry !== undefined ? { retryAfterSeconds: retry } : {}),
  };
}
