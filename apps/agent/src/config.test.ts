import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { type HttpProviderConfig, KNOWN_PROVIDERS, OFFLINE_PROVIDER } from '@sandscope/engine/models';
import { type AgentConfig, type LoadConfigOptions, loadConfig } from './config.ts';

const TOKEN = 'tok-0123456789abcdef';
const SALT = 'salt-0123456789abcdef';

function ok(env: Record<string, string | undefined>, options?: LoadConfigOptions): AgentConfig {
  const result = loadConfig(env, options);
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.message}`);
  return result.config;
}

function failure(env: Record<string, string | undefined>, options?: LoadConfigOptions): string {
  const result = loadConfig(env, options);
  if (result.ok) throw new Error('expected the config to be refused');
  return result.message;
}

describe('loadConfig defaults', () => {
  it('needs nothing for the CLI: every variable has a default', () => {
    const result = loadConfig({});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { ipSalt, ...rest } = result.config;
    expect(ipSalt).toMatch(/^[0-9a-f]{64}$/);
    expect(rest).toEqual({
      port: 7860,
      host: '127.0.0.1',
      agentToken: undefined,
      ipSaltSource: 'random',
      database: { kind: 'pglite', dir: '.sandscope/pglite' },
      dataDir: '.sandscope',
      redisUrl: undefined,
      redisKeyPrefix: 'sandscope:',
      providers: [OFFLINE_PROVIDER],
      runBudgetUsd: 0.02,
      dailySpendCeilingUsd: 10,
      rateLimit: { windowMs: 60_000, maxRequests: 30, dailyTokenCeiling: 200_000 },
      runTokenBudget: 16_000,
      maxBodyBytes: 16_384,
      maxQuestionChars: 1_000,
      corpusDir: 'corpus',
      website: { port: 3000, host: '127.0.0.1' },
      adjudication: 'offline',
      workspace: { fileMaxBytes: 10_000_000, historyMaxMessages: 40, historyMaxChars: 8000, readFileMaxChars: 200_000, readFileMaxLines: 2000, maxSteps: 8 },
      embed: { baseURL: undefined, model: 'text-embedding-3-small', timeoutMs: 60_000, numRetries: 2, batchSize: 64 },
      tools: { dir: '.sandscope/tools', template: undefined },
      telemetry: { replica: hostname(), otlpEndpoint: undefined, serviceName: 'sandscope-agent' },
    });
    expect(result.notes).toEqual([
      'IP_SALT is not set: client digests use a random salt for this process only, so rate-limit counts reset on restart. Set IP_SALT to keep them across restarts.',
    ]);
  });

  it('generates a different random salt per process (per load)', () => {
    expect(ok({}).ipSalt).not.toBe(ok({}).ipSalt);
  });

  it('reads and coerces every variable', () => {
    const config = ok(
      {
        PORT: '8080',
        HOST: '0.0.0.0',
        AGENT_TOKEN: TOKEN,
        IP_SALT: SALT,
        DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/sandscope',
        SANDSCOPE_DATA_DIR: '/var/lib/sandscope',
        REDIS_URL: 'redis://127.0.0.1:6379/0',
        REDIS_KEY_PREFIX: 'team-a:',
        RUN_BUDGET_USD: '0.5',
        DAILY_SPEND_CEILING_USD: '25',
        RATE_LIMIT_WINDOW_MS: '1000',
        RATE_LIMIT_MAX: '5',
        DAILY_TOKEN_CEILING: '42',
        RUN_TOKEN_BUDGET: '40',
        MAX_BODY_BYTES: '8192',
        MAX_QUESTION_CHARS: '500',
        CORPUS_DIR: '/srv/corpus',
        WEB_PORT: '3100',
        WEB_HOST: '0.0.0.0',
        ADJUDICATOR: 'model',
        READ_FILE_MAX_LINES: '500',
        READ_FILE_MAX_CHARS: '9000',
        HISTORY_MAX_MESSAGES: '12',
        HISTORY_MAX_CHARS: '6000',
        INVESTIGATION_FILE_MAX_BYTES: '2048',
        INVESTIGATION_MAX_STEPS: '4',
        KB_EMBED_BASE_URL: 'http://127.0.0.1:8080/v1',
        KB_EMBED_MODEL: 'nomic-embed-text',
        KB_EMBED_TIMEOUT: '2.5',
        KB_EMBED_NUM_RETRIES: '0',
        KB_EMBED_BATCH_SIZE: '16',
        TOOLS_DIR: '/opt/sandscope-tools',
        TOOLS_TEMPLATE: 'apps/agent/tools/templates/log-tools.json',
        SANDSCOPE_REPLICA: 'agent-7f9c4-x2kq',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/',
        OTEL_SERVICE_NAME: 'sandscope-eu',
        GROQ_API_KEY: 'gsk-groq-key',
      },
      { requireToken: true },
    );
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      agentToken: TOKEN,
      ipSalt: SALT,
      ipSaltSource: 'env',
      database: { kind: 'postgres', url: 'postgres://u:p@127.0.0.1:5432/sandscope' },
      dataDir: '/var/lib/sandscope',
      redisUrl: 'redis://127.0.0.1:6379/0',
      redisKeyPrefix: 'team-a:',
      providers: [
        {
          kind: 'http',
          name: 'groq',
          baseURL: 'https://api.groq.com/openai/v1',
          model: 'llama-3.1-8b-instant',
          apiKey: 'gsk-groq-key',
          pricing: KNOWN_PROVIDERS[0]!.pricing,
          baseUrlVariable: 'GROQ_BASE_URL',
        },
        OFFLINE_PROVIDER,
      ],
      runBudgetUsd: 0.5,
      dailySpendCeilingUsd: 25,
      rateLimit: { windowMs: 1000, maxRequests: 5, dailyTokenCeiling: 42 },
      runTokenBudget: 40,
      maxBodyBytes: 8192,
      maxQuestionChars: 500,
      corpusDir: '/srv/corpus',
      website: { port: 3100, host: '0.0.0.0' },
      adjudication: 'model',
      workspace: { fileMaxBytes: 2048, historyMaxMessages: 12, historyMaxChars: 6000, readFileMaxChars: 9000, readFileMaxLines: 500, maxSteps: 4 },
      embed: { baseURL: 'http://127.0.0.1:8080/v1', apiKey: undefined, model: 'nomic-embed-text', timeoutMs: 2500, numRetries: 0, batchSize: 16 },
      tools: { dir: '/opt/sandscope-tools', template: 'apps/agent/tools/templates/log-tools.json' },
      telemetry: { replica: 'agent-7f9c4-x2kq', otlpEndpoint: 'http://otel-collector:4318', serviceName: 'sandscope-eu' },
    });
  });

  it('treats blank values as unset and puts PGlite under SANDSCOPE_DATA_DIR', () => {
    const config = ok({ PORT: '', DATABASE_URL: '  ', SANDSCOPE_DATA_DIR: 'state' });
    expect(config.port).toBe(7860);
    expect(config.database).toEqual({ kind: 'pglite', dir: 'state/pglite' });
  });

  it('types the token as present when requireToken is true', () => {
    const result = loadConfig({ AGENT_TOKEN: TOKEN }, { requireToken: true });
    if (!result.ok) throw new Error(result.message);
    const token: string = result.config.agentToken; // compiles only because of the overload
    expect(token).toBe(TOKEN);
  });
});

describe('loadConfig error messages name the variable and the remedy', () => {
  it('ADJUDICATOR that is neither offline nor model', () => {
    expect(failure({ ADJUDICATOR: 'gpt-4' })).toBe(
      'ADJUDICATOR must be offline or model (got "gpt-4"). Set it to model to have an LLM judge the questions the answerability model is unsure of, or unset it.',
    );
  });

  it('DAILY_SPEND_CEILING_USD must be a positive amount, and at least one run budget', () => {
    expect(failure({ DAILY_SPEND_CEILING_USD: '0' })).toBe(
      'DAILY_SPEND_CEILING_USD must be a decimal number greater than 0, such as 10 (got "0"). Set it to the US dollars the whole deployment may spend per UTC day.',
    );
    expect(failure({ DAILY_SPEND_CEILING_USD: '0.01', RUN_BUDGET_USD: '0.02' })).toBe(
      "RUN_BUDGET_USD (0.02) must not exceed DAILY_SPEND_CEILING_USD (0.01): each model call of a run is booked against the deployment's daily ceiling as well. Lower RUN_BUDGET_USD or raise DAILY_SPEND_CEILING_USD.",
    );
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, SANDSCOPE_REPLICA a label-safe name', () => {
    expect(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' })).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (got "otel-collector:4318"). Set it to your OpenTelemetry collector\'s OTLP/HTTP base URL, such as http://otel-collector:4318, or unset it to export no traces.',
    );
    expect(failure({ SANDSCOPE_REPLICA: 'agent a' })).toMatch(
      /^SANDSCOPE_REPLICA must be 1 to 63 letters, digits, dots, colons, underscores or hyphens \(got "agent a"\)\./,
    );
  });

  it('RUN_BUDGET_USD = 0 prevents start-up (D-007)', () => {
    expect(failure({ RUN_BUDGET_USD: '0' })).toBe(
      'RUN_BUDGET_USD must be a decimal number greater than 0, such as 0.02 (got "0"). Set it to the US dollars one run may spend.',
    );
  });

  it.each(['-1', 'abc', '0.00', 'NaN', 'Infinity', '1e3', '$0.02'])('RUN_BUDGET_USD = %s is refused', (value) => {
    expect(failure({ RUN_BUDGET_USD: value })).toBe(
      `RUN_BUDGET_USD must be a decimal number greater than 0, such as 0.02 (got ${JSON.stringify(value)}). Set it to the US dollars one run may spend.`,
    );
  });

  it('accepts RUN_BUDGET_USD written as .05 or 1', () => {
    expect(ok({ RUN_BUDGET_USD: '.05' }).runBudgetUsd).toBe(0.05);
    expect(ok({ RUN_BUDGET_USD: '1' }).runBudgetUsd).toBe(1);
  });

  it('PORT', () => {
    expect(failure({ PORT: 'http' })).toBe('PORT must be a whole number from 0 to 65535 (got "http"). Set it to a free TCP port such as 7860.');
    expect(failure({ PORT: '70000' })).toMatch(/^PORT must be a whole number from 0 to 65535 \(got "70000"\)/);
    expect(failure({ PORT: '80.5' })).toMatch(/^PORT must be a whole number/);
  });

  it('AGENT_TOKEN missing when serving', () => {
    expect(failure({}, { requireToken: true })).toBe(
      'AGENT_TOKEN is required to serve (it is the bearer token every route checks). Set it to a random secret such as the output of `openssl rand -hex 32`, at least 16 characters, and give the website the same value.',
    );
  });

  it('AGENT_TOKEN too short, without echoing the secret', () => {
    const message = failure({ AGENT_TOKEN: 'hunter2' }, { requireToken: true });
    expect(message).toBe(
      'AGENT_TOKEN must be at least 16 characters (got 7). Set it to a random secret such as the output of `openssl rand -hex 32`, and give the website the same value.',
    );
    expect(message).not.toContain('hunter2');
  });

  it('AGENT_TOKEN wrapped in quotes (pasted from a .env file), without echoing the secret', () => {
    const message = failure({ AGENT_TOKEN: `"${TOKEN}"` }, { requireToken: true });
    expect(message).toBe(
      'AGENT_TOKEN is wrapped in quotes (got 22 characters). Remove the surrounding quotes: environment values are taken literally, so the quotes would become part of the value.',
    );
    expect(message).not.toContain(TOKEN);
  });

  it('AGENT_TOKEN with stray whitespace', () => {
    expect(failure({ AGENT_TOKEN: `${TOKEN}\n` })).toBe('AGENT_TOKEN has leading or trailing whitespace. Remove it: the value is used exactly as given.');
  });

  it('IP_SALT too short', () => {
    const message = failure({ IP_SALT: 'pepper' });
    expect(message).toBe(
      'IP_SALT must be at least 16 characters (got 6). Set it to a random secret such as the output of `openssl rand -hex 32`, the same on every replica.',
    );
    expect(message).not.toContain('pepper');
  });

  it('IP_SALT required with REDIS_URL, because replicas must agree on client digests', () => {
    expect(failure({ REDIS_URL: 'redis://127.0.0.1:6379' })).toBe(
      'IP_SALT is required when REDIS_URL is set: replicas sharing one Redis must digest client addresses with the same salt, or each replica counts a client separately and the rate limit multiplies. Set IP_SALT to a random secret such as the output of `openssl rand -hex 32`, the same on every replica.',
    );
  });

  it('DATABASE_URL that is not a Postgres URL, without echoing it (it may hold a password)', () => {
    const message = failure({ DATABASE_URL: 'mysql://root:s3cret@db/app' });
    expect(message).toBe(
      "DATABASE_URL must be a postgres:// or postgresql:// URL; the value given is not one (not shown: it may hold a password). Set it to the server's connection string, or unset it to use the embedded PGlite database under SANDSCOPE_DATA_DIR.",
    );
    expect(message).not.toContain('s3cret');
    expect(ok({ DATABASE_URL: 'postgresql://localhost/x' }).database).toEqual({
      kind: 'postgres',
      url: 'postgresql://localhost/x',
    });
  });

  it('REDIS_URL that is not a Redis URL', () => {
    expect(failure({ REDIS_URL: '127.0.0.1:6379', IP_SALT: SALT })).toBe(
      'REDIS_URL must be a redis:// or rediss:// URL; the value given is not one (not shown: it may hold a password). Set it to the Redis connection string, or unset it to use the in-process rate limiter and keep the semantic cache in the database (a single replica only).',
    );
    expect(ok({ REDIS_URL: 'rediss://:pw@cache.example:6380', IP_SALT: SALT }).redisUrl).toBe('rediss://:pw@cache.example:6380');
  });

  it('S-256: REDIS_URL names its database as a number in its path, never as ?db=', () => {
    expect(failure({ REDIS_URL: 'redis://127.0.0.1:6379/abc', IP_SALT: SALT })).toBe(
      'REDIS_URL names the Redis database "abc" in its path; a Redis database is a number (redis://host:6379/3), or none for database 0.',
    );
    expect(failure({ REDIS_URL: 'redis://127.0.0.1:6379?db=3', IP_SALT: SALT })).toBe(
      'REDIS_URL names its database as ?db=3, which is not read; put the number in the path instead (redis://host:6379/3).',
    );
    expect(ok({ REDIS_URL: 'redis://127.0.0.1:6379/3', IP_SALT: SALT }).redisUrl).toBe('redis://127.0.0.1:6379/3');
    expect(ok({ REDIS_URL: 'redis://127.0.0.1:6379/', IP_SALT: SALT }).redisUrl).toBe('redis://127.0.0.1:6379/');
  });

  it('RATE_LIMIT_WINDOW_MS', () => {
    expect(failure({ RATE_LIMIT_WINDOW_MS: '60s' })).toBe(
      'RATE_LIMIT_WINDOW_MS must be a whole number of at least 1 (got "60s"). Set it to the sliding-window length in milliseconds, such as 60000 for one minute.',
    );
  });

  it('RATE_LIMIT_MAX', () => {
    expect(failure({ RATE_LIMIT_MAX: '0' })).toBe(
      'RATE_LIMIT_MAX must be a whole number of at least 1 (got "0"). Set it to the requests allowed per client per window, such as 30.',
    );
  });

  it('DAILY_TOKEN_CEILING', () => {
    expect(failure({ DAILY_TOKEN_CEILING: '-5' })).toBe(
      'DAILY_TOKEN_CEILING must be a whole number of at least 1 (got "-5"). Set it to the model tokens allowed per client per UTC day, such as 200000.',
    );
  });

  it('RUN_TOKEN_BUDGET: a whole number, defaulting to the daily ceiling when that is lower, never above it (defect 1)', () => {
    expect(failure({ RUN_TOKEN_BUDGET: '16k' })).toBe(
      'RUN_TOKEN_BUDGET must be a whole number of at least 1 (got "16k"). Set it to the model tokens one run may use, such as 16000; it is reserved from the daily ceiling while the run lasts.',
    );
    expect(ok({ DAILY_TOKEN_CEILING: '5000' }).runTokenBudget).toBe(5_000);
    expect(ok({ DAILY_TOKEN_CEILING: '5000', RUN_TOKEN_BUDGET: '2500' }).runTokenBudget).toBe(2_500);
    expect(failure({ DAILY_TOKEN_CEILING: '5000', RUN_TOKEN_BUDGET: '6000' })).toBe(
      'RUN_TOKEN_BUDGET (6000) must not exceed DAILY_TOKEN_CEILING (5000): each run reserves its budget from the daily ceiling when it is admitted. Lower RUN_TOKEN_BUDGET or raise DAILY_TOKEN_CEILING.',
    );
  });

  it('MAX_BODY_BYTES', () => {
    expect(failure({ MAX_BODY_BYTES: '16k' })).toBe(
      'MAX_BODY_BYTES must be a whole number of at least 1 (got "16k"). Set it to the largest request body to accept, in bytes, such as 16384.',
    );
  });

  it('MAX_QUESTION_CHARS', () => {
    expect(failure({ MAX_QUESTION_CHARS: '1,000' })).toBe(
      'MAX_QUESTION_CHARS must be a whole number of at least 1 (got "1,000"). Set it to the longest question to accept, in characters, such as 1000.',
    );
  });

  it('MAX_BODY_BYTES too small for the longest question', () => {
    expect(failure({ MAX_BODY_BYTES: '2000' })).toBe(
      'MAX_BODY_BYTES (2000) must be at least 4 × MAX_QUESTION_CHARS (4000), so a question of the maximum length fits in a request body (UTF-8 takes up to 4 bytes per character). Raise MAX_BODY_BYTES or lower MAX_QUESTION_CHARS.',
    );
  });

  it('quoted non-secret values show the value', () => {
    expect(failure({ RUN_BUDGET_USD: "'0.02'" })).toBe(
      `RUN_BUDGET_USD is wrapped in quotes (got "'0.02'"). Remove the surrounding quotes: environment values are taken literally, so the quotes would become part of the value.`,
    );
  });

  it('lists every wrong variable, one per line', () => {
    const lines = failure({ PORT: 'x', RUN_BUDGET_USD: '0', RATE_LIMIT_MAX: 'many' }).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['PORT', 'RUN_BUDGET_USD', 'RATE_LIMIT_MAX']);
  });

  it('reports field and cross-field problems in the same attempt', () => {
    expect(
      failure({ PORT: 'x', REDIS_URL: 'redis://127.0.0.1:6379' }, { requireToken: true })
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).toEqual(['PORT', 'AGENT_TOKEN', 'IP_SALT']);
  });

  it('does not call a variable that is set but wrong "missing"', () => {
    expect(failure({ AGENT_TOKEN: 'short' }, { requireToken: true })).not.toContain('required');
    expect(failure({ IP_SALT: 'short', REDIS_URL: 'redis://h' })).not.toContain('required');
    expect(failure({ MAX_QUESTION_CHARS: 'x', MAX_BODY_BYTES: '10' }).split('\n')).toHaveLength(1);
  });
});

describe('loadConfig for `sandscope start` (the agent and the website side by side)', () => {
  it('takes the website port and host from WEB_PORT and WEB_HOST', () => {
    expect(ok({ PORT: '7861', WEB_PORT: '3001', WEB_HOST: '0.0.0.0' }, { supervise: true })).toMatchObject({
      port: 7861,
      website: { port: 3001, host: '0.0.0.0' },
    });
  });

  it('WEB_PORT that is not a port', () => {
    expect(failure({ WEB_PORT: 'web' })).toBe('WEB_PORT must be a whole number from 1 to 65535 (got "web"). Set it to a free TCP port such as 3000.');
    expect(failure({ WEB_PORT: '0' })).toMatch(/^WEB_PORT must be a whole number from 1 to 65535/);
  });

  it('names the flag when the value came from one', () => {
    expect(failure({ WEB_PORT: 'web' }, { flags: { WEB_PORT: '--web-port' } })).toMatch(/^--web-port \(WEB_PORT\) must be a whole number/);
    expect(failure({ PORT: '-1' }, { flags: { PORT: '--port' } })).toMatch(/^--port \(PORT\) must be a whole number/);
  });

  it('refuses the same port for the agent and the website', () => {
    expect(failure({ PORT: '3000' }, { supervise: true, flags: { PORT: '--port' } })).toBe(
      '--port (PORT) and WEB_PORT are both 3000: the agent and the website need a port each. Give them different free ports.',
    );
  });

  it('refuses an ephemeral agent port, which the website could not be told in advance', () => {
    expect(failure({ PORT: '0' }, { supervise: true })).toMatch(/^PORT is 0, which `sandscope start` cannot use/);
    // `serve` alone may take port 0: it prints the port it bound.
    expect(ok({ PORT: '0' }).port).toBe(0);
  });

  it('leaves the website settings alone when serving the agent alone', () => {
    expect(ok({ PORT: '3000' }).port).toBe(3000);
  });
});

describe('the investigation workspace settings (issue 10; seeds #20, #17)', () => {
  it('default to 2000 lines, 200000 characters per read_file, 40 replayed messages of 8000 characters at most, 10 MB per file, 8 model calls per turn', () => {
    expect(ok({}).workspace).toEqual({
      readFileMaxLines: 2000,
      readFileMaxChars: 200_000,
      historyMaxMessages: 40,
      historyMaxChars: 8000,
      fileMaxBytes: 10_000_000,
      maxSteps: 8,
    });
  });

  it('read READ_FILE_MAX_LINES, READ_FILE_MAX_CHARS, HISTORY_MAX_MESSAGES, HISTORY_MAX_CHARS and INVESTIGATION_FILE_MAX_BYTES', () => {
    expect(
      ok({
        READ_FILE_MAX_LINES: '500',
        READ_FILE_MAX_CHARS: '50000',
        HISTORY_MAX_MESSAGES: '0',
        HISTORY_MAX_CHARS: '0',
        INVESTIGATION_FILE_MAX_BYTES: '1024',
        INVESTIGATION_MAX_STEPS: '1',
      }).workspace,
    ).toEqual({
      readFileMaxLines: 500,
      readFileMaxChars: 50_000,
      historyMaxMessages: 0,
      historyMaxChars: 0,
      fileMaxBytes: 1024,
      maxSteps: 1,
    });
  });

  it('name the variable and what to set it to', () => {
    expect(failure({ READ_FILE_MAX_LINES: '0' })).toBe(
      'READ_FILE_MAX_LINES must be a whole number from 1 to 1000000 (got "0"). Set it to the most lines one read_file returns, such as 2000.',
    );
    expect(failure({ READ_FILE_MAX_CHARS: '2k' })).toMatch(/^READ_FILE_MAX_CHARS must be a whole number from 100 to 100000000 \(got "2k"\)\. Set it to/);
    expect(failure({ HISTORY_MAX_MESSAGES: 'all' })).toMatch(/^HISTORY_MAX_MESSAGES must be a whole number/);
    expect(failure({ HISTORY_MAX_CHARS: '8k' })).toMatch(/^HISTORY_MAX_CHARS must be a whole number/);
    expect(failure({ INVESTIGATION_FILE_MAX_BYTES: '10MB' })).toMatch(/^INVESTIGATION_FILE_MAX_BYTES must be a whole number/);
    expect(failure({ KB_EMBED_TIMEOUT: '0' })).toMatch(/^KB_EMBED_TIMEOUT must be a number of seconds greater than 0/);
    expect(failure({ KB_EMBED_BATCH_SIZE: '0' })).toMatch(/^KB_EMBED_BATCH_SIZE must be a whole number from 1 to 2048/);
    expect(failure({ KB_EMBED_NUM_RETRIES: 'many' })).toMatch(/^KB_EMBED_NUM_RETRIES must be a whole number from 0 to 10/);
    expect(failure({ KB_EMBED_BASE_URL: 'ftp://x' })).toMatch(/^KB_EMBED_BASE_URL must be a http:\/\/ or https:\/\/ URL/);
    expect(failure({ INVESTIGATION_MAX_STEPS: '0' })).toBe(
      'INVESTIGATION_MAX_STEPS must be a whole number from 1 to 100 (got "0"). Set it to the most model calls one investigation turn may make, such as 8 (each step can call tools; the last must answer).',
    );
  });
});

/** Issue 13, item 1: provider variables are read here, by the same rules as every other variable — not by the engine. */
describe('loadConfig providers', () => {
  const names = (env: Record<string, string>) => ok(env).providers.map((p) => p.name);

  it('turns a provider on by its key (Ollama by OLLAMA_BASE_URL), in failover order, offline always last', () => {
    const all = {
      MISTRAL_API_KEY: 'm',
      OLLAMA_BASE_URL: 'http://127.0.0.1:11434',
      GROQ_API_KEY: 'g',
      OPENROUTER_API_KEY: 'o',
      CEREBRAS_API_KEY: 'c',
      GEMINI_API_KEY: 'ge',
    };
    expect(names(all)).toEqual(['groq', 'gemini', 'cerebras', 'openrouter', 'mistral', 'ollama', 'offline']);
    expect(names({ MISTRAL_API_KEY: 'm', GROQ_API_KEY: 'g', GEMINI_API_KEY: '' })).toEqual(['groq', 'mistral', 'offline']);
    expect(names({ OLLAMA_MODEL: 'qwen2.5' })).toEqual(['offline']);
  });

  it('applies <NAME>_BASE_URL, <NAME>_MODEL and the per-million-token prices', () => {
    const [groq] = ok({
      GROQ_API_KEY: 'k',
      GROQ_BASE_URL: 'http://127.0.0.1:9999/v1/',
      GROQ_MODEL: 'llama-3.3-70b-versatile',
      GROQ_INPUT_USD_PER_MTOK: '0.59',
      GROQ_OUTPUT_USD_PER_MTOK: '0.79',
    }).providers as HttpProviderConfig[];
    expect(groq).toMatchObject({ baseURL: 'http://127.0.0.1:9999/v1', model: 'llama-3.3-70b-versatile', apiKey: 'k' });
    expect(groq!.pricing.inputUsdPerToken).toBeCloseTo(0.59e-6, 15);
    expect(groq!.pricing.outputUsdPerToken).toBeCloseTo(0.79e-6, 15);
    const [ollama] = ok({ OLLAMA_BASE_URL: 'http://localhost:11434' }).providers as HttpProviderConfig[];
    expect(ollama).toMatchObject({ name: 'ollama', baseURL: 'http://localhost:11434/v1' });
    expect(ollama).not.toHaveProperty('apiKey');
  });

  it("refuses a changed <NAME>_MODEL without its prices: the spend guard would price it at the default model's list price", () => {
    // gemini-2.5-pro lists at $1.25 / $10 per million tokens; left unpriced it was booked at gemini-2.5-flash's $0.30 / $2.50,
    // so a run spent four times RUN_BUDGET_USD and the deployment four times DAILY_SPEND_CEILING_USD while the books said it had not.
    expect(failure({ GEMINI_API_KEY: 'k', GEMINI_MODEL: 'gemini-2.5-pro' })).toMatch(
      /^GEMINI_MODEL is gemini-2\.5-pro, not the default gemini-2\.5-flash, so GEMINI_INPUT_USD_PER_MTOK and GEMINI_OUTPUT_USD_PER_MTOK must be set/,
    );
    expect(failure({ GROQ_API_KEY: 'k', GROQ_MODEL: 'llama-3.3-70b-versatile', GROQ_INPUT_USD_PER_MTOK: '0.59' })).toMatch(
      /^GROQ_MODEL is llama-3\.3-70b-versatile, not the default llama-3\.1-8b-instant, so GROQ_INPUT_USD_PER_MTOK and GROQ_OUTPUT_USD_PER_MTOK must be set/,
    );
    // The default model named explicitly, a priced override, and a local Ollama model (free) need no prices.
    expect(ok({ GEMINI_API_KEY: 'k', GEMINI_MODEL: 'gemini-2.5-flash' }).providers[0]).toMatchObject({ name: 'gemini', model: 'gemini-2.5-flash' });
    expect(
      ok({ GEMINI_API_KEY: 'k', GEMINI_MODEL: 'gemini-2.5-pro', GEMINI_INPUT_USD_PER_MTOK: '1.25', GEMINI_OUTPUT_USD_PER_MTOK: '10' }).providers[0],
    ).toMatchObject({ model: 'gemini-2.5-pro' });
    expect(ok({ OLLAMA_BASE_URL: 'http://127.0.0.1:11434', OLLAMA_MODEL: 'qwen2.5' }).providers[0]).toMatchObject({ name: 'ollama', model: 'qwen2.5' });
  });

  it("refuses one price without the other: the unset one would be the default model's list price, chosen by nobody", () => {
    expect(failure({ GROQ_API_KEY: 'k', GROQ_INPUT_USD_PER_MTOK: '0.02' })).toBe(
      "GROQ_INPUT_USD_PER_MTOK is set but GROQ_OUTPUT_USD_PER_MTOK is not: the spend guard books every call at both prices, and one left unset is the default model's list price. Set GROQ_OUTPUT_USD_PER_MTOK as well, in US dollars per million tokens, or unset GROQ_INPUT_USD_PER_MTOK.",
    );
    expect(failure({ OLLAMA_BASE_URL: 'http://127.0.0.1:11434', OLLAMA_OUTPUT_USD_PER_MTOK: '1' })).toMatch(
      /^OLLAMA_OUTPUT_USD_PER_MTOK is set but OLLAMA_INPUT_USD_PER_MTOK is not/,
    );
    // A provider that is off has no calls to book; both prices together are taken.
    expect(ok({ GROQ_INPUT_USD_PER_MTOK: '0.02' }).providers.map((p) => p.name)).toEqual(['offline']);
    expect(ok({ GROQ_API_KEY: 'k', GROQ_INPUT_USD_PER_MTOK: '0.02', GROQ_OUTPUT_USD_PER_MTOK: '0.04' }).providers[0]).toMatchObject({ name: 'groq' });
  });

  it('refuses a key with a space or line break inside it, without echoing it: no provider issues one, and it was sent as pasted', () => {
    expect(failure({ GROQ_API_KEY: 'gsk_abc def' })).toBe(
      'GROQ_API_KEY has a space or line break inside it (got 11 characters). Provider keys are one word: paste the key again on one line.',
    );
    expect(failure({ MISTRAL_API_KEY: 'abc\ndef' })).toMatch(/^MISTRAL_API_KEY has a space or line break inside it \(got 7 characters\)/);
  });

  it('refuses a quoted key as it refuses every quoted value, without echoing it', () => {
    expect(failure({ GROQ_API_KEY: '"gsk-quoted-key"' })).toBe(
      'GROQ_API_KEY is wrapped in quotes (got 16 characters). Remove the surrounding quotes: environment values are taken literally, so the quotes would become part of the value.',
    );
  });

  it('names the provider variable that is wrong', () => {
    expect(failure({ GROQ_API_KEY: 'k', GROQ_BASE_URL: 'ftp://x' })).toMatch(/^GROQ_BASE_URL must be a http:\/\/ or https:\/\/ URL/);
    expect(failure({ MISTRAL_API_KEY: 'k', MISTRAL_OUTPUT_USD_PER_MTOK: '-1' })).toBe(
      `MISTRAL_OUTPUT_USD_PER_MTOK must be a non-negative price in US dollars per million tokens (got "-1"). Set it to the provider's list price, such as 0.10.`,
    );
  });
});
