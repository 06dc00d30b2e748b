import { type AdjudicationMode, HashingEmbedder, type KnowledgeBase, type Workload } from '@sandscope/engine';
import {
  candidatesFromConfigs,
  InMemoryCacheStore,
  KNOWN_PROVIDERS,
  OFFLINE_PROVIDER,
  ProviderHealth,
  SemanticCache,
  type FetchFunction,
  type RouterCandidate,
  type SecretScrubber,
  type SpendLedger,
} from '@sandscope/engine/models';
import {
  createOrchestrator,
  type Orchestrator,
  parseWorkload,
  type RunEventSink,
  type RunModelFactory,
  type RunResult,
  stackModelFactory,
} from '@sandscope/engine/orchestrator';
import { type AgentConfig, loadConfig } from './config.ts';
import { secretScrubberFor } from './secrets.ts';
import { UserError } from './user-error.ts';

/** A provider silent for longer than this fails retryably and the router moves on. */
export const PROVIDER_TIMEOUT_MS = 20_000;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The process-wide half of the model layer: the candidates in failover order,
 * the cooldowns every run shares, the semantic cache every run shares, and
 * each run's budget. Built once per process; each run builds its own stack
 * (router, guard) from it and drops it when the run ends (T-6).
 */
export interface ModelServices {
  readonly candidates: readonly RouterCandidate[];
  readonly health: ProviderHealth;
  readonly cache: SemanticCache;
  readonly budgetUsd: number;
  readonly models: RunModelFactory;
  /** ADJUDICATOR: who judges the ambiguous band. */
  readonly adjudication: AdjudicationMode;
  /** The configured secrets, as a scrubber (defect 3). */
  readonly scrub: SecretScrubber;
}

export interface ModelServicesOptions {
  readonly fetch?: FetchFunction;
  readonly timeoutMs?: number;
  /** Replace the env's providers (a test's scripted or stub-server candidates). */
  readonly candidates?: readonly RouterCandidate[];
  /**
   * The daily spend ledger `serve` books on (S-260: the CLI's priced calls were booked nowhere). The CLI opens it
   * with `openCliModelServices`; absent, only each run's RUN_BUDGET_USD bounds what is spent.
   */
  readonly ledger?: SpendLedger;
}

/**
 * The model layer for a parsed config: its providers in failover order (offline
 * last: no keys means offline), its run budget, its adjudicator. A variable that
 * is set but unusable never gets here — the config schema refused it at start-up
 * (D-007).
 */
export function modelServicesFor(config: AgentConfig, options: ModelServicesOptions = {}): ModelServices {
  const candidates =
    options.candidates ??
    candidatesFromConfigs(config.providers, { fetch: options.fetch ?? globalThis.fetch, timeoutMs: options.timeoutMs ?? PROVIDER_TIMEOUT_MS });
  const health = new ProviderHealth();
  const cache = new SemanticCache({ store: new InMemoryCacheStore(), embedder: new HashingEmbedder() });
  // Defect 3: the CLI prints provider failures too; the configured keys are scrubbed from them.
  const scrub = secretScrubberFor(config);
  const budgetUsd = config.runBudgetUsd;
  const adjudication = config.adjudication;
  const ledger = options.ledger ? { ledger: options.ledger } : {};
  return { candidates, health, cache, budgetUsd, adjudication, scrub, models: stackModelFactory({ candidates, health, cache, budgetUsd, scrub, ...ledger }) };
}

/**
 * The CLI's edge: `env` (normally `process.env`) through the agent's one config
 * schema, then modelServicesFor. A wrong variable is a UserError naming it.
 */
export function modelServicesFromEnv(env: Env, options: ModelServicesOptions = {}): ModelServices {
  const parsed = loadConfig(env);
  if (!parsed.ok) throw new UserError(parsed.message.split('\n').join(' | '));
  return modelServicesFor(parsed.config, options);
}

/** Provider names a run may ask to fail: every known provider, configured or not, and the offline model. */
export const INJECTABLE_PROVIDERS: readonly string[] = [...KNOWN_PROVIDERS.map((p) => p.name), OFFLINE_PROVIDER.name];

export interface RunAgentOptions {
  readonly kb: KnowledgeBase;
  readonly question: string;
  /** A workload id, or user input to be parsed (default triage). */
  readonly workload?: Workload | string;
  /** Providers to fail for this run only (T-6). */
  readonly failProviders?: readonly string[];
  /** This run's event observer (the CLI's --trace, an SSE stream). */
  readonly sink?: RunEventSink;
  /** Default: built once per process from `env`. */
  readonly services?: ModelServices;
  readonly env?: Env;
}

/**
 * A provider name `--fail-provider` (or a run's failProviders) does not know is a UserError naming the choices; given
 * the providers this deployment configured, so is one it has not configured (S-268, `unconfiguredToFail`).
 */
export function checkFailProviders(names: readonly string[], configured?: readonly string[]): void {
  const unknown = names.filter((p) => !INJECTABLE_PROVIDERS.includes(p));
  if (unknown.length > 0) {
    throw new UserError(
      `unknown provider${unknown.length === 1 ? '' : 's'} ${unknown.map((p) => `"${p}"`).join(', ')} to fail. Choose from: ${INJECTABLE_PROVIDERS.join(', ')}.`,
    );
  }
  const unconfigured = configured ? unconfiguredToFail(names, configured, '--fail-provider') : undefined;
  if (unconfigured) throw new UserError(unconfigured);
}

/**
 * S-268: a run asked to fail a known provider this deployment has not configured (`mistral` with no MISTRAL_API_KEY)
 * failed nothing — its router never calls that provider — and was served as any other run, from the shared cache when
 * the question had been asked (a run that does fail a provider skips the cache, T-6): the outage it asked to see was
 * simulated nowhere, and nothing said so. Such a request is refused, naming what could be failed. Undefined when every
 * name is configured.
 */
export function unconfiguredToFail(names: readonly string[], configured: readonly string[], field: string): string | undefined {
  const off = [...new Set(names.filter((p) => !configured.includes(p)))];
  if (off.length === 0) return undefined;
  const one = off.length === 1;
  return `${field} names ${off.join(', ')}, which ${one ? 'is' : 'are'} not configured here, so failing ${one ? 'it' : 'them'} would change nothing. Configured: ${configured.join(', ')}.`;
}

let defaultServices: ModelServices | undefined;
const orchestrators = new WeakMap<KnowledgeBase, WeakMap<ModelServices, Orchestrator>>();

/** One compiled graph per knowledge base and model layer: built on first use, reused by every run after. */
export function orchestratorFor(kb: KnowledgeBase, services: ModelServices): Orchestrator {
  let byServices = orchestrators.get(kb);
  if (!byServices) orchestrators.set(kb, (byServices = new WeakMap()));
  let orchestrator = byServices.get(services);
  if (!orchestrator) byServices.set(services, (orchestrator = createOrchestrator({ kb, models: services.models, adjudication: services.adjudication })));
  return orchestrator;
}

/**
 * Runs one question through the whole graph: the composition root's one entry
 * for the CLI and the HTTP service. Bad input (an unknown workload or provider
 * name) is a UserError with a one-line message.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const workload = parseWorkload(options.workload);
  if (!workload.ok) throw new UserError(workload.message);
  checkFailProviders(options.failProviders ?? []);
  const services = options.services ?? (defaultServices ??= modelServicesFromEnv(options.env ?? process.env));
  checkFailProviders(
    options.failProviders ?? [],
    services.candidates.map((c) => c.name),
  );
  return orchestratorFor(options.kb, services).run({
    question: options.question,
    workload: workload.workload,
    ...(options.failProviders ? { failProviders: options.failProviders } : {}),
    ...(options.sink ? { onEvent: options.sink } : {}),
  });
}
