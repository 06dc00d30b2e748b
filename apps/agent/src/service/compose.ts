import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Estate, HashingEmbedder, indexText, type KnowledgeBase } from '@sandscope/engine';
import {
  type CacheStore,
  candidatesFromConfigs,
  type FetchFunction,
  OFFLINE_PROVIDER,
  ProviderHealth,
  type RouterCandidate,
  type SecretScrubber,
  SemanticCache,
  type SpendLedger,
} from '@sandscope/engine/models';
import { createOrchestrator, type GraphDescription, type Orchestrator, stackModelFactory } from '@sandscope/engine/orchestrator';
import { loadCorpus, markInterrupted, startStore, type Store, StoreError } from '@sandscope/store';
import { type OpenedCacheStore, openCacheStore } from '../cache/open-cache-store.ts';
import { CONFIG_DEFAULTS, type ServeConfig } from '../config.ts';
import { type CorpusSource, DEFAULT_CORPUS_DIR, loadCorpusSource } from '../corpus-source.ts';
import { EMPTY_ESTATE, startKnowledgeBase } from '../knowledge-base-start.ts';
import { wordNet } from '../wordnet.ts';
import { wordVectors } from '../word-vectors.ts';
import { InProcessLimiter } from '../limits/in-process-limiter.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import { RedisLimiter } from '../limits/redis-limiter.ts';
import { checkRedisDatabase } from '../limits/redis-database.ts';
import { checkRedisPassword } from '../limits/redis-password.ts';
import { agreeOnSpendLedger } from '../spend/ledger-agreement.ts';
import { type OpenedSpendLedger, openSpendLedger } from '../spend/open-spend-ledger.ts';
import { PROVIDER_TIMEOUT_MS } from '../run-agent.ts';
import { secretScrubberFor } from '../secrets.ts';
import { UserError } from '../user-error.ts';
import { buildCorpusView, type CorpusView } from './corpus-catalog.ts';
import { type EvalLatestView, readLatestEvaluation } from './eval-latest.ts';
import { FeedbackService } from './feedback-service.ts';
import { fileEmbedderOf } from './file-embedder-of.ts';
import { InvestigationService } from './investigation-service.ts';
import { sandboxToolsOf } from '../sandbox/sandbox-tools-of.ts';
import { checkHealth, type HealthReport } from './health.ts';
import { ServiceMetrics } from './metrics.ts';
import { NO_RUN_TELEMETRY, otlpRunTelemetry, type RunTelemetry } from '../telemetry/otlp-tracing.ts';
import { RunReader } from './run-reader.ts';
import { type RunExecutor, RunService } from './run-service.ts';
import { RunsInFlight } from './runs-in-flight.ts';

/** How often a replica looks for runs left 'running' by a replica that stopped (their owner's lease gone). */
export const RECOVERY_SWEEP_MS = 30_000;

/** The repository's committed evaluation report, read when no eval_run row exists yet. */
export const DEFAULT_EVALUATION_REPORT = resolve(import.meta.dirname, '../../../../docs/evaluation.json');

export interface AgentServiceOptions {
  /** Parsed once by loadConfig (STYLE 9). */
  readonly config: ServeConfig;
  /** Start-up and server-side failure lines; default: stderr. */
  readonly log?: (line: string) => void;
  /** An open store to use instead of opening one (tests share one PGlite); not closed by close(). */
  readonly store?: Store;
  readonly corpus?: CorpusSource;
  /** Router candidates in failover order instead of the environment's (a test's stub servers). */
  readonly candidates?: readonly RouterCandidate[];
  readonly fetch?: FetchFunction;
  readonly providerTimeoutMs?: number;
  /** A limiter instead of the one REDIS_URL selects (a test's failing limiter). */
  readonly limiter?: RateLimiter;
  /** Where the semantic cache keeps entries instead of the one REDIS_URL or the store selects (a test's in-memory or failing store). */
  readonly cacheStore?: CacheStore;
  /** The daily spend ledger instead of the one REDIS_URL or the store selects (a test's failing ledger). */
  readonly spendLedger?: SpendLedger;
  /** Wraps the orchestrator (a test injecting events); default: the orchestrator itself. */
  readonly executor?: (orchestrator: Orchestrator) => RunExecutor;
  readonly evaluationReport?: string;
}

/** The composed agent: everything the HTTP app needs, built once per process. */
export interface AgentService {
  readonly config: ServeConfig;
  readonly store: Store;
  readonly kb: KnowledgeBase;
  readonly orchestrator: Orchestrator;
  readonly runs: RunService;
  /**
   * The runs and investigation turns this replica is carrying (S-258, S-269): what a shutdown stops, each recorded
   * interrupted and its client told, before anything they write to closes.
   */
  readonly inFlight: RunsInFlight;
  readonly reader: RunReader;
  readonly feedback: FeedbackService;
  /** The investigation workspace (issue 10). */
  readonly investigations: InvestigationService;
  readonly limiter: RateLimiter;
  /** The deployment's daily spend ceiling, shared by every replica (DAILY_SPEND_CEILING_USD). */
  readonly spendLedger: SpendLedger;
  readonly metrics: ServiceMetrics;
  readonly candidates: readonly RouterCandidate[];
  readonly providerHealth: ProviderHealth;
  readonly corpus: CorpusView;
  readonly estate: Estate | null;
  readonly graph: GraphDescription;
  /** What start-up printed: where the data lives and which parts are degraded. */
  readonly startup: readonly string[];
  /** This deployment's configured secrets, as a scrubber: the HTTP layer scrubs its log with it (issue 12, defect 3). */
  readonly scrub: SecretScrubber;
  health(): Promise<HealthReport>;
  latestEvaluation(): Promise<EvalLatestView | null>;
  /**
   * Stops the runs and turns still going (`inFlight`: each recorded interrupted, its client told, its reservations
   * settled), then releases the limiter, the spend ledger and (if it opened it) the store: the lease goes, so a
   * restart can recover.
   */
  close(): Promise<void>;
}

/**
 * The composition root's start-up, in the order that makes it correct:
 * corpus → store (migrate, lease, recover interrupted runs) → knowledge base
 * (from the store's index snapshot for this corpus version and index code, else
 * built and saved: no replica keeps state on local disk another would need,
 * NFR-005) → corpus and estate into the tables → limiter → providers,
 * process-wide cooldowns and cache → orchestrator → run service.
 *
 * Every failure a person can fix is a UserError naming what to change.
 */
export async function startAgentService(options: AgentServiceOptions): Promise<AgentService> {
  const { config } = options;
  // Defect 3: every secret configured anywhere is scrubbed from what is stored, sent and logged.
  const scrub = secretScrubberFor(config);
  const rawLog = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (line: string) => rawLog(scrub(line));
  const startup: string[] = [];
  const say = (line: string) => {
    startup.push(scrub(line));
    log(line);
  };

  // Seed #21: a wrong TOOLS_TEMPLATE stops start-up here, before the store opens; a missing jail is said, and no tool is offered.
  const sandboxTools = sandboxToolsOf(config);
  say(sandboxTools.note);

  // A skipped file (defect 10: a binary `.md`) is named in the start-up lines, not only on stderr.
  const source = options.corpus ?? loadCorpusSource(corpusDirOf(config), { warn: say });
  const candidates =
    options.candidates ??
    candidatesFromConfigs(config.providers, { fetch: options.fetch ?? globalThis.fetch, timeoutMs: options.providerTimeoutMs ?? PROVIDER_TIMEOUT_MS });
  // WordNet's index is built on first use (about a second) and the word vectors decoded (5 MB): pay both
  // before the service is ready, not on the first question someone asks.
  wordNet().related('');
  wordVectors();

  // S-256: a Redis database the server does not have stops the start here, before anything writes database 0.
  // S-275: so does a password it refuses, which every part would otherwise read as an outage and wait out.
  if (config.redisUrl) {
    await checkRedisPassword(config.redisUrl);
    await checkRedisDatabase(config.redisUrl);
  }
  const ownsStore = options.store === undefined;
  const store = options.store ?? (await openStore(config, log));
  let limiter: RateLimiter | undefined;
  let cacheStore: OpenedCacheStore | undefined;
  let spendLedger: OpenedSpendLedger | undefined;
  let telemetry: RunTelemetry | undefined;
  try {
    say(`database: ${store.db.description}`);
    say(
      store.vectorSearch === 'pgvector'
        ? 'vector search: pgvector'
        : 'vector search: in-process (DEGRADED: this database has no pgvector extension; chunk similarity is computed in the agent)',
    );
    if (store.interruptedRunIds.length > 0) {
      say(`recovery: ${store.interruptedRunIds.length} run(s) left running by a stopped process marked interrupted`);
    }
    // S-274: a replica that would book the daily spend elsewhere than the live ones stops here, before the corpus loads.
    if (!options.spendLedger) await agreeOnSpendLedger(store, config);

    // Issue 11: from the index snapshot in the store when one matches this corpus and this index code, else built and saved.
    const started = await startKnowledgeBase(store.db, source);
    const kb = started.kb;
    say(started.note);
    // The respelling index reads the whole library (S-174): built here, not on the first mistyped question.
    kb.prepareRespelling();

    const embedder = new HashingEmbedder();
    const report = await loadCorpus(store.db, source.documents, kb.chunks, source.estate ?? EMPTY_ESTATE, {
      embedderId: embedder.id,
      vectors: await embedder.embed(kb.chunks.map(indexText)),
    });
    say(
      `corpus: ${source.documents.length} documents, ${kb.chunks.length} passages from ${source.root} (version ${kb.version}); ` +
        `${source.estate ? `estate of ${source.estate.services.length} services` : 'no estate.json'}; ` +
        `tables: ${report.chunks.changed} passages written, ${report.chunks.removed} removed, ${report.chunks.retained} kept for citations`,
    );
    if (kb.hazards.size > 0) {
      say(
        `corpus: ${kb.hazards.size} passage(s) hold text addressed to a model or active markup; it is never quoted (${[...kb.hazards.keys()].slice(0, 3).join(', ')}${kb.hazards.size > 3 ? ', …' : ''})`,
      );
    }

    const limiterKind = options.limiter ? 'injected' : config.redisUrl ? 'redis' : 'in-process';
    limiter = options.limiter ?? (await limiterFor(config, log));
    say(
      `limiter: ${limiterKind === 'redis' ? 'Redis (shared by every replica)' : limiterKind === 'injected' ? 'supplied by the caller' : 'in-process (one replica only)'}, ` +
        `${config.rateLimit.maxRequests} runs per ${config.rateLimit.windowMs} ms and ${config.rateLimit.dailyTokenCeiling} tokens per UTC day per client`,
    );

    // Seed #15: uploaded files go through the remote embedder when KB_EMBED_BASE_URL is set; otherwise the hashing
    // embedder embeds them in-process (the investigation service's default) and no service is called.
    const fileEmbedder = fileEmbedderOf(config, options.fetch ?? globalThis.fetch);
    say(
      fileEmbedder
        ? `file embedder: ${fileEmbedder.id}, batches of ${fileEmbedder.batchSize}, ${fileEmbedder.timeoutMs / 1000} s per attempt, ${fileEmbedder.numRetries} retries`
        : `file embedder: ${embedder.id} (in-process; set KB_EMBED_BASE_URL for a remote one)`,
    );
    const providerHealth = new ProviderHealth();
    cacheStore = await openCacheStore(config, store, { ...(options.cacheStore ? { injected: options.cacheStore } : {}), log });
    say(`semantic cache: ${cacheStore.description}`);
    const cache = new SemanticCache({ store: cacheStore.store, embedder });
    spendLedger = await spendLedgerFor(config, store, options.spendLedger, log);
    const ledger = spendLedger.ledger;
    // Issue 12, defect 1: each run is held to the tokens the HTTP layer reserves for it (RUN_TOKEN_BUDGET).
    const models = stackModelFactory({
      candidates,
      health: providerHealth,
      cache,
      budgetUsd: config.runBudgetUsd,
      runTokenBudget: config.runTokenBudget,
      scrub,
      ledger,
    });
    say(
      `providers (failover order): ${candidates.map((c) => `${c.name} (${c.model.modelId})`).join(' > ')}; ` +
        `budget $${config.runBudgetUsd} and ${config.runTokenBudget} tokens per run; ` +
        `$${ledger.declaredCeilingUsd ?? ledger.ceilingUsd} per UTC day for the deployment, booked in ${ledger.description}`,
    );

    if (config.adjudication === 'model') {
      // With only the offline model, every judgement falls back to the offline decision (ADR-0007): the setting
      // would do nothing, silently. Said at start-up, not discovered later in a run's trace.
      const judges = candidates.filter((c) => c.name !== OFFLINE_PROVIDER.name).map((c) => c.name);
      say(
        judges.length
          ? `adjudicator: an LLM (${judges.join(' > ')}) judges the questions the answerability model is unsure of (ADJUDICATOR=model)`
          : 'adjudicator: ADJUDICATOR=model, but no provider is configured, so the questions the answerability model is unsure of are decided offline. Set a provider key (e.g. GROQ_API_KEY) or OLLAMA_BASE_URL, or unset ADJUDICATOR.',
      );
    }
    const orchestrator = createOrchestrator({ kb, models, adjudication: config.adjudication });
    const metrics = new ServiceMetrics({ replica: config.telemetry.replica });
    // Issue 11 section 4: traces leave the process only when a collector is configured, and only what the allowlist keeps.
    telemetry = config.telemetry.otlpEndpoint
      ? otlpRunTelemetry({ endpoint: config.telemetry.otlpEndpoint, serviceName: config.telemetry.serviceName, replica: config.telemetry.replica })
      : NO_RUN_TELEMETRY;
    say(`telemetry: /metrics with replica="${config.telemetry.replica}"; traces ${telemetry.description}`);
    // One registry for runs and investigation turns (S-269): a turn was not in it, so a shutdown cut it after the store closed.
    const inFlight = new RunsInFlight();
    const runs = new RunService({
      inFlight,
      db: store.db,
      lease: store.lease,
      kb,
      executor: options.executor ? options.executor(orchestrator) : orchestrator,
      metrics,
      log,
      scrub,
      telemetry,
    });
    const reader = new RunReader({ db: store.db, budgetUsd: config.runBudgetUsd, scrub, ownerId: store.lease.ownerId });
    // Issue 11 section 2: a replica killed mid-run leaves runs 'running'; every live replica sweeps for them
    // (those whose owner's lease is gone), so nobody has to read them or restart a replica to see them interrupted.
    const sweep = setInterval(() => {
      void markInterrupted(store.db, { ownerId: store.lease.ownerId })
        .then((ids) => {
          if (ids.length > 0) log(`recovery: ${ids.length} run(s) of a stopped replica marked interrupted`);
        })
        .catch(() => {});
    }, RECOVERY_SWEEP_MS);
    sweep.unref();
    const evaluationReport = options.evaluationReport ?? DEFAULT_EVALUATION_REPORT;
    const ready = limiter;
    const health = () =>
      checkHealth({
        db: store.db,
        lease: store.lease,
        vectorSearch: store.vectorSearch,
        limiter: ready,
        limiterKind,
        kb,
        candidates,
        providerHealth,
        spendLedger: ledger,
      });
    const degraded = Object.entries((await health()).parts).filter(([, p]) => p.status !== 'ok');
    say(degraded.length === 0 ? 'health: ok' : `health: DEGRADED — ${degraded.map(([name, p]) => `${name}: ${p.detail}`).join('; ')}`);

    let closed = false;
    const openCache = cacheStore;
    const openLedger = spendLedger;
    const openTelemetry = telemetry;
    return {
      config,
      store,
      kb,
      orchestrator,
      runs,
      inFlight,
      reader,
      feedback: new FeedbackService(store.db, { scrub, cache: cacheStore.store, log, chunks: kb.chunks }),
      investigations: new InvestigationService({
        inFlight,
        db: store.db,
        kb,
        settings: { ...config.workspace, maxMessageChars: config.maxQuestionChars },
        models: { candidates, health: providerHealth, budgetUsd: config.runBudgetUsd, tokenCeiling: config.runTokenBudget, scrub, ledger },
        ...(fileEmbedder ? { embedder: fileEmbedder } : {}),
        ...(sandboxTools.option ? { sandbox: sandboxTools.option } : {}),
      }),
      limiter: ready,
      spendLedger: ledger,
      metrics,
      candidates,
      providerHealth,
      corpus: buildCorpusView(source, kb),
      estate: source.estate,
      graph: orchestrator.describe(),
      startup,
      scrub,
      health,
      latestEvaluation: () => readLatestEvaluation(store.db, evaluationReport, log),
      async close() {
        if (closed) return;
        closed = true;
        // S-258, S-269: before anything a run or a turn writes to closes. `serve` has stopped them already when its grace ended.
        const { unfinished } = await inFlight.stop();
        if (unfinished > 0) log(`shutdown: ${unfinished} stopped run(s) or turn(s) had not ended in time; another replica marks their runs interrupted`);
        clearInterval(sweep);
        await ready.close().catch(() => {});
        await openCache.close().catch(() => {});
        await openLedger.close().catch(() => {});
        // Buffered spans are exported before the process goes (a collector that does not answer costs them, not the exit).
        await openTelemetry.shutdown().catch(() => {});
        if (ownsStore) await store.close();
      },
    };
  } catch (error) {
    await limiter?.close().catch(() => {});
    await cacheStore?.close().catch(() => {});
    await spendLedger?.close().catch(() => {});
    await telemetry?.shutdown().catch(() => {});
    if (ownsStore) await store.close().catch(() => {});
    throw error;
  }
}

/** CORPUS_DIR as given; the default `corpus` falls back to the repository's corpus when run from another directory. */
function corpusDirOf(config: ServeConfig): string {
  if (config.corpusDir === CONFIG_DEFAULTS.corpusDir && !existsSync(resolve(config.corpusDir))) return DEFAULT_CORPUS_DIR;
  return config.corpusDir;
}

async function openStore(config: ServeConfig, log: (line: string) => void): Promise<Store> {
  // Defect 4: the lease's losses and renewals, and runs an outage cut short, go to the server log.
  const lease = { log };
  try {
    return config.database.kind === 'postgres'
      ? await startStore({ url: config.database.url, lease })
      : await startStore({ dataDir: config.database.dir, lease });
  } catch (error) {
    if (error instanceof StoreError) throw new UserError(`${error.message}. ${error.remedy}`);
    throw error;
  }
}

/**
 * REDIS_URL → the shared limiter; else in-process. A Redis that is down at
 * start-up does not stop the service: requests are refused (503) until it is
 * reachable, and admitted again without a restart (fail closed, not dead).
 */
async function limiterFor(config: ServeConfig, log: (line: string) => void): Promise<RateLimiter> {
  if (!config.redisUrl) return new InProcessLimiter(config.rateLimit);
  let reported = false;
  const limiter = new RedisLimiter({
    ...config.rateLimit,
    url: config.redisUrl,
    keyPrefix: `${config.redisKeyPrefix}limit:`,
    onConnectionError: (error) => {
      if (reported) return;
      reported = true;
      log(`limiter: Redis connection failed (${error.message}); runs are refused with 503 until it is reachable`);
    },
  });
  await limiter
    .ready()
    .catch((error: unknown) => log(`limiter: ${error instanceof Error ? error.message : String(error)}; runs are refused with 503 until Redis is reachable`));
  return limiter;
}

/** The daily spend ledger: a test's, or the one REDIS_URL or the store selects (openSpendLedger, which the CLI opens too: S-260). */
async function spendLedgerFor(config: ServeConfig, store: Store, injected: SpendLedger | undefined, log: (line: string) => void): Promise<OpenedSpendLedger> {
  if (injected) return { ledger: injected, close: async () => {} };
  return openSpendLedger(config, store.db, log);
}
