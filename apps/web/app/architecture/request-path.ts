/**
 * The request path the architecture page draws. Each hop names the files that
 * implement it as repository paths; a path ending in `/` names a folder. The
 * source page (`/architecture/source/…`) shows these files and no others
 * besides the graph's, so this list is also its allowlist.
 */
export interface Hop {
  readonly name: string;
  readonly what: string;
  readonly files: readonly string[];
  readonly secret?: string;
}

export const REQUEST_PATH: readonly Hop[] = [
  {
    name: 'Browser',
    what: 'Pages and forms. Holds no credentials and never talks to the agent.',
    files: ['apps/web/app/page.tsx', 'apps/web/app/_console/console-form.tsx'],
  },
  {
    name: 'Website server (BFF)',
    what: 'Route handlers and server components: the only code that knows where the agent lives and holds its token.',
    files: ['apps/web/app/api/runs/route.ts', 'apps/web/app/api/runs/[id]/approve/route.ts', 'apps/web/lib/agent.ts'],
    secret: 'holds the agent token',
  },
  {
    name: 'Agent service',
    what: 'HTTP API with server-sent events: bearer token, rate limits (fail closed), session cookie, one run per request.',
    files: ['apps/agent/src/http/', 'apps/agent/src/limits/limit-middleware.ts'],
  },
  { name: 'Graph', what: 'One compiled graph for every workload; drawn below from the running agent.', files: ['packages/engine/src/orchestrator/'] },
  {
    name: 'Store and models',
    what: 'Runs, spans, citations and spend in Postgres (embedded PGlite by default); models behind a failover router and a spend guard.',
    files: ['packages/store/src/store.ts', 'packages/engine/src/models/router.ts', 'packages/engine/src/models/spend-guard.ts'],
  },
];
