import { sendToPage } from '@/lib/form-door';
import { isWorkload, runResultSchema } from '@sandscope/api';
import { AgentProblem, callerFromRequest, parseContract, setCookiesOf, startRun } from '@/lib/agent';
import { problemFromStreamError } from '@/lib/agent-problem';
import type { RunResult } from '@sandscope/api';
import { type Problem, problemQuery } from '@/lib/problems';
import { readBoundedBody } from '@/lib/bounded-body';
import { CUT_PARAM, keptForUrl } from '@/lib/kept-text';
import { refusalWordsCookie } from '@/lib/refusal-words';
import { KEPT_QUESTION_CHARS, MAX_RUN_BODY_BYTES, parseRunRequest } from '@/lib/run-request';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';
import { mapSse, readSse, SilentStream, type SseMessage } from '@/lib/sse';

/*
 * POST /api/runs — the console's one door to a run.
 *
 * - A plain form post (JavaScript off) is run here, server-side: the agent's event
 *   stream is consumed to its end and the browser is redirected (303) to the
 *   finished run's page, or back to the console with the problem named.
 * - A JSON post from the enhanced console gets the agent's event stream passed
 *   on as it arrives, so the page renders node by node: every event unchanged but
 *   an `event: error`, which goes as the Problem the website makes of it
 *   (forPage, below).
 *
 * Either way the agent's Set-Cookie (the session, T-17) is relayed to the browser.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(() => '/');

function redirect(location: string, setCookies: readonly string[] = []): Response {
  const headers = new Headers({ location });
  for (const c of setCookies) headers.append('set-cookie', c);
  return new Response(null, { status: 303, headers });
}

function jsonProblem(problem: Problem): Response {
  const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
  if (problem.retryAfterSeconds !== undefined) headers.set('retry-after', String(problem.retryAfterSeconds));
  return new Response(JSON.stringify({ error: problem }), { status: problem.status >= 400 ? problem.status : 502, headers });
}

/**
 * A run's event as the enhanced console is to read it: an `event: error` becomes `{ error: Problem }` (the body a
 * refusal before the stream gets, jsonProblem), said by problemFromStreamError; anything else passes as it came. The
 * stream was piped to the browser unchanged, so a run failing after it started showed the agent's message with the
 * API's remedy ("… and GET /healthz") — and the browser cannot say it the website's way itself, since the module that
 * can holds the API's remedies, which must stay out of a client bundle (T-12). Data that is not JSON passes too: the
 * console skips it, as it did.
 */
function forPage(m: SseMessage): SseMessage {
  if (m.event !== 'error') return m;
  let data: unknown;
  try {
    data = JSON.parse(m.data);
  } catch {
    return m;
  }
  return { ...m, data: JSON.stringify({ error: problemFromStreamError(data) }) };
}

/** S-227: the agent said nothing for too long (lib/sse.ts silenceLimit): the run's end as /runs says a hung agent's. */
const silentAgent = (error: SilentStream): Problem => ({ code: 'agent_timeout', status: 504, detail: error.message });

/**
 * The enhanced console's stream, ended with an `event: error` naming the problem when the agent went silent (S-227),
 * rather than cut: a cut stream read as "the connection dropped", and a hung agent's showed "Running…" until then.
 */
function endingSaid(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (!(error instanceof SilentStream)) throw error;
        controller.enqueue(new TextEncoder().encode(`event: error\ndata: ${JSON.stringify({ error: silentAgent(error) })}\n\n`));
        controller.close();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** What the console's form (or the enhanced console's JSON) sent, from a body already read within its limit. */
async function fieldsOf(body: Uint8Array<ArrayBuffer>, contentType: string, streaming: boolean) {
  let fields: { question?: unknown; workload?: unknown; failProviders?: unknown };
  try {
    const read = new Response(body, { headers: { 'content-type': contentType } });
    if (streaming) fields = ((await read.json()) as typeof fields) ?? {};
    else {
      const form = await read.formData();
      fields = { question: form.get('question') ?? undefined, workload: form.get('workload') ?? undefined, failProviders: form.getAll('failProviders') };
    }
  } catch {
    fields = {};
  }
  return typeof fields === 'object' ? fields : {};
}

export async function POST(request: Request): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const contentType = request.headers.get('content-type') ?? '';
  const streaming = contentType.includes('application/json');

  const body = await readBoundedBody(request, MAX_RUN_BODY_BYTES);
  if (!body) {
    const problem: Problem = { code: 'payload_too_large', status: 413, detail: `The request is over the console’s limit of ${MAX_RUN_BODY_BYTES / 1024} KB.` };
    return streaming ? jsonProblem(problem) : redirect(`/?${problemQuery(problem)}`);
  }
  const fields = await fieldsOf(body, contentType, streaming);

  // Any refusal takes the person back to the console with what they typed: a bad workload used to empty the box.
  // The reason goes with it in a cookie (lib/refusal-words.ts): the agent's "question contains a NUL character
  // (U+0000) at character 3" came back as "Type a question, pick a workload" alone (S-197).
  const typed = typeof fields.question === 'string' ? fields.question.trim() : '';
  const backToConsole = (problem: Problem) => {
    const q = new URLSearchParams(problemQuery(problem));
    // Cut to fit the URL by its encoded length, not its characters: 2,000 Chinese characters made a Location the
    // browser could not load back (431), and the text was lost (S-223). The page says when it was cut.
    const kept = keptForUrl(typed, KEPT_QUESTION_CHARS);
    if (kept.text) q.set('q', kept.text);
    if (kept.cut) q.set(CUT_PARAM, '1');
    q.set('workload', isWorkload(fields.workload) ? fields.workload : 'triage');
    return redirect(`/?${q.toString()}`, [refusalWordsCookie(problem, 'console')]);
  };

  const parsed = parseRunRequest(fields);
  if (!parsed.ok) {
    // The website's own words, not the agent's: a detail, which the panel does not attribute to the agent.
    const problem: Problem = { code: parsed.code, status: 400, detail: parsed.message };
    return streaming ? jsonProblem(problem) : backToConsole(problem);
  }

  let upstream: Response;
  try {
    upstream = await startRun(parsed.request, callerFromRequest(request));
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return streaming ? jsonProblem(error.problem) : backToConsole(error.problem);
  }
  const setCookies = setCookiesOf(upstream);

  if (streaming) {
    const headers = new Headers({
      'content-type': 'text/event-stream; charset=utf-8',
      // no-transform keeps the compression middleware from buffering the stream
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    for (const c of setCookies) headers.append('set-cookie', c);
    return new Response(endingSaid(mapSse(upstream.body!, forPage)), { status: 200, headers });
  }

  // JavaScript off: run to the end here, then show the finished run.
  let runId: string | null = null;
  let result: RunResult | null = null;
  let failure: Problem | null = null;
  try {
    await readSse(upstream.body!, (m) => {
      try {
        const data = JSON.parse(m.data) as Record<string, unknown>;
        if (typeof data.runId === 'string') runId ??= data.runId;
        if (m.event === 'result') {
          try {
            result = parseContract(runResultSchema, data, 'result');
          } catch (error) {
            if (!(error instanceof AgentProblem)) throw error;
            failure = error.problem;
          }
        }
        // Said as the enhanced console's is (forPage): a failure before the run had an id goes back to the console in
        // the refusal-words cookie, which carried the agent's message with the API's remedy.
        if (m.event === 'error') failure = problemFromStreamError(data);
      } catch {
        /* a malformed event is skipped; the result decides */
      }
    });
  } catch (error) {
    failure ??= error instanceof SilentStream ? silentAgent(error) : { code: 'stream_broken', status: 502 };
  }
  const finished = result as RunResult | null;
  if (!finished) failure ??= { code: 'stream_broken', status: 502 };
  const id = finished?.runId ?? runId;
  if (id) {
    const suffix = failure ? `?${problemQuery(failure)}` : '';
    return redirect(`/runs/${encodeURIComponent(id)}${suffix}`, setCookies);
  }
  return backToConsole(failure ?? { code: 'stream_broken', status: 502 });
}
