import { Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { InvestigationService } from '../service/investigation-service.ts';
import { ApiError } from './api-error.ts';
import { boundedBody, readJsonBody } from './request-body.ts';
import { requestText } from './request-text.ts';
import { describeIssue } from './run-request.ts';
import type { RateLimiter, TokenReservation } from '../limits/limiter.ts';
import type { HeldTokens } from '../limits/limit-middleware.ts';
import { chargeTurn, providerTokenMeter, streamTurn, streamTurnEvents, turnErrorBody } from './turn-stream.ts';
import { FILE_ROUTE, requestedFileName } from './upload-name.ts';

/** `POST /v1/investigations` and `PATCH /v1/investigations/:id` bodies. Strict, like every request body. */
const TitleSchema = z.strictObject({ title: requestText() });
/** `POST /v1/investigations/:id/turns`. */
const TurnSchema = z.strictObject({ message: requestText() });

export interface InvestigationRouteDeps {
  readonly investigations: InvestigationService;
  readonly maxBodyBytes: number;
  /**
   * Wraps the routes that spend (a turn): the rate limiter, as on POST /v1/runs, reserving RUN_TOKEN_BUDGET from the
   * client's daily ceiling at admission (`heldTokens`, issue 12 defect 1).
   */
  readonly limited: MiddlewareHandler;
  /** Settles a turn's reservation to the tokens its providers served (the daily ceiling, T-1). */
  readonly limiter: RateLimiter;
  readonly now: () => number;
  /** Server-side log (bugs after a stream opened, limiter outages). */
  readonly log: (line: string) => void;
}

/** The tokens the limiter reserved for this turn at admission (limit-middleware's `heldTokens`), taken once. */
function takeReservation(get: (key: string) => unknown): TokenReservation | undefined {
  return (get('heldTokens') as HeldTokens | undefined)?.take();
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ApiError('invalid_request', describeIssue(parsed.error, 'body'));
  return parsed.data;
}

/**
 * The investigation workspace's API (issue 10), mounted at /v1/investigations
 * behind the same bearer token and session as the rest of /v1; errors are the
 * API's one vocabulary, converted in the app's onError. A file is uploaded as
 * the raw request body to PUT …/files/<path> — the path is the file's natural
 * key, so uploading it again replaces it — and read within
 * INVESTIGATION_FILE_MAX_BYTES as it streams, never buffered past the cap.
 */
export function investigationRoutes(deps: InvestigationRouteDeps): Hono {
  const { investigations } = deps;
  const app = new Hono();
  const body = boundedBody(deps.maxBodyBytes);

  app.post('/', body, async (c) => {
    const { title } = parse(TitleSchema, await readJsonBody(c.req.raw));
    return c.json({ investigation: await investigations.create(title) }, 201);
  });
  app.get('/', async (c) => c.json({ investigations: await investigations.list() }));
  app.get('/:id', async (c) => c.json(await investigations.show(c.req.param('id'))));
  app.patch('/:id', body, async (c) => {
    const { title } = parse(TitleSchema, await readJsonBody(c.req.raw));
    return c.json({ investigation: await investigations.rename(c.req.param('id'), title) });
  });
  app.delete('/:id', async (c) => {
    await investigations.remove(c.req.param('id'));
    return c.json({ deleted: c.req.param('id') });
  });

  app.get('/:id/files', async (c) => c.json({ files: await investigations.listFiles(c.req.param('id')) }));
  const file = boundedBody(investigations.settings.fileMaxBytes, { noun: 'file', setting: 'INVESTIGATION_FILE_MAX_BYTES' });
  // The name is read (decoded once, kept exactly or refused: upload-name.ts) before the body is.
  app.put(FILE_ROUTE, file, async (c) => {
    const path = requestedFileName(c);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return c.json({ file: await investigations.addFile(c.req.param('id'), path, bytes) }, 201);
  });
  app.get(FILE_ROUTE, async (c) => c.json({ file: await investigations.readFile(c.req.param('id'), requestedFileName(c)) }));
  app.delete(FILE_ROUTE, async (c) => {
    const path = requestedFileName(c);
    await investigations.removeFile(c.req.param('id'), path);
    return c.json({ deleted: path });
  });

  // JSON by default; `Accept: text/event-stream` streams the turn as runs stream (turn-stream.ts).
  app.post('/:id/turns', deps.limited, body, async (c) => {
    const { message } = parse(TurnSchema, await readJsonBody(c.req.raw));
    const id = c.req.param('id') ?? '';
    const get = c.get as (key: string) => unknown;
    const charge = { limiter: deps.limiter, clientKey: get('clientKey') as string | undefined, now: deps.now, log: deps.log };
    if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
      await investigations.checkTurn(id, message);
      // Taken before the stream opens: a turn refused above leaves it untaken, and the limiter's middleware releases it.
      return streamTurn(c, id, message, { investigations, ...charge, reservation: takeReservation(get) });
    }
    const reservation = takeReservation(get);
    // Defect 3: a turn that falls back or throws has still spent what its providers served.
    const served = providerTokenMeter();
    // S-269: held as one of the replica's turns in flight, the charge too, so a shutdown stops it (503 shutting_down,
    // its question recorded interrupted) and settles it before the store and the limiter close.
    const turn = await investigations.hold(async (signal) => {
      try {
        return await investigations.ask(id, message, { describeError: turnErrorBody, onEvent: served.onEvent, log: deps.log, signal });
      } finally {
        await chargeTurn(id, served.tokens, { ...charge, reservation });
      }
    });
    return c.json({ turn });
  });
  // A turn's stream resumed on any replica: the stored events after Last-Event-ID, then the rest as they come.
  app.get('/:id/turns/:turnId/events', (c) =>
    streamTurnEvents(c, {
      investigations,
      id: c.req.param('id'),
      turnId: c.req.param('turnId'),
      lastEventId: c.req.header('last-event-id'),
      log: deps.log,
    }),
  );
  return app;
}
