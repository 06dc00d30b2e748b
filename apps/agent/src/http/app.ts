import type { Estate } from '@sandscope/engine';
import type { GraphDescription } from '@sandscope/engine/orchestrator';
import { Hono, type MiddlewareHandler } from 'hono';
import { type RateLimitVariables, rateLimit } from '../limits/limit-middleware.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { AgentService } from '../service/compose.ts';
import { type CorpusView, libraryViewOf } from '../service/corpus-catalog.ts';
import type { EvalLatestView } from '../service/eval-latest.ts';
import type { FeedbackService } from '../service/feedback-service.ts';
import type { HealthReport } from '../service/health.ts';
import type { ServiceMetrics } from '../service/metrics.ts';
import type { RunReader } from '../service/run-reader.ts';
import type { RunService } from '../service/run-service.ts';
import { echoed } from '../service/service-error.ts';
import { methodsServing } from './allowed-methods.ts';
import { ApiError, toApiError } from './api-error.ts';
import { agentBearerAuth } from './bearer-auth.ts';
import { clientAddress, nodeSocketAddress, type SocketAddress } from './client-address.ts';
import { parseFeedbackRequest } from './feedback-request.ts';
import { investigationRoutes } from './investigation-routes.ts';
import type { InvestigationService } from '../service/investigation-service.ts';
import { boundedBody, readJsonBody } from './request-body.ts';
import { checkConfiguredFailProviders, describeIssue, parseRunRequest, RunPageSchema } from './run-request.ts';
import { streamRunEvents } from './run-events.ts';
import { streamRun } from './run-stream.ts';
import { type SessionVariables, sessionCookie } from './session.ts';

/** Everything the HTTP layer needs, as values: the app holds no state of its own. */
export interface AppDeps {
  /** AGENT_TOKEN (T-3). */
  readonly token: string;
  /** IP_SALT: the client digest's key (T-9). */
  readonly ipSalt: string;
  readonly maxBodyBytes: number;
  readonly maxQuestionChars: number;
  readonly runs: RunService;
  readonly reader: RunReader;
  /** People's marks on runs (issue 9, part D). */
  readonly feedback: FeedbackService;
  /** The investigation workspace (issue 10); its routes are mounted only when given. */
  readonly investigations?: InvestigationService;
  readonly limiter: RateLimiter;
  /**
   * RUN_TOKEN_BUDGET: the tokens `POST /v1/runs` reserves from the client's daily
   * ceiling at admission and settles when the run ends (issue 12, defect 1). The
   * run's spend guard holds the run to the same number.
   */
  readonly runTokenBudget: number;
  readonly metrics: ServiceMetrics;
  readonly corpus: CorpusView;
  readonly estate: Estate | null;
  readonly graph: GraphDescription;
  readonly providers: readonly { readonly name: string; readonly model: string; readonly configured: true }[];
  readonly health: () => Promise<HealthReport>;
  readonly latestEvaluation: () => Promise<EvalLatestView | null>;
  /** The socket's peer address; default: node-server's `c.env.incoming`. */
  readonly socketAddress?: SocketAddress;
  readonly now?: () => number;
  /** Server-side log (bugs, limiter outages); default stderr. */
  readonly log?: (line: string) => void;
  /** Configured secrets, scrubbed from every log line (issue 12, defect 3); default: none. */
  readonly scrub?: (text: string) => string;
}

/** The deps of a composed service, with any part replaced (a test's failing limiter). */
export function appDepsOf(agent: AgentService, overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    token: agent.config.agentToken,
    ipSalt: agent.config.ipSalt,
    maxBodyBytes: agent.config.maxBodyBytes,
    maxQuestionChars: agent.config.maxQuestionChars,
    runs: agent.runs,
    reader: agent.reader,
    feedback: agent.feedback,
    investigations: agent.investigations,
    limiter: agent.limiter,
    runTokenBudget: agent.config.runTokenBudget,
    metrics: agent.metrics,
    corpus: agent.corpus,
    estate: agent.estate,
    graph: agent.graph,
    providers: agent.candidates.map((c) => ({ name: c.name, model: c.model.modelId, configured: true as const })),
    health: () => agent.health(),
    latestEvaluation: () => agent.latestEvaluation(),
    scrub: agent.scrub,
    ...overrides,
  };
}

type AppEnv = { Variables: SessionVariables & RateLimitVariables };

/**
 * The agent's HTTP API, exactly as docs/API.md describes it. Web-standard
 * Hono: driven in-process with `app.request()` in tests, served on a socket by
 * `@hono/node-server` only in `serve`.
 *
 * Order on `/v1`: bearer token (T-3) → session cookie (T-17) → for the two
 * routes that spend, the rate limiter (T-1, fail closed) BEFORE the body is read
 * → the handler. Errors are converted once, in `onError` (STYLE 7).
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const now = deps.now ?? Date.now;
  const rawLog = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const scrub = deps.scrub ?? ((text: string) => text);
  // Defect 3: a bug's message or stack can quote a provider's error or a secret; the log line is scrubbed.
  const log = (line: string) => rawLog(scrub(line));
  const socketAddress = deps.socketAddress ?? nodeSocketAddress;
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    await next();
    deps.metrics.response(c.res.status);
  });

  app.onError((error, c) => {
    const { apiError, isBug } = toApiError(error);
    if (isBug) log(`${c.req.method} ${new URL(c.req.url).pathname} failed: ${error.stack ?? error.message}`);
    return c.json(apiError.body(), apiError.status);
  });
  // S-212: a path some route serves, asked with another method, is a 405 naming the methods it serves (read from the
  // router when asked, so every route registered below counts); only a path no route serves is a 404.
  app.notFound((c) => {
    const path = c.req.path;
    const allow = methodsServing(app, path);
    if (allow.length > 0) {
      const error = new ApiError('method_not_allowed', `${c.req.method} is not served at ${echoed(path)}; it serves ${allow.join(', ')}.`);
      return c.json(error.body(), error.status, { Allow: allow.join(', ') });
    }
    const error = new ApiError('not_found', `There is no route ${c.req.method} ${echoed(path)}.`);
    return c.json(error.body(), error.status);
  });

  // Unauthenticated: what a load balancer and a scraper read.
  app.get('/healthz', async (c) => c.json(await deps.health()));
  app.get('/metrics', async (c) => c.text(await deps.metrics.render(), 200, { 'Content-Type': deps.metrics.contentType }));

  app.use('/v1/*', agentBearerAuth(deps.token), sessionCookie());
  const clientIp = (c: Parameters<typeof clientAddress>[0]) => clientAddress(c, socketAddress);
  const onUnavailable = (error: Error) => log(`rate limiter unavailable, request refused (503): ${error.message}`);
  const limited = rateLimit({ limiter: deps.limiter, salt: deps.ipSalt, clientIp, now, onUnavailable });
  // Defect 1: a run reserves its token budget in the same atomic step that admits it; the run settles it.
  const limitedRun = rateLimit({ limiter: deps.limiter, salt: deps.ipSalt, clientIp, now, onUnavailable, reserveTokens: deps.runTokenBudget });

  const body = boundedBody(deps.maxBodyBytes);

  // The body is bounded after the limiter admits the request: a refused body leaves the reservation untaken,
  // and the limiter's middleware releases it.
  app.post('/v1/runs', limitedRun, body, async (c) => {
    const request = checkConfiguredFailProviders(
      parseRunRequest(await readJsonBody(c.req.raw), deps.maxQuestionChars),
      deps.providers.map((p) => p.name),
    );
    // Defect 4: admitted before the stream opens, so a database outage is a 503 store_unavailable, not 200 then `internal`.
    // A run refused here leaves its token reservation untaken, and the middleware releases it (defect 1).
    const run = await deps.runs.admit({
      question: request.question,
      workload: request.workload,
      failProviders: request.failProviders,
      sessionId: c.get('sessionId'),
    });
    const reservation = c.get('heldTokens').take();
    return streamRun(c, run, { limiter: deps.limiter, clientKey: c.get('clientKey'), ...(reservation ? { reservation } : {}), now, log });
  });

  app.get('/v1/runs', async (c) => {
    const query = RunPageSchema.safeParse(c.req.query());
    if (!query.success) throw new ApiError('invalid_request', describeIssue(query.error, 'query'));
    return c.json(await deps.reader.list(query.data.page, query.data.pageSize));
  });

  app.get('/v1/runs/:id', async (c) => {
    const detail = await deps.reader.get(c.req.param('id'), c.get('sessionId'));
    if (!detail) throw new ApiError('not_found', `run ${echoed(c.req.param('id'))} does not exist.`);
    return c.json(detail);
  });

  // Issue 11 section 2: a stream cut off (a replica gone, a network blip) is resumed on any replica from the record.
  app.get('/v1/runs/:id/events', (c) =>
    streamRunEvents(c, {
      reader: deps.reader,
      runId: c.req.param('id'),
      sessionId: c.get('sessionId'),
      lastEventId: c.req.header('last-event-id'),
      log,
    }),
  );

  // An approval takes no fields. Its body was never read, so `{bad json` and a 3 MB body were each approved (201) where
  // every other route refuses them (S-136): it is bounded and checked like the rest, and nothing or `{}` is accepted.
  app.post('/v1/runs/:id/approve', limited, body, async (c) => {
    const sent = await readJsonBody(c.req.raw, { optional: true });
    if (sent !== undefined && !(typeof sent === 'object' && sent !== null && !Array.isArray(sent) && Object.keys(sent).length === 0))
      throw new ApiError('invalid_request', 'An approval takes no fields: send no body, or {}.');
    const run = await deps.runs.approve({ runId: c.req.param('id'), sessionId: c.get('sessionId') });
    return c.json({ run }, 201);
  });

  // A mark spends nothing, so it does not pass the limiter; the body is still read within MAX_BODY_BYTES.
  app.post('/v1/runs/:id/feedback', body, async (c) => {
    const request = parseFeedbackRequest(await readJsonBody(c.req.raw));
    return c.json(await deps.feedback.mark(c.req.param('id'), request));
  });

  app.get('/v1/feedback', async (c) => c.json({ feedback: await deps.feedback.list() }));

  if (deps.investigations) {
    app.route(
      '/v1/investigations',
      investigationRoutes({
        investigations: deps.investigations,
        maxBodyBytes: deps.maxBodyBytes,
        // Defect 1: a turn reserves its token budget at admission, as a run does, and settles it when it ends.
        limited: limitedRun as unknown as MiddlewareHandler,
        limiter: deps.limiter,
        now,
        log,
      }),
    );
  }

  app.get('/v1/corpus', (c) => c.json(deps.corpus));
  const library = libraryViewOf(deps.corpus);
  app.get('/v1/library', (c) => c.json(library));
  app.get('/v1/estate', (c) => {
    if (!deps.estate) throw new ApiError('not_found', 'This corpus has no estate.json.');
    return c.json(deps.estate);
  });
  app.get('/v1/graph', (c) => c.json(deps.graph));
  app.get('/v1/providers', (c) => c.json({ providers: deps.providers }));
  app.get('/v1/eval/latest', async (c) => {
    const latest = await deps.latestEvaluation();
    if (!latest) {
      throw new ApiError(
        'not_found',
        'No evaluation has been recorded: run `npx sandscope eval --loco --record` (it saves one here), or `npm run eval:report` at the repository root (it writes docs/evaluation.json), and ask again.',
      );
    }
    return c.json(latest);
  });

  return app;
}
