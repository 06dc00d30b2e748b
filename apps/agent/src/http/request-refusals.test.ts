import { randomUUID } from 'node:crypto';
import { apiErrorBodySchema } from '@sandscope/api/errors';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { API_ERRORS } from './api-error.ts';
import { appDepsOf, createApp } from './app.ts';

/**
 * S-212, a colleague's black-box audit of the HTTP API: what a request the agent does not take is told, driven
 * in-process (STYLE 13) over one embedded PGlite — a method a path does not serve, a body that is not declared JSON,
 * a page number that is not plain digits, a turn message over the question limit, a title with a control character,
 * and an id too long to quote whole. Each answer is the API's one error shape, its code's status, a message that says
 * what to do.
 */
const TOKEN = 'refusals-token-0123456789abcdef0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

let store: Store;
let agent: AgentService;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', RATE_LIMIT_MAX: '1000' }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({ config: parsed.config, store, log: () => {} });
  app = createApp(appDepsOf(agent, { log: () => {} }));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await store?.close();
});

/** The refusal's code and message, after checking it is the one error shape with its code's status. */
async function refusal(res: Response): Promise<{ code: string; message: string }> {
  const text = await res.text();
  const { error } = apiErrorBodySchema.parse(JSON.parse(text));
  expect(res.status, text).toBe(API_ERRORS[error.code].status);
  expect(error.message.endsWith(API_ERRORS[error.code].remedy), error.message).toBe(true);
  return error;
}

async function investigation(title = 'refusals'): Promise<string> {
  const res = await app.request('/v1/investigations', { method: 'POST', headers: JSON_AUTH, body: JSON.stringify({ title }) });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { investigation: { id: string } }).investigation.id;
}

describe('a method a path does not serve', () => {
  it('is 405 method_not_allowed with an Allow header naming the methods the path serves, read from the router', async () => {
    const id = await investigation();
    const run = randomUUID();
    for (const [method, path, allow, headers] of [
      ['DELETE', '/v1/runs', 'GET, HEAD, POST', AUTH],
      ['PUT', '/healthz', 'GET, HEAD', {}],
      ['POST', '/metrics', 'GET, HEAD', {}],
      ['GET', `/v1/runs/${run}/approve`, 'POST', AUTH],
      ['POST', `/v1/runs/${run}/events`, 'GET, HEAD', AUTH],
      ['POST', `/v1/investigations/${id}`, 'GET, HEAD, PATCH, DELETE', AUTH],
      ['PATCH', `/v1/investigations/${id}/files/logs/app.log`, 'GET, HEAD, PUT, DELETE', AUTH],
      ['OPTIONS', '/v1/providers', 'GET, HEAD', AUTH],
    ] as const) {
      const res = await app.request(path, { method, headers });
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      const error = await refusal(res);
      expect(error.code).toBe('method_not_allowed');
      expect(error.message).toBe(`${method} is not served at ${path}; it serves ${allow}. ${API_ERRORS.method_not_allowed.remedy}`);
    }
  });

  it('HEAD is served wherever GET is; an unknown path stays 404, and a /v1 path still asks for the token first', async () => {
    expect((await app.request('/v1/runs', { method: 'HEAD', headers: AUTH })).status).toBe(200);
    const unknown = await app.request('/v1/nothing-here', { method: 'DELETE', headers: AUTH });
    expect(unknown.headers.get('allow')).toBeNull();
    expect(await refusal(unknown)).toMatchObject({ code: 'not_found', message: expect.stringMatching(/^There is no route DELETE \/v1\/nothing-here\./) });
    expect((await refusal(await app.request('/v1/runs', { method: 'DELETE' }))).code).toBe('unauthorized');
  });
});

describe('a JSON route given a body that is not declared JSON', () => {
  const formRun = {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' },
    body: '{"question":"What is the pool ceiling?"}',
  };

  it('is 415 unsupported_media_type saying to send Content-Type: application/json — a form post (curl -d) starts no run', async () => {
    const before = ((await (await app.request('/v1/runs', { headers: AUTH })).json()) as { total: number }).total;
    const error = await refusal(await app.request('/v1/runs', formRun));
    expect(error.code).toBe('unsupported_media_type');
    expect(error.message).toBe(
      `The body is sent as "application/x-www-form-urlencoded", and this route reads JSON. ${API_ERRORS.unsupported_media_type.remedy}`,
    );
    expect(error.message).toMatch(/Send Content-Type: application\/json/);
    expect(((await (await app.request('/v1/runs', { headers: AUTH })).json()) as { total: number }).total).toBe(before);
  });

  it('refuses every JSON route alike, and a charset other than UTF-8', async () => {
    const id = await investigation();
    const run = randomUUID();
    const plain = { ...AUTH, 'content-type': 'text/plain;charset=UTF-8' };
    for (const [method, path, body] of [
      ['POST', '/v1/investigations', { title: 'x' }],
      ['PATCH', `/v1/investigations/${id}`, { title: 'x' }],
      ['POST', `/v1/investigations/${id}/turns`, { message: 'why?' }],
      ['POST', `/v1/runs/${run}/feedback`, { label: 'right' }],
      ['POST', `/v1/runs/${run}/approve`, {}],
    ] as const) {
      const error = await refusal(await app.request(path, { method, headers: plain, body: JSON.stringify(body) }));
      expect(error, `${method} ${path}`).toMatchObject({
        code: 'unsupported_media_type',
        message: expect.stringMatching(/^The body is sent as "text\/plain"/),
      });
    }
    const latin1 = await app.request('/v1/investigations', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json; charset=ISO-8859-1' },
      body: JSON.stringify({ title: 'x' }),
    });
    expect(await refusal(latin1)).toMatchObject({
      code: 'unsupported_media_type',
      message: expect.stringMatching(/^The body is declared as charset "iso-8859-1"/),
    });
  });

  it('reads application/json with a UTF-8 charset, a +json type, and a body with no Content-Type at all', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/merge-patch+json', undefined]) {
      // A Uint8Array body: a string one would be given text/plain by the Request itself.
      const res = await app.request('/v1/investigations', {
        method: 'POST',
        headers: type === undefined ? AUTH : { ...AUTH, 'content-type': type },
        body: new TextEncoder().encode(JSON.stringify({ title: `typed ${type}` })),
      });
      expect(res.status, `${type}: ${await res.clone().text()}`).toBe(201);
      if (type === undefined) expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('leaves an upload as it was: a file goes as its raw bytes, under whatever Content-Type', async () => {
    const id = await investigation();
    for (const [name, type] of [
      ['a.log', 'text/plain'],
      ['b.log', 'application/octet-stream'],
      ['c.log', 'application/x-www-form-urlencoded'],
    ] as const) {
      const res = await app.request(`/v1/investigations/${id}/files/${name}`, { method: 'PUT', headers: { ...AUTH, 'content-type': type }, body: 'kept\n' });
      expect(res.status, `${type}: ${await res.clone().text()}`).toBe(201);
    }
  });

  it('an approval with no body takes no Content-Type into account', async () => {
    const res = await app.request(`/v1/runs/${randomUUID()}/approve`, { method: 'POST', headers: { ...AUTH, 'content-type': 'text/plain' } });
    expect((await refusal(res)).code).toBe('not_found');
  });
});

describe('a page number that is not plain decimal digits', () => {
  it('is 400 invalid_request saying what is expected; plain digits still page', async () => {
    for (const [query, field] of [
      ['page=0x10', 'page'],
      ['page=1e1', 'page'],
      ['page=%202', 'page'],
      ['page=%2B3', 'page'],
      ['page=+3', 'page'],
      ['page=1.0', 'page'],
      ['page=-1', 'page'],
      ['page=', 'page'],
      ['pageSize=0x10', 'pageSize'],
    ] as const) {
      const error = await refusal(await app.request(`/v1/runs?${query}`, { headers: AUTH }));
      expect(error, query).toEqual({
        code: 'invalid_request',
        message: `${field} must be a whole number written in digits, such as 2. ${API_ERRORS.invalid_request.remedy}`,
      });
    }
    expect(await refusal(await app.request(`/v1/runs?page=${'9'.repeat(5_000)}`, { headers: AUTH }))).toMatchObject({
      message: expect.stringMatching(/^page must be at most 1000000000\./),
    });
    const paged = (await (await app.request('/v1/runs?page=2&pageSize=05', { headers: AUTH })).json()) as { page: number; pageSize: number };
    expect(paged).toMatchObject({ page: 2, pageSize: 5 });
  });
});

describe('a turn message over MAX_QUESTION_CHARS', () => {
  it('is question_too_long in the words POST /v1/runs uses for a question, on the JSON and the streamed route', async () => {
    const id = await investigation();
    const question = await refusal(
      await app.request('/v1/runs', { method: 'POST', headers: JSON_AUTH, body: JSON.stringify({ question: 'why '.repeat(300) }) }),
    );
    expect(question.message).toBe(`The question is 1199 characters; the limit is 1000 (MAX_QUESTION_CHARS). ${API_ERRORS.question_too_long.remedy}`);
    for (const accept of ['application/json', 'text/event-stream']) {
      const res = await app.request(`/v1/investigations/${id}/turns`, {
        method: 'POST',
        headers: { ...JSON_AUTH, accept },
        body: JSON.stringify({ message: 'why '.repeat(300) }),
      });
      expect(await refusal(res), accept).toEqual({
        code: 'question_too_long',
        message: `The message is 1199 characters; the limit is 1000 (MAX_QUESTION_CHARS). ${API_ERRORS.question_too_long.remedy}`,
      });
    }
    expect(((await (await app.request(`/v1/investigations/${id}`, { headers: AUTH })).json()) as { messages: unknown[] }).messages).toEqual([]);
  });
});

describe('a title with a control character', () => {
  it('is refused 400, naming the character and where it is, on create and rename; nothing is stored or renamed', async () => {
    const id = await investigation('kept title');
    const count = async () =>
      ((await (await app.request('/v1/investigations', { headers: AUTH })).json()) as { investigations: unknown[] }).investigations.length;
    const before = await count();
    for (const [title, named] of [
      ['red \u001b[31malert', 'U+001B, escape) at character 5'],
      ['two\r\nlines', 'U+000D, carriage return) at character 4'],
      ['two\nlines', 'U+000A, line feed) at character 4'],
      ['a\ttab', 'U+0009, tab) at character 2'],
      ['bell\u0007', 'U+0007) at character 5'],
      ['csi \u009b31m', 'U+009B) at character 5'],
      ['line\u2028separator', 'U+2028) at character 5'],
      ['  \u001b after spaces', 'U+001B, escape) at character 3'],
    ] as const) {
      const created = await refusal(await app.request('/v1/investigations', { method: 'POST', headers: JSON_AUTH, body: JSON.stringify({ title }) }));
      expect(created, JSON.stringify(title)).toEqual({
        code: 'invalid_request',
        message: `The title contains a control character (${named}; a title is one line of plain text: remove it. ${API_ERRORS.invalid_request.remedy}`,
      });
      const renamed = await refusal(await app.request(`/v1/investigations/${id}`, { method: 'PATCH', headers: JSON_AUTH, body: JSON.stringify({ title }) }));
      expect(renamed.message).toBe(created.message);
    }
    expect(await count()).toBe(before);
    const shown = (await (await app.request(`/v1/investigations/${id}`, { headers: AUTH })).json()) as { investigation: { title: string } };
    expect(shown.investigation.title).toBe('kept title');
  });

  it('still trims the line breaks and spaces around a title, as before', async () => {
    const res = await app.request('/v1/investigations', { method: 'POST', headers: JSON_AUTH, body: JSON.stringify({ title: '\r\n  checkout 502s \n' }) });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { investigation: { title: string } }).investigation.title).toBe('checkout 502s');
  });
});

describe('an id too long to quote whole', () => {
  it('is quoted to 80 characters with an ellipsis, cut between characters, and the message still says what is wrong', async () => {
    const runs = await refusal(await app.request(`/v1/runs/${'a'.repeat(5_000)}`, { headers: AUTH }));
    expect(runs.message).toBe(`run ${'a'.repeat(79)}… does not exist. ${API_ERRORS.not_found.remedy}`);
    const emoji = await refusal(await app.request(`/v1/runs/${'\u{1F600}'.repeat(5_000)}`, { headers: AUTH }));
    expect(emoji.message).toBe(`run ${'\u{1F600}'.repeat(79)}… does not exist. ${API_ERRORS.not_found.remedy}`);
    for (const [method, path, body] of [
      ['GET', `/v1/runs/${'a'.repeat(5_000)}/events`, undefined],
      ['POST', `/v1/runs/${'a'.repeat(5_000)}/approve`, undefined],
      ['POST', `/v1/runs/${'a'.repeat(5_000)}/feedback`, { label: 'right' }],
    ] as const) {
      const error = await refusal(await app.request(path, { method, headers: JSON_AUTH, ...(body ? { body: JSON.stringify(body) } : {}) }));
      expect(error.message, `${method} ${path.slice(0, 20)}`).toBe(`run ${'a'.repeat(79)}… does not exist. ${API_ERRORS.not_found.remedy}`);
    }
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const error = await refusal(
        await app.request(`/v1/investigations/${'b'.repeat(5_000)}`, { method, headers: JSON_AUTH, ...(body ? { body: JSON.stringify(body) } : {}) }),
      );
      expect(error.message, method).toBe(`There is no investigation ${'b'.repeat(79)}…. ${API_ERRORS.not_found.remedy}`);
    }
    const turn = await refusal(await app.request(`/v1/investigations/${randomUUID()}/turns/${'7'.repeat(5_000)}/events`, { headers: AUTH }));
    expect(turn.message).toMatch(new RegExp(`has no turn "${'7'.repeat(79)}…": a turn id is the number its turn's stream sent \\(turnId\\)\\. `));
    const route = await refusal(await app.request(`/v1/${'c'.repeat(5_000)}`, { headers: AUTH }));
    expect(route.message).toBe(`There is no route GET /v1/${'c'.repeat(75)}…. ${API_ERRORS.not_found.remedy}`);
  });
});
