import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_ERROR_CODES, API_ERRORS, isApiErrorCode } from '@sandscope/api/errors';
import { ENGINE_ERROR_REMEDIES } from '@sandscope/engine';
import { BudgetExceededError } from '@sandscope/engine/models';
import { StoreError } from '@sandscope/store';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { LimiterUnavailableError } from '../limits/limiter.ts';
import { ServiceError } from '../service/service-error.ts';
import { ApiError, toApiError } from './api-error.ts';

/** Issue 13, item 8: one table of codes, statuses and remedies; errors converted by code at the boundary. */
describe('toApiError', () => {
  const convert = (error: unknown) => {
    const { apiError, isBug } = toApiError(error);
    return { code: apiError.code, status: apiError.status, message: apiError.message, isBug };
  };

  it('takes a request whose client closed the connection mid-body as a bad request, not a bug (S-198)', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(convert(aborted)).toMatchObject({ code: 'invalid_request', status: 400, isBug: false });
    // An outbound reset (a provider, the store) is still unexpected: logged, with its stack, as a bug.
    expect(convert(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toMatchObject({ code: 'internal', isBug: true });
  });

  it('keeps an API code, with the detail when the error has one', () => {
    expect(convert(new ApiError('not_found', 'run x does not exist.'))).toMatchObject({
      code: 'not_found',
      status: 404,
      message: `run x does not exist. ${API_ERRORS.not_found.remedy}`,
    });
    expect(convert(new ServiceError('forbidden_session', 'Another session asked.'))).toMatchObject({ code: 'forbidden_session', status: 403, isBug: false });
  });

  it("passes the budget's own message on, and says only the remedy for errors whose message may name internals", () => {
    const budget = new BudgetExceededError({ requestedUsd: 0.03, pricedAgainst: 'groq', spentUsd: 0, reservedUsd: 0, ceilingUsd: 0.02 });
    expect(convert(budget)).toMatchObject({ code: 'budget_exceeded', status: 402, message: `${budget.message} ${ENGINE_ERROR_REMEDIES.budget_exceeded}` });
    expect(convert(new LimiterUnavailableError('redis at 10.0.0.7:6379 timed out'))).toEqual({
      code: 'limiter_unavailable',
      status: 503,
      message: API_ERRORS.limiter_unavailable.remedy,
      isBug: false,
    });
    expect(convert(new StoreError('database_unreachable', 'connect ECONNREFUSED 10.0.0.8:5432'))).toMatchObject({
      code: 'store_unavailable',
      status: 503,
      message: API_ERRORS.store_unavailable.remedy,
    });
  });

  it('recognises an error by its code, not its class: a second copy of a class is converted the same', () => {
    const copy = Object.assign(new Error('Run budget exhausted: …'), { code: 'budget_exceeded' });
    expect(convert(copy)).toMatchObject({ code: 'budget_exceeded', status: 402, isBug: false });
  });

  it('maps Hono’s status-only errors, and everything else is internal with the remedy only', () => {
    expect(convert(new HTTPException(413))).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(convert(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toEqual({
      code: 'internal',
      status: 500,
      message: API_ERRORS.internal.remedy,
      isBug: true,
    });
    expect(convert(new StoreError('invalid_argument', 'bad'))).toMatchObject({ code: 'internal', isBug: true });
  });

  it('a service refusal says the same remedy on the CLI and over HTTP, and an upload is not told about questions', () => {
    const tooBig = new ServiceError('payload_too_large', 'app.log is 20000000 bytes; the limit is 10000000 (INVESTIGATION_FILE_MAX_BYTES).');
    expect(tooBig.message).toBe(convert(tooBig).message);
    expect(tooBig.message.endsWith(API_ERRORS.payload_too_large.remedy)).toBe(true);
    expect(tooBig.message).not.toMatch(/question/);
  });

  it('the table has every code once, each with a status and a remedy; codes born in the engine keep its remedy', () => {
    expect(Object.keys(API_ERRORS).sort()).toEqual([...API_ERROR_CODES].sort());
    expect(API_ERRORS.budget_exceeded.remedy).toBe(ENGINE_ERROR_REMEDIES.budget_exceeded);
    expect(API_ERRORS.not_awaiting_approval.remedy).toBe(ENGINE_ERROR_REMEDIES.not_awaiting_approval);
  });
});

/**
 * S-212: a resumed turn stream sent `{ error: { code: 'interrupted', … } }`, written out by hand, and `interrupted` was
 * in no table: a client that parses error bodies with the contract's schema (the website) could not read it. An error
 * body made with ApiError is held to the table by the compiler; one written out by hand is held to it here.
 */
describe('error bodies written out by hand in the agent', () => {
  const SOURCE = fileURLToPath(new URL('..', import.meta.url));
  const HAND_WRITTEN = /error:\s*\{\s*code:\s*'([^']*)'/g;

  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
    });
  }

  it('name only codes of the table (a stream’s `event: error` included)', () => {
    const found = sources(SOURCE).flatMap((path) => [...readFileSync(path, 'utf8').matchAll(HAND_WRITTEN)].map((m) => ({ path, code: m[1]! })));
    expect(found.length, 'the pattern still finds the hand-written bodies it is meant to').toBeGreaterThan(0);
    expect(found.filter(({ code }) => !isApiErrorCode(code))).toEqual([]);
  });

  it('finds a body written across lines, as turn-stream.ts wrote its `interrupted`', () => {
    const [match] = "out.send('error', {\n  error: {\n    code: 'interrupted',\n    message,\n  },\n});".matchAll(HAND_WRITTEN);
    expect(match?.[1]).toBe('interrupted');
  });
});
