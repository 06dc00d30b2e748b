import 'server-only';
import { cookies, headers } from 'next/headers';
import {
  approvalResponseSchema,
  type CacheRemoval,
  type Feedback,
  type FeedbackLabel,
  feedbackResponseSchema,
  type RunDetail,
  type RunList,
  type RunRequest,
  type RunResult,
  runDetailSchema,
  runListSchema,
} from '@sandscope/api';
import { type Corpus, corpusSchema, type LibraryView, libraryViewSchema } from '@sandscope/api/corpus';
import { type Estate, estateSchema } from '@sandscope/api/estate';
import { type EvalLatest, evalLatestSchema } from '@sandscope/api/evaluation';
import { type Graph, graphSchema } from '@sandscope/api/graph';
import {
  type InvestigationDetail,
  type InvestigationFile,
  type InvestigationFileInfo,
  type InvestigationSummary,
  investigationDetailSchema,
  investigationFileContentResponseSchema,
  investigationFileResponseSchema,
  investigationListSchema,
  investigationResponseSchema,
  type Turn,
  turnResponseSchema,
} from '@sandscope/api/investigations';
import { type Provider, providerListSchema } from '@sandscope/api/providers';
import type { z } from 'zod';
import { problemFromResponse } from './agent-problem';
import type { Problem } from './problems';
import { currentWebConfig } from './web-config';
import { AGENT_SILENCE_MS, silenceLimit } from './sse';

/*
 * The backend-for-frontend's one door to the agent. This module is the ONLY code
 * that talks to the agent and holds its bearer token (AGENT_TOKEN, read with
 * AGENT_URL by lib/web-config.ts) — T-12. `server-only` makes a client import a build error; the
 * guard below makes it a runtime error too, should a bundler ever ignore that.
 */
if (typeof window !== 'undefined') {
  throw new Error('lib/agent.ts is server-only: it holds the agent token and must never reach the browser.');
}

export const SESSION_COOKIE = 'sandscope_session';
/** Reads are small; a stuck agent must not hang a page for long. Runs stream and have no overall limit here. */
const READ_TIMEOUT_MS = 15_000;
/** A whole run, stream included: a run longer than this is stuck, and the page says so. */
const RUN_TIMEOUT_MS = 300_000;

/** An agent refusal or outage, carried as a value a page can render (STYLE 6–7). */
export class AgentProblem extends Error {
  override readonly name = 'AgentProblem';
  constructor(readonly problem: Problem) {
    super(`${problem.code}: ${problem.message ?? ''}`);
  }
}

/** Who is asking, as far as the agent needs to know: the session cookie and the client address. */
export interface Caller {
  readonly sessionCookie: string | null;
  readonly clientAddress: string | null;
}

interface AgentConfig {
  readonly base: URL;
  readonly token: string;
}

/** Where the agent lives and its token, from the website's one config schema (lib/web-config.ts). */
function agentConfig(): AgentConfig {
  const parsed = currentWebConfig();
  if (parsed.ok) return { base: parsed.config.agentUrl, token: parsed.config.agentToken };
  const detail = parsed.problems.map((p) => p.message).join(' ');
  // A missing token is the one an operator meets most; the page's remedy for `unauthorized` covers it.
  const code = parsed.problems.some((p) => p.variable === 'AGENT_TOKEN') ? 'unauthorized' : 'bad_gateway';
  throw new AgentProblem({ code, status: 500, detail });
}

/**
 * The client address the agent's limiter keys on (it stores only a salted digest, T-9).
 * `server.mts` has already replaced X-Forwarded-For with the one address it resolved
 * from the socket and TRUSTED_PROXIES (lib/client-address.ts), so a browser's own
 * header never gets here; this only checks the value looks like an address.
 */
export function clientAddressFrom(forwardedFor: string | null): string | null {
  if (!forwardedFor) return null;
  const hops = forwardedFor
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const last = hops[hops.length - 1];
  return last && /^[0-9A-Fa-f:.]{2,64}$/.test(last) ? last : null;
}

const COOKIE_VALUE = /^[A-Za-z0-9._~+/=-]{1,256}$/;

function sessionFrom(value: string | undefined | null): string | null {
  return value && COOKIE_VALUE.test(value) ? value : null;
}

/** The caller behind a route handler's request. */
export function callerFromRequest(request: Request): Caller {
  const cookieHeader = request.headers.get('cookie') ?? '';
  const match = cookieHeader
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  return {
    sessionCookie: sessionFrom(match?.slice(SESSION_COOKIE.length + 1)),
    clientAddress: clientAddressFrom(request.headers.get('x-forwarded-for')),
  };
}

/** The caller behind a server component render (reading it also makes the page dynamic). */
export async function callerFromPage(): Promise<Caller> {
  const [jar, h] = await Promise.all([cookies(), headers()]);
  return { sessionCookie: sessionFrom(jar.get(SESSION_COOKIE)?.value), clientAddress: clientAddressFrom(h.get('x-forwarded-for')) };
}

function requestHeaders(config: AgentConfig, caller: Caller | null, extra: Record<string, string>): Headers {
  const h = new Headers({ authorization: `Bearer ${config.token}`, ...extra });
  if (caller?.sessionCookie) h.set('cookie', `${SESSION_COOKIE}=${caller.sessionCookie}`);
  if (caller?.clientAddress) h.set('x-forwarded-for', caller.clientAddress);
  return h;
}

function networkProblem(error: unknown): AgentProblem {
  if (error instanceof AgentProblem) return error;
  const e = error as { name?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return new AgentProblem({ code: 'agent_timeout', status: 504 });
  const cause = e?.cause?.code;
  return new AgentProblem({
    code: 'agent_unreachable',
    status: 502,
    detail: cause ? `Connecting to the agent failed (${cause}).` : 'Connecting to the agent failed.',
  });
}

async function send(
  path: string,
  init: { method?: string; body?: unknown; raw?: Uint8Array<ArrayBuffer>; caller?: Caller | null; timeoutMs?: number; accept?: string; signal?: AbortSignal },
): Promise<Response> {
  const config = agentConfig();
  const url = new URL(path.replace(/^\//, ''), config.base.href.endsWith('/') ? config.base : new URL(`${config.base.href}/`));
  const extra: Record<string, string> = { accept: init.accept ?? 'application/json' };
  if (init.body !== undefined) extra['content-type'] = 'application/json';
  // A file upload goes as the raw bytes the agent's PUT reads (it decides what is text, not the website).
  if (init.raw !== undefined) extra['content-type'] = 'application/octet-stream';
  try {
    return await fetch(url, {
      method: init.method ?? 'GET',
      headers: requestHeaders(config, init.caller ?? null, extra),
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : init.raw !== undefined ? { body: init.raw } : {}),
      cache: 'no-store',
      redirect: 'error',
      signal: init.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(init.timeoutMs ?? READ_TIMEOUT_MS)])
        : AbortSignal.timeout(init.timeoutMs ?? READ_TIMEOUT_MS),
    });
  } catch (error) {
    throw networkProblem(error);
  }
}

async function getJson(path: string, caller: Caller | null): Promise<unknown> {
  const res = await send(path, { caller });
  if (!res.ok) throw new AgentProblem(await problemFromResponse(res));
  try {
    return await res.json();
  } catch {
    throw new AgentProblem({ code: 'bad_gateway', status: 502, detail: `${path} did not return JSON.` });
  }
}

/**
 * A response body checked against the shared contract (@sandscope/api). A body
 * that does not match is the agent's fault, not the page's: it becomes a
 * bad_gateway problem naming the first field that is wrong, instead of a page
 * that renders `undefined` — or an outcome it was never sent.
 */
export function parseContract<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'the body';
  throw new AgentProblem({
    code: 'bad_gateway',
    status: 502,
    detail: `The agent’s ${what} does not match the contract at ${where}: ${issue?.message ?? 'invalid'}.`,
  });
}

async function getParsed<S extends z.ZodType>(schema: S, path: string, caller: Caller | null): Promise<z.infer<S>> {
  return parseContract(schema, await getJson(path, caller), `answer to ${path.split('?')[0]}`);
}

/** The Set-Cookie headers the agent sent, to relay to the browser unchanged. */
export function setCookiesOf(res: Response): string[] {
  return res.headers.getSetCookie();
}

export async function listRuns(page: number, pageSize: number): Promise<RunList> {
  return getParsed(runListSchema, `/v1/runs?page=${encodeURIComponent(page)}&pageSize=${encodeURIComponent(pageSize)}`, await callerFromPage());
}

export async function getRun(id: string): Promise<RunDetail> {
  return getParsed(runDetailSchema, `/v1/runs/${encodeURIComponent(id)}`, await callerFromPage());
}

export const getCorpus = (): Promise<Corpus> => getParsed(corpusSchema, '/v1/corpus', null);

/** The library named and sized, without its text: what a page needs that only names it (S-151). */
export const getLibrary = (): Promise<LibraryView> => getParsed(libraryViewSchema, '/v1/library', null);

/** A read whose 404 means "none yet" (an optional file, no evaluation recorded): null, not a problem page. */
async function orNone<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AgentProblem && error.problem.code === 'not_found') return null;
    throw error;
  }
}

/** The estate, or null when the corpus has none (`estate.json` is optional: 404). */
export const getEstate = (): Promise<Estate | null> => orNone(() => getParsed(estateSchema, '/v1/estate', null));
export const getGraph = (): Promise<Graph> => getParsed(graphSchema, '/v1/graph', null);
export const getProviders = async (): Promise<Provider[]> => (await getParsed(providerListSchema, '/v1/providers', null)).providers;

/** The latest evaluation, or null when none has been produced yet (404). */
export const getEvalLatest = (): Promise<EvalLatest | null> => orNone(() => getParsed(evalLatestSchema, '/v1/eval/latest', null));

/**
 * Open a run. Resolves once the agent has accepted it and the event stream is
 * open; a refusal before that (429, 402, 503, 401 …) is thrown as an AgentProblem.
 */
export async function startRun(body: RunRequest, caller: Caller): Promise<Response> {
  // S-227: the agent answers a run's headers at once; a hung one never does, and this waited the run's whole 5 minutes.
  const silence = new AbortController();
  const timer = setTimeout(() => silence.abort(new DOMException('The agent did not open the run.', 'TimeoutError')), AGENT_SILENCE_MS);
  let res: Response;
  try {
    res = await send('/v1/runs', { method: 'POST', body, caller, accept: 'text/event-stream', timeoutMs: RUN_TIMEOUT_MS, signal: silence.signal });
  } finally {
    clearTimeout(timer);
  }
  if (!res.ok) throw new AgentProblem(await problemFromResponse(res));
  if (!res.body) throw new AgentProblem({ code: 'bad_gateway', status: 502, detail: 'The agent opened the run without a response body.' });
  // And once open, a stream with nothing on it — not even the agent's heartbeat — is a hung agent (lib/sse.ts).
  return new Response(silenceLimit(res.body, AGENT_SILENCE_MS), { status: res.status, headers: res.headers });
}

/** Approve a gated run; the agent creates a new run pointing back at it (seed ADR-0006). */
export async function approveRun(id: string, caller: Caller): Promise<{ run: RunResult; setCookies: string[] }> {
  const res = await send(`/v1/runs/${encodeURIComponent(id)}/approve`, { method: 'POST', body: {}, caller, timeoutMs: READ_TIMEOUT_MS * 8 });
  if (!res.ok) throw new AgentProblem(await problemFromResponse(res));
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new AgentProblem({ code: 'bad_gateway', status: 502, detail: 'The agent approved the run but did not answer with JSON.' });
  }
  return { run: parseContract(approvalResponseSchema, body, 'approval').run, setCookies: setCookiesOf(res) };
}

/**
 * Mark a run (`POST /v1/runs/:id/feedback`); the agent keeps one mark per run, so this replaces any earlier one. `cache`:
 * what a wrong-answer mark did to the run's cached answer (null otherwise, and from an agent that does not say).
 */
export async function markRun(
  id: string,
  body: { label: FeedbackLabel; note: string | null; evidence: string | null },
  caller: Caller,
): Promise<{ feedback: Feedback; cache: CacheRemoval | null; replaced: Feedback | null; setCookies: string[] }> {
  const res = await send(`/v1/runs/${encodeURIComponent(id)}/feedback`, { method: 'POST', body, caller });
  if (!res.ok) throw new AgentProblem(await problemFromResponse(res));
  let saved: unknown;
  try {
    saved = await res.json();
  } catch {
    throw new AgentProblem({ code: 'bad_gateway', status: 502, detail: 'The agent saved the mark but did not answer with JSON.' });
  }
  const { feedback, cache, replaced } = parseContract(feedbackResponseSchema, saved, 'saved mark');
  return { feedback, cache: cache ?? null, replaced: replaced ?? null, setCookies: setCookiesOf(res) };
}

/** A write's answer: non-2xx is the agent's refusal (a problem), a 2xx body is parsed against the contract. */
async function sendParsed<S extends z.ZodType>(schema: S, path: string, init: Parameters<typeof send>[1], what: string): Promise<z.infer<S>> {
  const res = await send(path, init);
  if (!res.ok) throw new AgentProblem(await problemFromResponse(res));
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new AgentProblem({ code: 'bad_gateway', status: 502, detail: `The agent answered the ${what} without JSON.` });
  }
  return parseContract(schema, body, what);
}

const investigationPath = (id: string, rest = '') => `/v1/investigations/${encodeURIComponent(id)}${rest}`;
/**
 * A workspace path in a URL: each segment encoded, the slashes kept (the agent's route reads the rest of the path).
 * A `.` or `..` segment is resolved by the URL parser before the request leaves (WHATWG URL, `%2E%2E` included), so an
 * upload named `../../etc/evil.log` went to PUT /v1/investigations/etc/evil.log — the agent's "no such route" came
 * back as "Not found … made against another database" (S-197), and a path aimed at another investigation's files would
 * have reached them. Such a path goes as one segment, its slashes encoded (the agent's route decodes them), so the
 * agent reads the path as it was given and refuses it in its own words; a path that is nothing but `.` or `..` has
 * no form the parser leaves alone, and is refused here.
 */
export function filePath(path: string): string {
  const segments = path.split('/');
  if (!segments.some((s) => s === '.' || s === '..')) return segments.map(encodeURIComponent).join('/');
  if (path === '.' || path === '..') {
    throw new AgentProblem({
      code: 'invalid_request',
      status: 400,
      detail: `The path “${path}” names a folder, not a file: name a file in the workspace, e.g. app.log.`,
    });
  }
  return encodeURIComponent(path);
}

export async function listInvestigations(): Promise<InvestigationSummary[]> {
  return (await getParsed(investigationListSchema, '/v1/investigations', await callerFromPage())).investigations;
}

export async function getInvestigation(id: string): Promise<InvestigationDetail> {
  return getParsed(investigationDetailSchema, investigationPath(id), await callerFromPage());
}

export async function getInvestigationFile(id: string, path: string): Promise<InvestigationFile> {
  return (await getParsed(investigationFileContentResponseSchema, investigationPath(id, `/files/${filePath(path)}`), await callerFromPage())).file;
}

export async function createInvestigation(title: string, caller: Caller): Promise<string> {
  return (await sendParsed(investigationResponseSchema, '/v1/investigations', { method: 'POST', body: { title }, caller }, 'new investigation')).investigation
    .id;
}

/** Adds (or replaces) a file; the agent refuses what is not text, too large, or a path outside the workspace. */
export async function uploadInvestigationFile(id: string, path: string, bytes: Uint8Array<ArrayBuffer>, caller: Caller): Promise<InvestigationFileInfo> {
  const url = investigationPath(id, `/files/${filePath(path)}`);
  // An upload may wait on the remote embedder (KB_EMBED_TIMEOUT per batch, with retries): longer than a read.
  return (await sendParsed(investigationFileResponseSchema, url, { method: 'PUT', raw: bytes, caller, timeoutMs: RUN_TIMEOUT_MS }, 'uploaded file')).file;
}

/** A new title; the agent refuses an empty or over-long one (invalid_request). */
export async function renameInvestigation(id: string, title: string, caller: Caller): Promise<void> {
  await sendParsed(investigationResponseSchema, investigationPath(id), { method: 'PATCH', body: { title }, caller }, 'renamed investigation');
}

/** Deletes the investigation with its files and conversation. */
export async function deleteInvestigation(id: string, caller: Caller): Promise<void> {
  const res = await send(investigationPath(id), { method: 'DELETE', caller });
  if (!res.ok) throw new AgentProblem(await problemFromResponse(res));
}

/** Removes one file; the rest of the workspace and the conversation stay. */
export async function removeInvestigationFile(id: string, path: string, caller: Caller): Promise<void> {
  const res = await send(investigationPath(id, `/files/${filePath(path)}`), { method: 'DELETE', caller });
  if (!res.ok) throw new AgentProblem(await problemFromResponse(res));
}

/** One turn, answered whole (JSON): the page is re-rendered from the stored conversation afterwards. */
export async function askInvestigation(id: string, message: string, caller: Caller): Promise<Turn> {
  return (
    await sendParsed(turnResponseSchema, investigationPath(id, '/turns'), { method: 'POST', body: { message }, caller, timeoutMs: RUN_TIMEOUT_MS }, 'turn')
  ).turn;
}

export type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: Problem };

/** Run a read and turn an agent problem into a value the page renders; anything else is a bug and propagates. */
export async function attempt<T>(read: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    if (error instanceof AgentProblem) return { ok: false, problem: error.problem };
    throw error;
  }
}
