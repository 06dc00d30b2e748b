import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_AGENT_PORT, DEFAULT_HOST, DEFAULT_WEB_PORT } from '@sandscope/api/defaults';
import { type AdjudicationMode, DEFAULT_EMBED_BATCH_SIZE, DEFAULT_EMBED_NUM_RETRIES, DEFAULT_EMBED_TIMEOUT_MS } from '@sandscope/engine';
import { DEFAULT_HISTORY_MAX_CHARS, DEFAULT_INVESTIGATION_MAX_STEPS, DEFAULT_READ_FILE_CAPS } from '@sandscope/engine/workspace';
import { type HttpProviderName, KNOWN_PROVIDERS, type ProviderConfig, providerConfigs, type ProviderSetting } from '@sandscope/engine/models';
import type { LimiterPolicy } from './limits/limiter.ts';

/**
 * The agent deployable's configuration: ONE zod schema over `process.env`, parsed
 * once at start-up (STYLE rule 9). A wrong value stops start-up with a message
 * naming the variable and what to set it to — it never surfaces later as a stack
 * trace in the middle of a run (D-007: a zero RUN_BUDGET_USD used to kill every run
 * mid-stream; now it prevents start-up).
 *
 * Provider variables are here too (issue 13, item 1): the engine once read them,
 * and RUN_BUDGET_USD, from the environment itself, stripping quotes this schema
 * refuses — one variable meant two things depending on the path that read it.
 * The parsed `providers` hold their API keys: scrub with `secrets.ts`, never log
 * the config.
 */
export interface AgentConfig {
  /** PORT — TCP port to listen on (default 7860). */
  readonly port: number;
  /** HOST — interface to bind (default 127.0.0.1; a container sets 0.0.0.0). */
  readonly host: string;
  /** AGENT_TOKEN — bearer token every route requires (T-3). Required to serve. */
  readonly agentToken: string | undefined;
  /** IP_SALT — HMAC key for client digests (T-9); random per process when unset. */
  readonly ipSalt: string;
  /** Whether `ipSalt` came from IP_SALT or was generated for this process. */
  readonly ipSaltSource: 'env' | 'random';
  /** DATABASE_URL when set; otherwise embedded PGlite under SANDSCOPE_DATA_DIR. */
  readonly database: { readonly kind: 'postgres'; readonly url: string } | { readonly kind: 'pglite'; readonly dir: string };
  /** SANDSCOPE_DATA_DIR — local state directory (default `.sandscope`). */
  readonly dataDir: string;
  /** REDIS_URL — shared limiter/cache store for more than one replica; in-process when unset. */
  readonly redisUrl: string | undefined;
  /**
   * REDIS_KEY_PREFIX — put before every key the limiter (`limit:`) and the
   * semantic cache (`cache:`) write (default `sandscope:`): two deployments, or a
   * test run, sharing one Redis keep apart by it; replicas of one deployment share it.
   */
  readonly redisKeyPrefix: string;
  /**
   * The model providers in failover order, offline last: a provider is on when its
   * key is set (`GROQ_API_KEY`, …; Ollama by `OLLAMA_BASE_URL`), and each takes
   * `<NAME>_BASE_URL`, `<NAME>_MODEL`, `<NAME>_INPUT_USD_PER_MTOK` and
   * `<NAME>_OUTPUT_USD_PER_MTOK`. Holds API keys.
   */
  readonly providers: readonly ProviderConfig[];
  /** RUN_BUDGET_USD — spend ceiling per run, > 0 (default 0.02). */
  readonly runBudgetUsd: number;
  /**
   * DAILY_SPEND_CEILING_USD — what the whole deployment may spend on model
   * calls per UTC day, > 0 (default 10). Every replica books each priced call
   * against it on one ledger (Redis with REDIS_URL, else the database), so two
   * replicas cannot each spend "what is left" (issue 11 section 2). Free calls
   * (the offline model) book nothing.
   */
  readonly dailySpendCeilingUsd: number;
  /** RATE_LIMIT_WINDOW_MS, RATE_LIMIT_MAX, DAILY_TOKEN_CEILING — the limiter policy (T-1). */
  readonly rateLimit: LimiterPolicy;
  /**
   * RUN_TOKEN_BUDGET — model tokens one run, or one investigation turn, may use
   * (default 16000, or DAILY_TOKEN_CEILING when that is lower). Reserved against
   * the client's daily ceiling when the run or turn is admitted and settled to
   * what it used when it ends (issue 12, defect 1); its spend guard makes no
   * model call that could take it past this.
   */
  readonly runTokenBudget: number;
  /** MAX_BODY_BYTES — largest request body accepted (default 16384). */
  readonly maxBodyBytes: number;
  /** MAX_QUESTION_CHARS — longest question accepted (default 1000). */
  readonly maxQuestionChars: number;
  /** CORPUS_DIR — the corpus to index at start-up (default `corpus`). */
  readonly corpusDir: string;
  /**
   * WEB_PORT, WEB_HOST — where `sandscope start` serves the website (default
   * 127.0.0.1:3000). Loopback by default: the website spends the agent token on
   * behalf of whoever reaches it, so it is opened to the network only on request.
   */
  readonly website: { readonly port: number; readonly host: string };
  /**
   * ADJUDICATOR — who judges the questions the answerability model is unsure of:
   * `offline` (default; the rules alone) or `model` (an LLM through the router,
   * over the wider adjudicated band; without a usable judgement, decided as offline).
   */
  readonly adjudication: AdjudicationMode;
  /**
   * The investigation workspace (issue 10, seed 004): READ_FILE_MAX_LINES and
   * READ_FILE_MAX_CHARS cap one read_file (seed #20: a whole log blew the
   * context window; with a provider, a read is also cut to half of what the
   * turn's RUN_TOKEN_BUDGET leaves, so the call after it can still be made); HISTORY_MAX_MESSAGES and HISTORY_MAX_CHARS window the
   * replayed conversation (seed #17: by count and by size); INVESTIGATION_FILE_MAX_BYTES caps one uploaded file;
   * INVESTIGATION_MAX_STEPS bounds the model calls of one turn with a provider
   * (a model that never stops calling tools is stopped, and the turn says unknown).
   */
  readonly workspace: {
    readonly readFileMaxLines: number;
    readonly readFileMaxChars: number;
    readonly historyMaxMessages: number;
    readonly historyMaxChars: number;
    readonly fileMaxBytes: number;
    readonly maxSteps: number;
  };
  /**
   * Seed #15: the remote embedder for uploaded files. `baseURL` is
   * KB_EMBED_BASE_URL (an OpenAI-compatible API root); unset, no remote
   * service is called and the hashing embedder stays the default. Its key is
   * KB_EMBED_API_KEY (a secret: scrubbed like the provider keys).
   * KB_EMBED_TIMEOUT (seconds, per attempt at a batch), KB_EMBED_NUM_RETRIES
   * (per batch) and KB_EMBED_BATCH_SIZE (inputs per request).
   */
  /**
   * Seed #21, the sandboxed tools: TOOLS_DIR is where `sandscope tools build`
   * puts the prebuilt packages (default `<SANDSCOPE_DATA_DIR>/tools`), bound
   * read-only at `/.tools` in the jail; TOOLS_TEMPLATE is the template file that
   * turns tools on (e.g. apps/agent/tools/templates/log-tools.json). Unset, no
   * sandboxed tool is offered: running programs over a person's files is opted into.
   */
  readonly tools: { readonly dir: string; readonly template: string | undefined };
  /**
   * Telemetry for a fleet (issue 11 section 4). `replica` is SANDSCOPE_REPLICA
   * (default: the host name, which is the pod's name on Kubernetes): the
   * `replica` label on every /metrics series and the traces' service.instance.id.
   * `otlpEndpoint` is OTEL_EXPORTER_OTLP_ENDPOINT, the collector's base URL
   * (traces go to `<endpoint>/v1/traces` over OTLP/HTTP); unset, no span leaves
   * the process. `serviceName` is OTEL_SERVICE_NAME (default `sandscope-agent`).
   */
  readonly telemetry: { readonly replica: string; readonly otlpEndpoint: string | undefined; readonly serviceName: string };
  readonly embed: {
    readonly baseURL: string | undefined;
    readonly apiKey: string | undefined;
    readonly model: string;
    readonly timeoutMs: number;
    readonly numRetries: number;
    readonly batchSize: number;
  };
}

/** What `serve` gets: the token is guaranteed. */
export type ServeConfig = AgentConfig & { readonly agentToken: string };

export type ConfigResult<C extends AgentConfig> =
  | {
      readonly ok: true;
      readonly config: C;
      /** Things an operator should know at start-up that are not errors (log them). */
      readonly notes: readonly string[];
    }
  | {
      readonly ok: false;
      /** One line per wrong variable, each naming it and what to do. Never contains a secret value. */
      readonly message: string;
    };

export interface LoadConfigOptions {
  /** `serve` exposes HTTP and must have AGENT_TOKEN; the in-process CLI does not. */
  readonly requireToken?: boolean;
  /**
   * `start` runs the agent and the website side by side: their ports must differ,
   * and neither may be 0 (the website is told the agent's port before it starts).
   */
  readonly supervise?: boolean;
  /**
   * The command-line flag that set a variable, by variable name (`{ PORT: '--port' }`):
   * a message about a value the user typed as a flag names the flag as well.
   */
  readonly flags?: Readonly<Record<string, string>>;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Defaults, in one place: the schema's cross-field checks and its output both use
 * them. Where the engine has its own default for the same setting, this is it (a
 * second literal drifts).
 */
export const CONFIG_DEFAULTS = {
  port: DEFAULT_AGENT_PORT,
  host: DEFAULT_HOST,
  dataDir: '.sandscope',
  redisKeyPrefix: 'sandscope:',
  runBudgetUsd: 0.02,
  dailySpendCeilingUsd: 10,
  rateLimitWindowMs: 60_000,
  rateLimitMax: 30,
  dailyTokenCeiling: 200_000,
  runTokenBudget: 16_000,
  maxBodyBytes: 16_384,
  maxQuestionChars: 1_000,
  corpusDir: 'corpus',
  webPort: DEFAULT_WEB_PORT,
  webHost: DEFAULT_HOST,
  readFileMaxLines: DEFAULT_READ_FILE_CAPS.maxLines,
  readFileMaxChars: DEFAULT_READ_FILE_CAPS.maxChars,
  historyMaxMessages: 40,
  historyMaxChars: DEFAULT_HISTORY_MAX_CHARS,
  investigationFileMaxBytes: 10_000_000,
  investigationMaxSteps: DEFAULT_INVESTIGATION_MAX_STEPS,
  otelServiceName: 'sandscope-agent',
  embedModel: 'text-embedding-3-small',
  embedTimeoutSeconds: DEFAULT_EMBED_TIMEOUT_MS / 1000,
  embedNumRetries: DEFAULT_EMBED_NUM_RETRIES,
  embedBatchSize: DEFAULT_EMBED_BATCH_SIZE,
} as const;

const SECRET_HINT = 'a random secret such as the output of `openssl rand -hex 32`';
const MIN_SECRET_CHARS = 16;

/** How a value is shown in a message: secrets (and URLs, which may embed passwords) only by length. */
function shown(raw: string, secret: boolean): string {
  return secret ? `${raw.length} characters` : JSON.stringify(raw);
}

interface VarSpec<T> {
  readonly name: string;
  readonly secret?: boolean;
  /** Returns the value, or the message for a wrong value (without the variable's name). */
  readonly parse: (raw: string) => { ok: true; value: T } | { ok: false; problem: string };
}

/**
 * One environment variable: unset or blank means "use the default" (`.env` files
 * often carry `FOO=`); a value wrapped in quotes is refused, because hosting UIs
 * take values literally and a pasted `"…"` once broke auth across eight secrets
 * at once (seed §8).
 */
function envVar<T>(spec: VarSpec<T>) {
  const secret = spec.secret ?? false;
  return z
    .string()
    .optional()
    .transform((input, ctx): T | undefined => {
      const raw = secret ? input : input?.trim();
      if (raw === undefined || raw.trim() === '') return undefined;
      if (raw.length >= 2 && /^(["']).*\1$/s.test(raw)) {
        ctx.addIssue({
          code: 'custom',
          message:
            `${spec.name} is wrapped in quotes (got ${shown(raw, secret)}). ` +
            'Remove the surrounding quotes: environment values are taken literally, so the quotes would become part of the value.',
        });
        return z.NEVER;
      }
      if (secret && raw !== raw.trim()) {
        ctx.addIssue({
          code: 'custom',
          message: `${spec.name} has leading or trailing whitespace. Remove it: the value is used exactly as given.`,
        });
        return z.NEVER;
      }
      const parsed = spec.parse(raw);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: 'custom', message: `${spec.name} ${parsed.problem}` });
      return z.NEVER;
    });
}

function wholeNumber(name: string, min: number, max: number, remedy: string) {
  return envVar<number>({
    name,
    parse: (raw) => {
      const value = Number(raw);
      const fits = /^\d+$/.test(raw) && Number.isSafeInteger(value) && value >= min && value <= max;
      if (fits) return { ok: true, value };
      const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
      return { ok: false, problem: `must be a whole number ${range} (got ${shown(raw, false)}). ${remedy}` };
    },
  });
}

function secretVar(name: string, remedy: string) {
  return envVar<string>({
    name,
    secret: true,
    parse: (raw) =>
      raw.length >= MIN_SECRET_CHARS
        ? { ok: true, value: raw }
        : { ok: false, problem: `must be at least ${MIN_SECRET_CHARS} characters (got ${raw.length}). ${remedy}` },
  });
}

function urlVar(name: string, protocols: readonly string[], remedy: string, check?: (url: URL) => string | null) {
  return envVar<string>({
    name,
    secret: true,
    parse: (raw) => {
      let url: URL | undefined;
      try {
        url = new URL(raw);
      } catch {
        url = undefined;
      }
      if (url !== undefined && protocols.includes(url.protocol)) {
        const problem = check?.(url) ?? null;
        return problem === null ? { ok: true, value: raw } : { ok: false, problem };
      }
      const schemes = protocols.map((p) => `${p}//`).join(' or ');
      return {
        ok: false,
        problem: `must be a ${schemes} URL; the value given is not one (not shown: it may hold a password). ${remedy}`,
      };
    },
  });
}

/**
 * S-256: the database a REDIS_URL names is a number in its path. `/abc` reached Redis as `SELECT NaN` and stopped the
 * start with ioredis's stack trace; `?db=3` was ignored, and every replica wrote database 0. The path and the query are
 * shown: neither holds the password.
 */
function redisDatabaseProblem(url: URL): string | null {
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path)) {
    return `names the Redis database "${path}" in its path; a Redis database is a number (redis://host:6379/3), or none for database 0.`;
  }
  if (url.searchParams.has('db')) {
    return `names its database as ?db=${url.searchParams.get('db')}, which is not read; put the number in the path instead (redis://host:6379/3).`;
  }
  return null;
}

const textVar = (name: string) => envVar<string>({ name, parse: (raw) => ({ ok: true, value: raw }) });

/** ADJUDICATOR, declared once: the service's schema and the CLI's model services both read it here. */
export const ADJUDICATOR_VAR = envVar<AdjudicationMode>({
  name: 'ADJUDICATOR',
  parse: (raw) =>
    raw === 'offline' || raw === 'model'
      ? { ok: true, value: raw }
      : {
          ok: false,
          problem: `must be offline or model (got ${shown(raw, false)}). Set it to model to have an LLM judge the questions the answerability model is unsure of, or unset it.`,
        },
});

/** The variables that configure one provider. Ollama needs no key: its base URL turns it on. */
export function providerVariables(name: HttpProviderName) {
  const prefix = name.toUpperCase();
  return {
    key: name === 'ollama' ? undefined : `${prefix}_API_KEY`,
    baseURL: `${prefix}_BASE_URL`,
    model: `${prefix}_MODEL`,
    inputPrice: `${prefix}_INPUT_USD_PER_MTOK`,
    outputPrice: `${prefix}_OUTPUT_USD_PER_MTOK`,
  } as const;
}

function pricePerMillion(name: string) {
  return envVar<number>({
    name,
    parse: (raw) => {
      const value = Number(raw);
      return /^(\d+\.?\d*|\.\d+)$/.test(raw) && Number.isFinite(value)
        ? { ok: true, value: value / 1_000_000 }
        : {
            ok: false,
            problem: `must be a non-negative price in US dollars per million tokens (got ${shown(raw, false)}). Set it to the provider's list price, such as 0.10.`,
          };
    },
  });
}

/**
 * A provider's API key. No provider issues a key with a space or line break inside it, and one pasted across a
 * wrapped line was sent as it was: every call refused with 401 and the run served offline, the cause named only in a
 * trace (the provider-router audit). Refused here, without echoing the secret.
 */
function providerKey(name: string) {
  return envVar<string>({
    name,
    secret: true,
    parse: (raw) =>
      /\s/.test(raw)
        ? { ok: false, problem: `has a space or line break inside it (got ${shown(raw, true)}). Provider keys are one word: paste the key again on one line.` }
        : { ok: true, value: raw },
  });
}

type ProviderField = ReturnType<typeof textVar> | ReturnType<typeof pricePerMillion>;

/** Every provider's variables, as schema fields (the provider list is data; its variables follow from it). */
function providerFields(): Record<string, ProviderField> {
  const fields: Record<string, ProviderField> = {};
  for (const { name } of KNOWN_PROVIDERS) {
    const vars = providerVariables(name);
    if (vars.key) fields[vars.key] = providerKey(vars.key);
    fields[vars.baseURL] = urlVar(
      vars.baseURL,
      ['http:', 'https:'],
      name === 'ollama'
        ? 'Set it to the Ollama server, such as http://127.0.0.1:11434, or unset it to leave Ollama off.'
        : `Set it to the provider's OpenAI-compatible API root, or unset it for the default.`,
    );
    fields[vars.model] = textVar(vars.model);
    fields[vars.inputPrice] = pricePerMillion(vars.inputPrice);
    fields[vars.outputPrice] = pricePerMillion(vars.outputPrice);
  }
  return fields;
}

/** The parsed provider fields → the engine's settings: a provider with no key (Ollama: no base URL) is off. */
function providerSettingsOf(env: Readonly<Record<string, unknown>>) {
  const text = (name: string) => (typeof env[name] === 'string' ? (env[name] as string) : undefined);
  const price = (name: string) => (typeof env[name] === 'number' ? (env[name] as number) : undefined);
  const settings: Partial<Record<HttpProviderName, ProviderSetting>> = {};
  for (const { name } of KNOWN_PROVIDERS) {
    const vars = providerVariables(name);
    const apiKey = vars.key ? text(vars.key) : undefined;
    const baseURL = text(vars.baseURL);
    if (vars.key ? apiKey === undefined : baseURL === undefined) continue;
    const model = text(vars.model);
    const inputUsdPerToken = price(vars.inputPrice);
    const outputUsdPerToken = price(vars.outputPrice);
    settings[name] = {
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
      ...(model === undefined ? {} : { model }),
      ...(inputUsdPerToken === undefined ? {} : { inputUsdPerToken }),
      ...(outputUsdPerToken === undefined ? {} : { outputUsdPerToken }),
      // S-262: named in a 404's hint ("is GROQ_BASE_URL missing /v1?"); the engine names no variable itself.
      baseUrlVariable: vars.baseURL,
    };
  }
  return settings;
}

/**
 * The schema. A factory only because `requireToken` differs between `serve` and
 * the CLI; every variable is declared once, here.
 */
export function createAgentConfigSchema(options: LoadConfigOptions = {}) {
  const requireToken = options.requireToken ?? false;
  const supervise = options.supervise ?? false;
  /** How a variable is named in a message: `--port (PORT)` when the user gave it as a flag. */
  const named = (name: string) => (options.flags?.[name] ? `${options.flags[name]} (${name})` : name);
  return z
    .object({
      PORT: wholeNumber(named('PORT'), 0, 65_535, 'Set it to a free TCP port such as 7860.'),
      HOST: textVar('HOST'),
      WEB_PORT: wholeNumber(named('WEB_PORT'), 1, 65_535, 'Set it to a free TCP port such as 3000.'),
      WEB_HOST: textVar(named('WEB_HOST')),
      AGENT_TOKEN: secretVar('AGENT_TOKEN', `Set it to ${SECRET_HINT}, and give the website the same value.`),
      IP_SALT: secretVar('IP_SALT', `Set it to ${SECRET_HINT}, the same on every replica.`),
      DATABASE_URL: urlVar(
        'DATABASE_URL',
        ['postgres:', 'postgresql:'],
        "Set it to the server's connection string, or unset it to use the embedded PGlite database under SANDSCOPE_DATA_DIR.",
      ),
      SANDSCOPE_DATA_DIR: textVar('SANDSCOPE_DATA_DIR'),
      REDIS_URL: urlVar(
        'REDIS_URL',
        ['redis:', 'rediss:'],
        'Set it to the Redis connection string, or unset it to use the in-process rate limiter and keep the semantic cache in the database (a single replica only).',
        redisDatabaseProblem,
      ),
      REDIS_KEY_PREFIX: textVar('REDIS_KEY_PREFIX'),
      RUN_BUDGET_USD: envVar<number>({
        name: 'RUN_BUDGET_USD',
        parse: (raw) => {
          const value = Number(raw);
          return /^(\d+\.?\d*|\.\d+)$/.test(raw) && Number.isFinite(value) && value > 0
            ? { ok: true, value }
            : {
                ok: false,
                problem: `must be a decimal number greater than 0, such as 0.02 (got ${shown(raw, false)}). Set it to the US dollars one run may spend.`,
              };
        },
      }),
      DAILY_SPEND_CEILING_USD: envVar<number>({
        name: 'DAILY_SPEND_CEILING_USD',
        parse: (raw) => {
          const value = Number(raw);
          return /^(\d+\.?\d*|\.\d+)$/.test(raw) && Number.isFinite(value) && value > 0
            ? { ok: true, value }
            : {
                ok: false,
                problem: `must be a decimal number greater than 0, such as 10 (got ${shown(raw, false)}). Set it to the US dollars the whole deployment may spend per UTC day.`,
              };
        },
      }),
      RATE_LIMIT_WINDOW_MS: wholeNumber(
        'RATE_LIMIT_WINDOW_MS',
        1,
        Number.MAX_SAFE_INTEGER,
        'Set it to the sliding-window length in milliseconds, such as 60000 for one minute.',
      ),
      RATE_LIMIT_MAX: wholeNumber('RATE_LIMIT_MAX', 1, Number.MAX_SAFE_INTEGER, 'Set it to the requests allowed per client per window, such as 30.'),
      DAILY_TOKEN_CEILING: wholeNumber(
        'DAILY_TOKEN_CEILING',
        1,
        Number.MAX_SAFE_INTEGER,
        'Set it to the model tokens allowed per client per UTC day, such as 200000.',
      ),
      RUN_TOKEN_BUDGET: wholeNumber(
        'RUN_TOKEN_BUDGET',
        1,
        Number.MAX_SAFE_INTEGER,
        'Set it to the model tokens one run may use, such as 16000; it is reserved from the daily ceiling while the run lasts.',
      ),
      MAX_BODY_BYTES: wholeNumber('MAX_BODY_BYTES', 1, Number.MAX_SAFE_INTEGER, 'Set it to the largest request body to accept, in bytes, such as 16384.'),
      MAX_QUESTION_CHARS: wholeNumber(
        'MAX_QUESTION_CHARS',
        1,
        Number.MAX_SAFE_INTEGER,
        'Set it to the longest question to accept, in characters, such as 1000.',
      ),
      CORPUS_DIR: textVar('CORPUS_DIR'),
      ADJUDICATOR: ADJUDICATOR_VAR,
      READ_FILE_MAX_LINES: wholeNumber('READ_FILE_MAX_LINES', 1, 1_000_000, 'Set it to the most lines one read_file returns, such as 2000.'),
      READ_FILE_MAX_CHARS: wholeNumber(
        'READ_FILE_MAX_CHARS',
        100,
        100_000_000,
        'Set it to the most characters one read_file returns, such as 200000 (about 50k tokens).',
      ),
      HISTORY_MAX_MESSAGES: wholeNumber(
        'HISTORY_MAX_MESSAGES',
        0,
        10_000,
        'Set it to how many earlier messages of an investigation each turn replays, such as 40 (0 replays none).',
      ),
      HISTORY_MAX_CHARS: wholeNumber(
        'HISTORY_MAX_CHARS',
        0,
        100_000_000,
        'Set it to how many characters of earlier messages each turn replays at most, such as 8000 (0 replays none).',
      ),
      INVESTIGATION_FILE_MAX_BYTES: wholeNumber(
        'INVESTIGATION_FILE_MAX_BYTES',
        1,
        1_000_000_000,
        'Set it to the largest file an investigation accepts, in bytes, such as 10000000 (10 MB).',
      ),
      INVESTIGATION_MAX_STEPS: wholeNumber(
        'INVESTIGATION_MAX_STEPS',
        1,
        100,
        'Set it to the most model calls one investigation turn may make, such as 8 (each step can call tools; the last must answer).',
      ),
      KB_EMBED_BASE_URL: urlVar(
        'KB_EMBED_BASE_URL',
        ['http:', 'https:'],
        'Set it to an OpenAI-compatible API root such as https://api.openai.com/v1, or unset it to keep the hashing embedder.',
      ),
      KB_EMBED_API_KEY: envVar<string>({ name: 'KB_EMBED_API_KEY', secret: true, parse: (raw) => ({ ok: true, value: raw }) }),
      KB_EMBED_MODEL: textVar('KB_EMBED_MODEL'),
      SANDSCOPE_REPLICA: envVar<string>({
        name: 'SANDSCOPE_REPLICA',
        parse: (raw) =>
          /^[A-Za-z0-9][A-Za-z0-9._:-]{0,62}$/.test(raw)
            ? { ok: true, value: raw }
            : {
                ok: false,
                problem: `must be 1 to 63 letters, digits, dots, colons, underscores or hyphens (got ${shown(raw, false)}). Set it to this replica's name, such as its pod name, or unset it to use the host name.`,
              },
      }),
      OTEL_EXPORTER_OTLP_ENDPOINT: envVar<string>({
        name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
        parse: (raw) => {
          let protocol: string | undefined;
          try {
            protocol = new URL(raw).protocol;
          } catch {
            protocol = undefined;
          }
          return protocol === 'http:' || protocol === 'https:'
            ? { ok: true, value: raw.replace(/\/+$/, '') }
            : {
                ok: false,
                problem: `must be an http:// or https:// URL (got ${shown(raw, false)}). Set it to your OpenTelemetry collector's OTLP/HTTP base URL, such as http://otel-collector:4318, or unset it to export no traces.`,
              };
        },
      }),
      OTEL_SERVICE_NAME: textVar('OTEL_SERVICE_NAME'),
      TOOLS_DIR: textVar('TOOLS_DIR'),
      TOOLS_TEMPLATE: textVar('TOOLS_TEMPLATE'),
      KB_EMBED_TIMEOUT: envVar<number>({
        name: 'KB_EMBED_TIMEOUT',
        parse: (raw) => {
          const value = Number(raw);
          return /^(\d+\.?\d*|\.\d+)$/.test(raw) && Number.isFinite(value) && value > 0 && value <= 3600
            ? { ok: true, value }
            : {
                ok: false,
                problem: `must be a number of seconds greater than 0, at most 3600 (got ${shown(raw, false)}). Set it to how long one embedding request may take, such as 60.`,
              };
        },
      }),
      KB_EMBED_NUM_RETRIES: wholeNumber('KB_EMBED_NUM_RETRIES', 0, 10, 'Set it to how many times a failed embedding batch is retried, such as 2.'),
      KB_EMBED_BATCH_SIZE: wholeNumber('KB_EMBED_BATCH_SIZE', 1, 2048, 'Set it to how many texts one embedding request carries, such as 64.'),
      ...providerFields(),
    })
    .superRefine(
      (env, ctx) => {
        if (requireToken && env.AGENT_TOKEN === undefined) {
          ctx.addIssue({
            code: 'custom',
            message:
              `AGENT_TOKEN is required to serve (it is the bearer token every route checks). ` +
              `Set it to ${SECRET_HINT}, at least ${MIN_SECRET_CHARS} characters, and give the website the same value.`,
          });
        }
        if (env.REDIS_URL !== undefined && env.IP_SALT === undefined) {
          ctx.addIssue({
            code: 'custom',
            message:
              'IP_SALT is required when REDIS_URL is set: replicas sharing one Redis must digest client addresses ' +
              'with the same salt, or each replica counts a client separately and the rate limit multiplies. ' +
              `Set IP_SALT to ${SECRET_HINT}, the same on every replica.`,
          });
        }
        const dailySpend = env.DAILY_SPEND_CEILING_USD ?? CONFIG_DEFAULTS.dailySpendCeilingUsd;
        const runBudget = env.RUN_BUDGET_USD ?? CONFIG_DEFAULTS.runBudgetUsd;
        if (typeof dailySpend === 'number' && typeof runBudget === 'number' && runBudget > dailySpend) {
          // One run's reservation comes out of the day's money: a run budget above it could never be booked.
          ctx.addIssue({
            code: 'custom',
            message:
              `RUN_BUDGET_USD (${runBudget}) must not exceed DAILY_SPEND_CEILING_USD (${dailySpend}): each model call of a run is booked ` +
              "against the deployment's daily ceiling as well. Lower RUN_BUDGET_USD or raise DAILY_SPEND_CEILING_USD.",
          });
        }
        const ceiling = env.DAILY_TOKEN_CEILING ?? CONFIG_DEFAULTS.dailyTokenCeiling;
        if (typeof env.RUN_TOKEN_BUDGET === 'number' && typeof ceiling === 'number' && env.RUN_TOKEN_BUDGET > ceiling) {
          // Defect 1: a run reserves its budget from the daily ceiling, so a budget above the ceiling could never be reserved honestly.
          ctx.addIssue({
            code: 'custom',
            message:
              `RUN_TOKEN_BUDGET (${env.RUN_TOKEN_BUDGET}) must not exceed DAILY_TOKEN_CEILING (${ceiling}): each run reserves its budget ` +
              'from the daily ceiling when it is admitted. Lower RUN_TOKEN_BUDGET or raise DAILY_TOKEN_CEILING.',
          });
        }
        for (const known of KNOWN_PROVIDERS) {
          // The spend guard books a provider's calls at its configured prices, and an unset price is the DEFAULT model's:
          // another model left unpriced was booked at a list price that is not its own (gemini-2.5-pro at flash's, 4× low).
          const vars = providerVariables(known.name);
          const values = env as Readonly<Record<string, unknown>>;
          const model = values[vars.model];
          const on = typeof values[vars.key ?? vars.baseURL] === 'string';
          const inputSet = values[vars.inputPrice] !== undefined;
          const outputSet = values[vars.outputPrice] !== undefined;
          // A price that failed to parse holds no number and has its own message already.
          const unparsed = [vars.inputPrice, vars.outputPrice].some((name) => values[name] !== undefined && typeof values[name] !== 'number');
          if (!on || unparsed || (inputSet && outputSet)) continue;
          const free = known.pricing.inputUsdPerToken === 0 && known.pricing.outputUsdPerToken === 0;
          if (!free && typeof model === 'string' && model !== known.model) {
            ctx.addIssue({
              code: 'custom',
              message:
                `${vars.model} is ${model}, not the default ${known.model}, so ${vars.inputPrice} and ${vars.outputPrice} must be set: ` +
                `the spend guard books every call at these prices, and unset they are ${known.model}'s. ` +
                `Set both to ${model}'s list price in US dollars per million tokens, or unset ${vars.model}.`,
            });
          } else if (inputSet !== outputSet) {
            // One price alone left the other at the default model's list price without a word (the provider-router audit):
            // a negotiated input price was booked beside a list output price nobody chose. Both or neither.
            const [set, unset] = inputSet ? [vars.inputPrice, vars.outputPrice] : [vars.outputPrice, vars.inputPrice];
            ctx.addIssue({
              code: 'custom',
              message:
                `${set} is set but ${unset} is not: the spend guard books every call at both prices, and one left unset is the default model's list price. ` +
                `Set ${unset} as well, in US dollars per million tokens, or unset ${set}.`,
            });
          }
        }
        const maxBodyBytes = env.MAX_BODY_BYTES ?? CONFIG_DEFAULTS.maxBodyBytes;
        const maxQuestionChars = env.MAX_QUESTION_CHARS ?? CONFIG_DEFAULTS.maxQuestionChars;
        // Both must have parsed (a failed field holds no number) before they can be compared.
        if (supervise) {
          const port = env.PORT ?? CONFIG_DEFAULTS.port;
          const webPort = env.WEB_PORT ?? CONFIG_DEFAULTS.webPort;
          if (port === 0) {
            // An ephemeral agent port would be known only after the agent binds, and the website must be told it first.
            ctx.addIssue({
              code: 'custom',
              message: `${named('PORT')} is 0, which \`sandscope start\` cannot use: the website must be told the agent's port before either starts. Use a free port such as 7861.`,
            });
          } else if (typeof port === 'number' && port === webPort) {
            ctx.addIssue({
              code: 'custom',
              message: `${named('PORT')} and ${named('WEB_PORT')} are both ${port}: the agent and the website need a port each. Give them different free ports.`,
            });
          }
        }
        if (typeof maxBodyBytes === 'number' && typeof maxQuestionChars === 'number' && maxBodyBytes < maxQuestionChars * 4) {
          ctx.addIssue({
            code: 'custom',
            message:
              `MAX_BODY_BYTES (${maxBodyBytes}) must be at least 4 × MAX_QUESTION_CHARS (${maxQuestionChars * 4}), ` +
              'so a question of the maximum length fits in a request body (UTF-8 takes up to 4 bytes per character). ' +
              'Raise MAX_BODY_BYTES or lower MAX_QUESTION_CHARS.',
          });
        }
      },
      {
        // Run the cross-field checks even when a field failed, so one start-up attempt
        // reports every problem. A failed field is not `undefined`, so "missing" checks
        // do not fire for a variable that was set but wrong.
        when: () => true,
      },
    )
    .transform((env): AgentConfig => {
      const dataDir = env.SANDSCOPE_DATA_DIR ?? CONFIG_DEFAULTS.dataDir;
      const dailyTokenCeiling = env.DAILY_TOKEN_CEILING ?? CONFIG_DEFAULTS.dailyTokenCeiling;
      return {
        port: env.PORT ?? CONFIG_DEFAULTS.port,
        host: env.HOST ?? CONFIG_DEFAULTS.host,
        agentToken: env.AGENT_TOKEN,
        ipSalt: env.IP_SALT ?? randomBytes(32).toString('hex'),
        ipSaltSource: env.IP_SALT === undefined ? 'random' : 'env',
        database: env.DATABASE_URL === undefined ? { kind: 'pglite', dir: join(dataDir, 'pglite') } : { kind: 'postgres', url: env.DATABASE_URL },
        dataDir,
        redisUrl: env.REDIS_URL,
        redisKeyPrefix: env.REDIS_KEY_PREFIX ?? CONFIG_DEFAULTS.redisKeyPrefix,
        providers: providerConfigs(providerSettingsOf(env)),
        runBudgetUsd: env.RUN_BUDGET_USD ?? CONFIG_DEFAULTS.runBudgetUsd,
        dailySpendCeilingUsd: env.DAILY_SPEND_CEILING_USD ?? CONFIG_DEFAULTS.dailySpendCeilingUsd,
        rateLimit: {
          windowMs: env.RATE_LIMIT_WINDOW_MS ?? CONFIG_DEFAULTS.rateLimitWindowMs,
          maxRequests: env.RATE_LIMIT_MAX ?? CONFIG_DEFAULTS.rateLimitMax,
          dailyTokenCeiling,
        },
        runTokenBudget: env.RUN_TOKEN_BUDGET ?? Math.min(CONFIG_DEFAULTS.runTokenBudget, dailyTokenCeiling),
        maxBodyBytes: env.MAX_BODY_BYTES ?? CONFIG_DEFAULTS.maxBodyBytes,
        maxQuestionChars: env.MAX_QUESTION_CHARS ?? CONFIG_DEFAULTS.maxQuestionChars,
        corpusDir: env.CORPUS_DIR ?? CONFIG_DEFAULTS.corpusDir,
        website: { port: env.WEB_PORT ?? CONFIG_DEFAULTS.webPort, host: env.WEB_HOST ?? CONFIG_DEFAULTS.webHost },
        adjudication: env.ADJUDICATOR ?? 'offline',
        workspace: {
          readFileMaxLines: env.READ_FILE_MAX_LINES ?? CONFIG_DEFAULTS.readFileMaxLines,
          readFileMaxChars: env.READ_FILE_MAX_CHARS ?? CONFIG_DEFAULTS.readFileMaxChars,
          historyMaxMessages: env.HISTORY_MAX_MESSAGES ?? CONFIG_DEFAULTS.historyMaxMessages,
          historyMaxChars: env.HISTORY_MAX_CHARS ?? CONFIG_DEFAULTS.historyMaxChars,
          fileMaxBytes: env.INVESTIGATION_FILE_MAX_BYTES ?? CONFIG_DEFAULTS.investigationFileMaxBytes,
          maxSteps: env.INVESTIGATION_MAX_STEPS ?? CONFIG_DEFAULTS.investigationMaxSteps,
        },
        tools: { dir: env.TOOLS_DIR ?? join(dataDir, 'tools'), template: env.TOOLS_TEMPLATE },
        telemetry: {
          replica: env.SANDSCOPE_REPLICA ?? (hostname() || 'unnamed'),
          otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
          serviceName: env.OTEL_SERVICE_NAME ?? CONFIG_DEFAULTS.otelServiceName,
        },
        embed: {
          baseURL: env.KB_EMBED_BASE_URL,
          apiKey: env.KB_EMBED_API_KEY,
          model: env.KB_EMBED_MODEL ?? CONFIG_DEFAULTS.embedModel,
          timeoutMs: Math.round((env.KB_EMBED_TIMEOUT ?? CONFIG_DEFAULTS.embedTimeoutSeconds) * 1000),
          numRetries: env.KB_EMBED_NUM_RETRIES ?? CONFIG_DEFAULTS.embedNumRetries,
          batchSize: env.KB_EMBED_BATCH_SIZE ?? CONFIG_DEFAULTS.embedBatchSize,
        },
      };
    });
}

/**
 * Parse the agent's configuration from `env` (normally `process.env`). On failure
 * the message lists every wrong variable, one per line; print it and exit non-zero.
 */
export function loadConfig(env: Env, options: LoadConfigOptions & { readonly requireToken: true }): ConfigResult<ServeConfig>;
export function loadConfig(env: Env, options?: LoadConfigOptions): ConfigResult<AgentConfig>;
export function loadConfig(env: Env, options: LoadConfigOptions = {}): ConfigResult<AgentConfig> {
  const result = createAgentConfigSchema(options).safeParse(env);
  if (!result.success) {
    return { ok: false, message: result.error.issues.map((issue) => issue.message).join('\n') };
  }
  const config = result.data;
  const notes: string[] = [];
  if (config.ipSaltSource === 'random') {
    notes.push(
      'IP_SALT is not set: client digests use a random salt for this process only, so rate-limit counts reset on ' +
        'restart. Set IP_SALT to keep them across restarts.',
    );
  }
  return { ok: true, config, notes };
}
