import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { ENGINE_ERROR_REMEDIES } from '../errors.ts';
import type { PricedModel } from './priced-model.ts';
import { sandscopeOptions, withoutSandscopeOptions, withResultMetadata } from './call-options.ts';
import { usageCostUsd, type Pricing } from './pricing.ts';
import { describeProviderError } from './provider-error.ts';
import { retryAfterSeconds, type ProviderHealth } from './provider-health.ts';
import type { SecretScrubber } from './secret-scrubber.ts';

/** One provider the router may use, with what it charges (the spend guard reads the price). */
export interface RouterCandidate {
  readonly name: string;
  readonly model: LanguageModelV3;
  readonly pricing: Pricing;
}

/**
 * What a provider did with a call. `outside_reservation`: skipped because the
 * spend guard's reservation did not cover it (D-010) — it was once reported as
 * `skipped_cooldown`, sending a reader after a 429 that never happened.
 */
export type ProviderEventKind = 'served' | 'failed' | 'rate_limited' | 'skipped_cooldown' | 'outside_reservation' | 'injected_failure';

/** One line of the run trace: what a provider did with this call. Persisted as `provider_event`. */
export interface ProviderEvent {
  readonly provider: string;
  readonly kind: ProviderEventKind;
  readonly status?: number;
  readonly message?: string;
  readonly latencyMs: number;
  readonly usage?: LanguageModelV3Usage;
  readonly costUsd?: number;
}

export type ProviderEventSink = (event: ProviderEvent) => void;

/** Why one candidate did not serve a call. */
export interface ProviderFailure {
  readonly provider: string;
  readonly kind: Exclude<ProviderEventKind, 'served'>;
  readonly status?: number;
  readonly message: string;
}

/**
 * Every candidate failed or was skipped. An outage, so an exception (STYLE 6);
 * it lists each failure so the boundary can say which providers and why.
 */
export class AllProvidersFailedError extends Error {
  override readonly name = 'AllProvidersFailedError';
  readonly code = 'all_providers_failed';
  readonly remedy = ENGINE_ERROR_REMEDIES.all_providers_failed;
  constructor(readonly failures: readonly ProviderFailure[]) {
    super(
      failures.length === 0
        ? 'No model provider is configured for this run.'
        : `All ${failures.length} model providers failed: ${failures
            .map((f) => `${f.provider} ${f.kind}${f.status ? ` ${f.status}` : ''} (${f.message})`)
            .join('; ')}`,
    );
  }
}

export interface RouterOptions {
  /** In failover order. */
  readonly candidates: readonly RouterCandidate[];
  /** Process-wide cooldowns, shared by every run. */
  readonly health: ProviderHealth;
  /** This run's injected failures (the console's "tick a provider off"). Never written to `health` (T-6). */
  readonly failProviders?: ReadonlySet<string>;
  readonly onEvent?: ProviderEventSink;
  /**
   * The deployment's configured secrets, scrubbed from every provider message
   * before it is recorded (issue 12, defect 3). Key-shaped text is redacted
   * even without it (provider-error.ts).
   */
  readonly scrub?: SecretScrubber;
}

/** Parts a stream may produce before it has said anything; failing over after them loses nothing. */
const PREAMBLE: ReadonlySet<LanguageModelV3StreamPart['type']> = new Set(['stream-start', 'response-metadata', 'raw']);

/**
 * The provider router, as a model: it implements `LanguageModelV3` and tries its
 * candidates in a fixed order, so the spend guard and the cache wrap it exactly
 * as they would wrap one provider (a wrapper is just another implementation).
 *
 * Built per run and discarded with it. The run's injected failures live here
 * and nowhere else, so no visitor can degrade another's run (T-6); the
 * cooldowns it respects are process-wide, because a provider's 429 is real for
 * everyone.
 *
 * A stream fails over only before it has produced its first content part.
 * After that the consumer has seen text, and splicing a second provider's answer
 * onto the first one's would be an answer neither of them gave.
 */
export class RouterModel implements PricedModel {
  readonly specificationVersion = 'v3';
  readonly provider = 'sandscope.router';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly candidates: readonly RouterCandidate[];
  /** Candidate that served the most recent call (for the trace); per-call truth is in `providerMetadata.sandscope.servedBy`. */
  lastServedBy: string | undefined;

  private readonly health: ProviderHealth;
  private readonly failProviders: ReadonlySet<string>;
  private readonly emit: ProviderEventSink;
  private readonly scrub: SecretScrubber;

  constructor(options: RouterOptions) {
    this.candidates = options.candidates;
    this.health = options.health;
    this.failProviders = options.failProviders ?? new Set();
    this.emit = options.onEvent ?? (() => {});
    this.scrub = options.scrub ?? ((text) => text);
    this.modelId = this.candidates.map((c) => c.name).join('>');
  }

  /**
   * Candidates that could serve a call started now: not failed by injection for
   * this run and not cooling down. The spend guard prices the dearest of these.
   */
  servable(): RouterCandidate[] {
    return this.candidates.filter((c) => !this.failProviders.has(c.name) && !this.health.isCoolingDown(c.name));
  }

  pricingOf(provider: string): Pricing | undefined {
    return this.candidates.find((c) => c.name === provider)?.pricing;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const failures: ProviderFailure[] = [];
    const callOptions = withoutSandscopeOptions(options);
    for (const candidate of this.candidates) {
      if (!this.admit(candidate, options, failures)) continue;
      const started = this.health.now();
      let result: LanguageModelV3GenerateResult;
      try {
        result = await candidate.model.doGenerate(callOptions);
      } catch (error) {
        if (options.abortSignal?.aborted) throw error;
        failures.push(this.recordFailure(candidate, error, started));
        continue;
      }
      this.served(candidate, started, result.usage);
      return { ...result, providerMetadata: withResultMetadata(result.providerMetadata, { servedBy: candidate.name }) };
    }
    throw new AllProvidersFailedError(failures);
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const failures: ProviderFailure[] = [];
    const callOptions = withoutSandscopeOptions(options);
    for (const candidate of this.candidates) {
      if (!this.admit(candidate, options, failures)) continue;
      const started = this.health.now();
      let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
      try {
        const result = await candidate.model.doStream(callOptions);
        reader = result.stream.getReader();
        const head: LanguageModelV3StreamPart[] = [];
        // Read until the first part that carries content: until then, failing over is invisible to the consumer.
        for (;;) {
          const next = await reader.read();
          if (next.done) break;
          if (next.value.type === 'error') throw next.value.error;
          head.push(next.value);
          if (!PREAMBLE.has(next.value.type)) break;
        }
        this.lastServedBy = candidate.name;
        return { ...result, stream: this.committed(candidate, started, head, reader) };
      } catch (error) {
        void reader?.cancel(error).catch(() => {});
        if (options.abortSignal?.aborted) throw error;
        failures.push(this.recordFailure(candidate, error, started));
      }
    }
    throw new AllProvidersFailedError(failures);
  }

  /** Skips (and records) a candidate that must not be tried for this call. */
  private admit(candidate: RouterCandidate, options: LanguageModelV3CallOptions, failures: ProviderFailure[]): boolean {
    if (this.failProviders.has(candidate.name)) {
      // T-6: behaves like a provider error for this run only; ProviderHealth is not touched.
      const message = 'failure injected for this run';
      this.emit({ provider: candidate.name, kind: 'injected_failure', message, latencyMs: 0 });
      failures.push({ provider: candidate.name, kind: 'injected_failure', message });
      return false;
    }
    const remaining = this.health.cooldownRemainingMs(candidate.name);
    if (remaining > 0) {
      const message = `rate-limited; cooling down for another ${Math.ceil(remaining / 1000)} s`;
      this.emit({ provider: candidate.name, kind: 'skipped_cooldown', message, latencyMs: 0 });
      failures.push({ provider: candidate.name, kind: 'skipped_cooldown', message });
      return false;
    }
    const eligible = sandscopeOptions(options).eligible;
    if (eligible && !eligible.includes(candidate.name)) {
      // Its cooldown ended after the spend guard sized the reservation; serving from it could exceed that reservation (D-010).
      const message = "not covered by this call's spend reservation";
      this.emit({ provider: candidate.name, kind: 'outside_reservation', message, latencyMs: 0 });
      failures.push({ provider: candidate.name, kind: 'outside_reservation', message });
      return false;
    }
    return true;
  }

  private recordFailure(candidate: RouterCandidate, error: unknown, started: number): ProviderFailure {
    const latencyMs = this.health.now() - started;
    const status = APICallError.isInstance(error) ? error.statusCode : undefined;
    if (status === 429) {
      const asked = retryAfterSeconds(APICallError.isInstance(error) ? error.responseHeaders : undefined, this.health.now());
      const seconds = this.health.markRateLimited(candidate.name, asked);
      const message = `rate-limited; disabled for ${seconds} s${asked === undefined ? ' (no Retry-After, default)' : ''}`;
      this.emit({ provider: candidate.name, kind: 'rate_limited', status, message, latencyMs });
      return { provider: candidate.name, kind: 'rate_limited', status, message };
    }
    // Defect 3: the provider's own text only as a scrubbed, capped excerpt after the status and error class.
    const { message } = describeProviderError(error, this.scrub);
    this.emit({ provider: candidate.name, kind: 'failed', ...(status ? { status } : {}), message, latencyMs });
    return { provider: candidate.name, kind: 'failed', ...(status ? { status } : {}), message };
  }

  private served(candidate: RouterCandidate, started: number, usage: LanguageModelV3Usage | undefined): void {
    this.lastServedBy = candidate.name;
    const costUsd = usageCostUsd(usage, candidate.pricing);
    this.emit({
      provider: candidate.name,
      kind: 'served',
      latencyMs: this.health.now() - started,
      ...(usage ? { usage } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    });
  }

  /** The stream the consumer sees once a candidate has produced content: no more failover, errors propagate. */
  private committed(
    candidate: RouterCandidate,
    started: number,
    head: LanguageModelV3StreamPart[],
    reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart>,
  ): ReadableStream<LanguageModelV3StreamPart> {
    let reported = false;
    const failedAfterStart = (error: unknown): void => {
      if (reported) return;
      reported = true;
      this.emit({
        provider: candidate.name,
        kind: 'failed',
        message: `failed after the stream started; not failing over: ${describeProviderError(error, this.scrub).message}`,
        latencyMs: this.health.now() - started,
      });
    };
    const annotate = (part: LanguageModelV3StreamPart): LanguageModelV3StreamPart => {
      if (part.type === 'error') failedAfterStart(part.error);
      if (part.type !== 'finish') return part;
      if (!reported) {
        reported = true;
        this.served(candidate, started, part.usage);
      }
      return { ...part, providerMetadata: withResultMetadata(part.providerMetadata, { servedBy: candidate.name }) };
    };
    const pending = [...head];
    return new ReadableStream<LanguageModelV3StreamPart>({
      pull: async (controller) => {
        const buffered = pending.shift();
        if (buffered) {
          controller.enqueue(annotate(buffered));
          return;
        }
        try {
          const next = await reader.read();
          if (next.done) {
            if (!reported) {
              reported = true;
              this.served(candidate, started, undefined);
            }
            controller.close();
            return;
          }
          controller.enqueue(annotate(next.value));
        } catch (error) {
          failedAfterStart(error);
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }
}
