import { randomUUID } from 'node:crypto';
import type { KnowledgeBase, Workload } from '@sandscope/engine';
import { scrubDeep, type SecretScrubber } from '@sandscope/engine/models';
import { createApprovalRun, type NodeEvent, type RunInput, type RunResult } from '@sandscope/engine/orchestrator';
import {
  claimApproval,
  completeRun,
  createRun,
  type Database,
  finishRun,
  getApproval,
  getRunRecord,
  interruptRuns,
  type OwnerLease,
  type Queryable,
  StoreError,
} from '@sandscope/store';
import type { ServiceMetrics } from './metrics.ts';
import { RunRecorder, type RunStreamSink } from './run-recorder.ts';
import { type ProviderEventView, runResultView, type RunResultView } from './run-views.ts';
import { ReplicaStoppingError, RunsInFlight } from './runs-in-flight.ts';
import { echoed, ServiceError } from './service-error.ts';
import { RUN_SPAN_ATTRIBUTES } from './span-attributes.ts';
import { NO_RUN_TELEMETRY, type RunTelemetry, type RunTrace } from '../telemetry/otlp-tracing.ts';

/** What executes the graph for one run: the Orchestrator in production, a wrapper around it in a test. */
export interface RunExecutor {
  run(input: RunInput): Promise<RunResult>;
}

export interface RunServiceOptions {
  readonly db: Database;
  /**
   * This process's lease: its id is recorded on every run it executes, so
   * recovery can tell whose runs died; it is asked before a run is admitted,
   * and told of runs an outage cut short (issue 12, defect 4).
   */
  readonly lease: Pick<OwnerLease, 'ownerId' | 'assertHeld' | 'interruptWhenReachable'>;
  readonly kb: KnowledgeBase;
  readonly executor: RunExecutor;
  readonly metrics: ServiceMetrics;
  /** Span attribute allowlist (T-16). Default RUN_SPAN_ATTRIBUTES. */
  readonly spanAttributes?: readonly string[];
  /** Server-side log for failures (never sent to a client). */
  readonly log?: (line: string) => void;
  /**
   * Configured secrets (secrets.ts), scrubbed from everything a run stores or
   * returns: the question, events, the result, a failure's message (issue 12, defect 3).
   */
  readonly scrub?: SecretScrubber;
  /**
   * Where each run's trace goes besides the store (OTEL_EXPORTER_OTLP_ENDPOINT,
   * issue 11 section 4): fed only the spans the recorder stored, after the
   * allowlist and the scrubber. Default: none.
   */
  readonly telemetry?: RunTelemetry;
  /**
   * The replica's runs and turns in flight (S-269: one registry, which the investigation service shares, so a
   * shutdown stops both); default: one of the service's own.
   */
  readonly inFlight?: RunsInFlight;
}

export interface AdmitRunInput {
  readonly question: string;
  readonly workload: Workload;
  /** Providers to fail for this run only (T-6): they reach this run's router and nothing else. */
  readonly failProviders?: readonly string[];
  /** The `sandscope_session` cookie: scopes approvals (T-17), not authentication. */
  readonly sessionId: string;
}

export interface StartRunInput extends AdmitRunInput {
  /** Told each node and provider event after it is stored. */
  readonly onEvent?: RunStreamSink;
}

/** A run the store has accepted — its row exists, `running` — and that has not started yet. */
export interface AdmittedRun {
  readonly runId: string;
  /**
   * Runs it once; resolves when its outcome is recorded. `onEvent` is told each event after it is stored. An aborted
   * `signal` stops it (S-258): it is recorded interrupted and rejects with the signal's reason (ReplicaStoppingError).
   */
  execute(onEvent?: RunStreamSink, signal?: AbortSignal): Promise<RunResultView>;
  /**
   * Runs `work` — the caller's whole handling of this run: executing it, telling its client, settling what was
   * reserved for it — as one of the replica's runs in flight (RunService.stop), with the signal that stops it.
   */
  hold<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/**
 * A run stopped because its replica is shutting down (S-258), after it was
 * recorded interrupted. Carries what its calls were served, so the tokens
 * reserved for it are settled to what it used.
 */
export class RunStoppedError extends ReplicaStoppingError {
  constructor(
    readonly runId: string,
    /** The run's provider events as stored: the `served` ones say what it used. */
    readonly providerEvents: readonly ProviderEventView[],
  ) {
    super(`Run ${runId} was stopped before it finished and is recorded interrupted.`);
  }
}

/** Why a run a shutdown stopped reads `interrupted` (S-258). */
export const INTERRUPTED_BY_SHUTDOWN = 'interrupted: its agent replica shut down before the run finished';

export interface ApproveInput {
  readonly runId: string;
  readonly sessionId: string;
}

/** Tokens a run consumed from providers (the daily ceiling's unit, T-1). */
export function tokensOf(result: Pick<RunResult, 'attempts'>): { tokensIn: number; tokensOut: number } {
  let tokensIn = 0;
  let tokensOut = 0;
  for (const a of result.attempts) {
    tokensIn += a.tokensIn;
    tokensOut += a.tokensOut;
  }
  return { tokensIn, tokensOut };
}

/**
 * Runs questions through the graph and keeps the record of each: the run row is
 * created FIRST, every event is written as it happens (RunRecorder, a flush at
 * a time), and the claims, with a citation row per passage (a foreign key to the
 * chunk), and the outcome are written together before the result is returned. A run that throws is
 * finished as `failed` — or, cut short by a database outage, `interrupted` once
 * the database is back — never left `running` by a live process.
 */
export class RunService {
  readonly #o: RunServiceOptions;
  readonly #allow: readonly string[];
  readonly #scrub: SecretScrubber;
  readonly #inFlight: RunsInFlight;

  constructor(options: RunServiceOptions) {
    this.#o = options;
    this.#inFlight = options.inFlight ?? new RunsInFlight();
    this.#allow = options.spanAttributes ?? RUN_SPAN_ATTRIBUTES;
    this.#scrub = options.scrub ?? ((text) => text);
  }

  /** Admits the run and executes it: what a caller that needs no answer before the run starts uses. */
  async start(input: StartRunInput): Promise<RunResultView> {
    const run = await this.admit(input);
    return run.hold((signal) => run.execute(input.onEvent, signal));
  }

  /**
   * The store's half of starting a run, done before anything is promised to a
   * client. Issue 12, defect 4: the stream used to open (200) and only then
   * find the database gone, ending in `internal` with a run left `running`.
   * Admission asks the lease and writes the run row; while either fails it
   * throws StoreError database_unreachable — 503 store_unavailable at the
   * boundary — and nothing has started.
   */
  async admit(input: AdmitRunInput): Promise<AdmittedRun> {
    const { db, lease, kb } = this.#o;
    if (this.#inFlight.stopping) throw new ReplicaStoppingError('No run was started.');
    lease.assertHeld();
    const run = await createRun(db, {
      sessionId: input.sessionId,
      ownerId: lease.ownerId,
      workload: input.workload,
      question: this.#scrub(input.question),
      corpusVersion: kb.version,
    });
    let executed = false;
    return {
      runId: run.id,
      execute: (onEvent, signal) => {
        if (executed) return Promise.reject(new Error(`run ${run.id} was already executed`));
        executed = true;
        return this.#execute(run.id, input, onEvent, signal);
      },
      hold: (work) => this.#inFlight.hold(work),
    };
  }

  async #execute(runId: string, input: AdmitRunInput, onEvent: RunStreamSink | undefined, signal: AbortSignal | undefined): Promise<RunResultView> {
    const { db, executor, metrics } = this.#o;
    const runTrace = (this.#o.telemetry ?? NO_RUN_TELEMETRY).startRun(runId, input.workload);
    const recorder = new RunRecorder({
      db,
      runId,
      metrics,
      allow: this.#allow,
      scrub: this.#scrub,
      trace: runTrace,
      ...(onEvent ? { forward: onEvent } : {}),
    });
    metrics.runStarted();
    try {
      const outcome = await executor
        .run({
          runId,
          question: input.question,
          workload: input.workload,
          failProviders: input.failProviders ?? [],
          onEvent: recorder.sink,
          ...(signal ? { signal } : {}),
        })
        .then(
          (result) => ({ ok: true as const, result }),
          (error: unknown) => ({ ok: false as const, error }),
        );
      // Whatever the graph did before it stopped is on the record before anything else is decided.
      await recorder.drain();
      // S-258: stopped mid-run (the replica shutting down). A run that finished first keeps its answer.
      if (!outcome.ok && signal?.aborted) {
        runTrace.end({ status: 'failed' });
        await this.#interrupt(runId);
        throw new RunStoppedError(runId, recorder.providerEvents);
      }
      if (!outcome.ok) throw outcome.error;
      const result = outcome.result;
      // Defect 3: claims, attempts and reasons can quote a provider or a draft; the stored and streamed result is scrubbed.
      const view = scrubDeep(runResultView(result, recorder.nodeEvents, recorder.providerEvents), this.#scrub);
      await this.#complete(view);
      metrics.runFinished(view.verdict, view.terminal);
      runTrace.end({ status: 'completed', terminal: view.terminal, verdict: view.verdict });
      return view;
    } catch (caught) {
      // Recorded interrupted already, and no failure of the run's.
      if (caught instanceof RunStoppedError) throw caught;
      const error = takenOver(runId, caught);
      runTrace.end({ status: 'failed' });
      await this.#fail(runId, error, 'run');
      throw error;
    } finally {
      metrics.runEnded();
    }
  }

  /**
   * seed ADR-0006: approving never resumes or edits the gated run. It creates a NEW
   * run pointing back at it (the orchestrator's createApprovalRun: the gated
   * run's verified draft, emitted), records the approval, and returns the new run.
   * The approval and the new run are written together, the approval first
   * (claimApproval), so of many racing approvals one wins and the rest make no run.
   */
  async approve(input: ApproveInput): Promise<RunResultView> {
    const { db, lease, metrics } = this.#o;
    lease.assertHeld();
    const gated = await getRunRecord(db, input.runId);
    if (!gated) throw new ServiceError('not_found', `run ${echoed(input.runId)} does not exist.`);
    if (gated.status !== 'completed' || gated.terminal !== 'await_approval' || !isRunResultView(gated.result)) {
      throw new ServiceError(
        'not_awaiting_approval',
        `run ${gated.id} is ${gated.status}${gated.terminal ? ` with terminal ${gated.terminal}` : ''}, not awaiting approval.`,
      );
    }
    if (gated.sessionId !== input.sessionId) {
      throw new ServiceError('forbidden_session', `run ${gated.id} was requested by another session.`);
    }
    const existing = await getApproval(db, gated.id);
    if (existing?.gatedRunId === gated.id) {
      throw new ServiceError('not_awaiting_approval', `run ${gated.id} was already approved by run ${existing.approvalRunId}.`);
    }

    const approval = createApprovalRun(asEngineResult(gated.result), { runId: randomUUID() });
    let view: RunResultView | undefined;
    let runTrace: RunTrace | undefined;
    try {
      // Defect 7: the approval is claimed before its run exists, in one transaction, so a racing loser leaves no run.
      // The approval run's spans and outcome are written in that same transaction: an approval whose run could not be
      // recorded (the database gone between the claim and the outcome) claims nothing, so the retry the 503 asks for
      // can win — it used to meet a 409 for ever, the approval used up by a run with no answer.
      await claimApproval(
        db,
        {
          sessionId: input.sessionId,
          run: {
            id: approval.runId,
            parentRunId: gated.id,
            sessionId: input.sessionId,
            ownerId: lease.ownerId,
            workload: approval.workload,
            question: approval.question,
            corpusVersion: approval.corpusVersion,
          },
        },
        async (tx) => {
          runTrace = (this.#o.telemetry ?? NO_RUN_TELEMETRY).startRun(approval.runId, approval.workload);
          metrics.runStarted();
          try {
            const recorder = new RunRecorder({ db: tx, runId: approval.runId, metrics, allow: this.#allow, scrub: this.#scrub, trace: runTrace });
            recorder.recordNodeEvents(approval.trace.filter((e): e is NodeEvent => e.type === 'node'));
            await recorder.drain();
            view = scrubDeep(runResultView(approval, recorder.nodeEvents, []), this.#scrub);
            await this.#complete(view, tx);
          } finally {
            metrics.runEnded();
          }
        },
      );
    } catch (error) {
      // The losers of a race: refused with the vocabulary's 409, and no run of theirs exists to fail.
      if (error instanceof StoreError && error.code === 'already_approved') {
        throw new ServiceError('not_awaiting_approval', `run ${gated.id} was already approved.`);
      }
      if (error instanceof StoreError && error.code === 'not_awaiting_approval') {
        throw new ServiceError('not_awaiting_approval', `run ${gated.id} is not awaiting approval.`);
      }
      // Rolled back with its claim: no approval run exists to mark failed or interrupted.
      runTrace?.end({ status: 'failed' });
      if (runTrace) this.#approvalNotRecorded(approval.runId, error);
      throw error;
    }
    metrics.runFinished(view!.verdict, view!.terminal);
    runTrace!.end({ status: 'completed', terminal: view!.terminal, verdict: view!.verdict });
    return view!;
  }

  /**
   * Records a run the shutdown stopped as interrupted (S-258), while the store is still open. Its record cannot be
   * written (the database gone too): the lease marks it once it can, and another replica's sweep once the lease is gone.
   */
  async #interrupt(runId: string): Promise<void> {
    const { db, metrics, log, lease } = this.#o;
    metrics.runFailed('shutting_down');
    try {
      await interruptRuns(db, { ownerId: lease.ownerId, runIds: [runId], reason: INTERRUPTED_BY_SHUTDOWN });
    } catch (error) {
      lease.interruptWhenReachable(runId);
      log?.(
        this.#scrub(`run ${runId}: stopped by the shutdown, but could not be recorded interrupted (${error instanceof Error ? error.message : String(error)})`),
      );
    }
  }

  /** An approval run whose record was rolled back with its claim: counted and logged, server-side only. */
  #approvalNotRecorded(runId: string, error: unknown): void {
    const { metrics, log } = this.#o;
    if (isOutage(error)) {
      metrics.runFailed('store_unavailable');
      log?.(this.#scrub(`approval run ${runId}: the database became unreachable (${error.message}); the approval was not recorded and can be retried`));
      return;
    }
    metrics.runFailed(error instanceof ServiceError ? error.code : 'internal');
    log?.(
      this.#scrub(`approval run ${runId} failed, the approval was not recorded: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    );
  }

  /**
   * The outcome and the claims' citations in one statement (ADR-0004): never a completed run missing its citations.
   * Each citation keeps its passage as this run read it — the result's sources, from this replica's corpus — never
   * the shared chunk table's, which another replica's corpus may have written over (S-257).
   */
  async #complete(view: RunResultView, q: Queryable = this.#o.db): Promise<void> {
    const tokens = tokensOf(view);
    await completeRun(
      q,
      view.runId,
      {
        terminal: view.terminal,
        verdict: view.verdict,
        band: view.band,
        score: view.score,
        answer: view.answer,
        risk: view.risk,
        result: view,
        costUsd: view.spend.spentUsd,
        tokensIn: tokens.tokensIn,
        tokensOut: tokens.tokensOut,
      },
      view.claims,
      view.sources,
    );
  }

  /**
   * Finish the run as failed (once; a run already finished is left alone) and
   * log why, server-side only. A run cut short by a database outage is not a
   * failure of the run, and its record has a gap: the lease marks it
   * interrupted as soon as the database answers again (issue 12, defect 4).
   */
  async #fail(runId: string, error: unknown, stage: string): Promise<void> {
    const { db, metrics, log, lease } = this.#o;
    if (isOutage(error)) {
      lease.interruptWhenReachable(runId);
      metrics.runFailed('store_unavailable');
      log?.(this.#scrub(`run ${runId} ${stage}: the database became unreachable (${error.message}); it is marked interrupted when the database is back`));
      return;
    }
    const reason = error instanceof ServiceError ? error.code : 'internal';
    const message = this.#scrub(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    try {
      await finishRun(db, runId, { status: 'failed', error: `${stage} failed: ${message}`.slice(0, 1000) });
      metrics.runFailed(reason);
    } catch (finishError) {
      if (isOutage(finishError)) {
        lease.interruptWhenReachable(runId);
        log?.(this.#scrub(`run ${runId}: could not record its failure, the database became unreachable; it is marked interrupted when the database is back`));
      } else if (!(finishError instanceof StoreError && finishError.code === 'run_not_running')) {
        log?.(`run ${runId}: could not record its failure: ${finishError instanceof Error ? finishError.message : String(finishError)}`);
      }
    }
    if (!(error instanceof ServiceError))
      log?.(this.#scrub(`run ${runId} ${stage} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
  }
}

/**
 * A run whose record another instance finished while this one's lease was lost:
 * that instance found no owner alive and marked the run interrupted at its
 * start-up, so this run's outcome and spans are refused (run_not_running). Said
 * as `run_interrupted`, naming the run — it reached the client as `internal`
 * and the log as a bug, though nothing in the run was wrong and the remedy is
 * to ask again.
 */
function takenOver(runId: string, error: unknown): unknown {
  if (!(error instanceof StoreError && error.code === 'run_not_running')) return error;
  return new ServiceError(
    'run_interrupted',
    `Run ${runId} was marked interrupted by another agent instance while this one's run-ownership lease was lost; its answer was not recorded.`,
  );
}

/** The store could not be reached: unavailability, not a bug in the run (defect 4). */
function isOutage(error: unknown): error is StoreError {
  return error instanceof StoreError && error.code === 'database_unreachable';
}

function isRunResultView(value: unknown): value is RunResultView {
  return typeof value === 'object' && value !== null && 'runId' in value && 'terminal' in value && 'claims' in value;
}

/**
 * The stored view is what createApprovalRun copies from. It reads only the
 * result's own fields (verdict, claims, risk, action, spend…) and replaces the
 * trace and providers with its own, so the views standing in for the engine's
 * raw trace are never read as engine events.
 */
function asEngineResult(view: RunResultView): RunResult {
  return { ...view, trace: [], providers: [] };
}
