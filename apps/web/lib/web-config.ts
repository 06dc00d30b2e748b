import { DEFAULT_AGENT_PORT, DEFAULT_HOST, DEFAULT_WEB_PORT } from '@sandscope/api/defaults';
import { z } from 'zod';
import { parseTrustedProxies, type TrustedProxies } from './client-address';

/*
 * The website deployable's configuration: ONE zod schema over its environment
 * (STYLE 9), the only place the website reads a variable. `server.mts` parses it
 * at start-up and refuses to start on a wrong value; `lib/agent.ts` reads it per
 * request (so `next dev`, which has no start-up of ours, still names the problem
 * on the page). Server-side only: it names AGENT_TOKEN, and T-12 keeps that name
 * and its value out of every client bundle (tests/bundle.test.ts).
 */
if (typeof window !== 'undefined') {
  throw new Error('lib/web-config.ts is server-only: it reads the agent token.');
}

export interface WebConfig {
  /** AGENT_URL — where the agent lives (default http://127.0.0.1:7860; `npm start` passes the port it chose). */
  readonly agentUrl: URL;
  /** AGENT_TOKEN — the agent's bearer token; the same value the agent was started with. */
  readonly agentToken: string;
  /** TRUSTED_PROXIES — proxies whose forwarding headers are believed; none by default (issue 12, defect 2). */
  readonly trustedProxies: TrustedProxies;
  /**
   * WEB_PORT, WEB_HOST (or server.mts's --port, --host) — where the website listens; 127.0.0.1:3000 by default.
   * Loopback unless opened on purpose: whoever reaches the website asks with the agent's token.
   */
  readonly listen: { readonly port: number; readonly host: string };
}

export type WebConfigVariable = 'AGENT_URL' | 'AGENT_TOKEN' | 'TRUSTED_PROXIES' | 'WEB_PORT' | 'WEB_HOST';

export type WebConfigResult =
  | { readonly ok: true; readonly config: WebConfig }
  | { readonly ok: false; readonly problems: readonly { readonly variable: WebConfigVariable; readonly message: string }[] };

export const DEFAULT_AGENT_URL = `http://${DEFAULT_HOST}:${DEFAULT_AGENT_PORT}`;
export const DEFAULT_LISTEN = { port: DEFAULT_WEB_PORT, host: DEFAULT_HOST } as const;

const schema = z.object({
  AGENT_URL: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = raw?.trim() || DEFAULT_AGENT_URL;
      try {
        return new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: `AGENT_URL is not a URL. Set it to the agent’s base URL, e.g. ${DEFAULT_AGENT_URL}.` });
        return z.NEVER;
      }
    }),
  AGENT_TOKEN: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = raw?.trim() ?? '';
      if (value) return value;
      ctx.addIssue({
        code: 'custom',
        message: 'The website has no AGENT_TOKEN. Set AGENT_TOKEN in the website’s environment to the same value the agent uses, then restart the website.',
      });
      return z.NEVER;
    }),
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const parsed = parseTrustedProxies(raw ?? '');
      if (parsed.ok) return parsed.proxies;
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    }),
  WEB_PORT: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = raw?.trim() ?? '';
      if (value === '') return DEFAULT_LISTEN.port;
      const port = Number(value);
      if (/^\d+$/.test(value) && port >= 1 && port <= 65_535) return port;
      ctx.addIssue({
        code: 'custom',
        message: `WEB_PORT (or --port) must be a whole number from 1 to 65535 (got ${JSON.stringify(value)}). Set it to a free TCP port such as 3000.`,
      });
      return z.NEVER;
    }),
  WEB_HOST: z
    .string()
    .optional()
    .transform((raw) => raw?.trim() || DEFAULT_LISTEN.host),
});

/** Parse the website's configuration from `env` (normally `process.env`); every wrong variable is named. */
export function loadWebConfig(env: Readonly<Record<string, string | undefined>>): WebConfigResult {
  const { AGENT_URL, AGENT_TOKEN, TRUSTED_PROXIES, WEB_PORT, WEB_HOST } = env;
  const result = schema.safeParse({ AGENT_URL, AGENT_TOKEN, TRUSTED_PROXIES, WEB_PORT, WEB_HOST });
  if (result.success) {
    const data = result.data;
    return {
      ok: true,
      config: {
        agentUrl: data.AGENT_URL,
        agentToken: data.AGENT_TOKEN,
        trustedProxies: data.TRUSTED_PROXIES,
        listen: { port: data.WEB_PORT, host: data.WEB_HOST },
      },
    };
  }
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({ variable: issue.path[0] as WebConfigVariable, message: issue.message })),
  };
}

/**
 * The website's configuration from this process's environment — the one place
 * the website reads it — with `overrides` (server.mts's flags) on top.
 */
export function currentWebConfig(overrides: Readonly<Record<string, string | undefined>> = {}): WebConfigResult {
  // An override left undefined (a flag not given) must not hide the environment's value: `--port` absent
  // means WEB_PORT decides, not that nothing does.
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return loadWebConfig({ ...process.env, ...given });
}
