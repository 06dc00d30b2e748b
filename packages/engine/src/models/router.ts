import {
  APICallError,
  InvalidResponseDataError,
  type LanguageModelV3,
  type LanguageModelV3Content,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { ENGINE_ERROR_REMEDIES } from '../errors.ts';
import type { PricedModel } from './priced-model.ts';
import { type BilledAttempt, sandscopeOptions, withoutSandscopeOptions, withResultMetadata } from './call-options.ts';
import { promptTokenBound, tokenUsage, usageCostUsd, type Pricing } from './pricing.ts';
import { describeProviderError } from './provider-error.ts';
import { retryAfterSeconds, type ProviderHealth } from './provider-health.ts';
import type { SecretScrubber } from './secret-scrubber.ts';
import { servedUsage } from './served-usage.ts';

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
  constructor(
    readonly failures: readonly ProviderFailure[],
    /** Failed attempts the providers billed all the same (see BilledAttempt): the spend guard charges them. */
    readonly billed: readonly BilledAttempt[] = [],
  ) {
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
 * A reply that says nothing — HTTP 200 with empty content, or a stream that
 * finishes before any content part — is a failure, not an answer: the next
 * candidate is tried. It was once counted as served, and the run drafted from
 * an empty answer while a working provider stood by.
 *
 * An attempt that failed after the provider reported usage (the empty reply;
 * a 2xx body that then failed validation) was billed: it is recorded as a
 * BilledAttempt and handed up — on the result's metadata, or on
 * AllProvidersFailedError — so the spend guard charges it instead of settling $0.
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
    const billed: BilledAttempt[] = [];
    const callOptions = withoutSandscopeOptions(options);
    for (const candidate of this.candidates) {
      if (!this.admit(candidate, options, failures, billed)) continue;
      const started = this.health.now();
      let result: LanguageModelV3GenerateResult;
      try {
        result = await candidate.model.doGenerate(callOptions);
      } catch (error) {
        if (options.abortSignal?.aborted) throw error;
        failures.push(this.recordFailure(candidate, error, started, billed, callOptions));
        continue;
      }
      if (saysNothing(result.content)) {
        failures.push(this.recordEmpty(candidate, started, result.usage, billed));
        continue;
      }
      // S-265: a count of none for a reply that said something is no count; charged at its bound (served-usage.ts).
      const charged = servedUsage(result.usage, callOptions);
      this.served(candidate, started, charged.usage, charged.note);
      return {
        ...result,
        usage: charged.usage,
        providerMetadata: withResultMetadata(result.providerMetadata, { servedBy: candidate.name, ...billedPatch(billed) }),
      };
    }
    throw new AllProvidersFailedError(failures, billed);
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const failures: ProviderFailure[] = [];
    const billed: BilledAttempt[] = [];
    const callOptions = withoutSandscopeOptions(options);
    candidates: for (const candidate of this.candidates) {
      if (!this.admit(candidate, options, failures, billed)) continue;
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
          if (next.value.type === 'finish') {
            // Finished before saying anything: an empty reply, failed over like any other failure.
            void reader.cancel().catch(() => {});
            failures.push(this.recordEmpty(candidate, started, next.value.usage, billed));
            continue candidates;
          }
          head.push(next.value);
          if (!PREAMBLE.has(next.value.type)) break;
        }
        this.lastServedBy = candidate.name;
        return { ...result, stream: this.committed(candidate, started, head, reader, billed, callOptions) };
      } catch (error) {
        void reader?.cancel(error).catch(() => {});
        if (options.abortSignal?.aborted) throw error;
        failures.push(this.recordFailure(candidate, error, started, billed, callOptions));
      }
    }
    throw new AllProvidersFailedError(failures, billed);
  }

  /** Skips (and records) a candidate that must not be tried for this call. */
  private admit(candidate: RouterCandidate, options: LanguageModelV3CallOptions, failures: ProviderFailure[], billed: readonly BilledAttempt[]): boolean {
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
    const left = this.leftOfReservation(options, billed);
    const cost = sandscopeOptions(options).reservation?.costs[candidate.name] ?? 0;
    if (left !== undefined && cost > 0 && cost > left + 1e-12) {
      // S-249: the attempts before it billed part of the reservation; this one could take the call past it.
      const spent = (sandscopeOptions(options).reservation?.usd ?? 0) - left;
      const message = `earlier attempts of this call billed $${spent.toFixed(6)} of its $${(spent + left).toFixed(6)} spend reservation; the $${left.toFixed(6)} left does not cover this provider's call (up to $${cost.toFixed(6)})`;
      this.emit({ provider: candidate.name, kind: 'outside_reservation', message, latencyMs: 0 });
      failures.push({ provider: candidate.name, kind: 'outside_reservation', message });
      return false;
    }
    return true;
  }

  /** What the spend guard's reservation has left after the attempts billed so far, or undefined when no reservation was sent. */
  private leftOfReservation(options: LanguageModelV3CallOptions, billed: readonly BilledAttempt[]): number | undefined {
    const reservation = sandscopeOptions(options).reservation;
    if (!reservation) return undefined;
    let spent = 0;
    for (const attempt of billed) {
      const pricing = this.pricingOf(attempt.provider);
      // An attempt the router cannot price spent the whole reservation, as the guard settles it (fail safe).
      spent += pricing ? attempt.inputTokens * pricing.inputUsdPerToken + attempt.outputTokens * pricing.outputUsdPerToken : reservation.usd;
    }
    return reservation.usd - spent;
  }

  private recordFailure(
    candidate: RouterCandidate,
    error: unknown,
    started: number,
    billed: BilledAttempt[],
    call: LanguageModelV3CallOptions,
  ): ProviderFailure {
    const latencyMs = this.health.now() - started;
    const status = APICallError.isInstance(error) ? error.statusCode : undefined;
    if (status === 429) {
      const asked = retryAfterSeconds(APICallError.isInstance(error) ? error.responseHeaders : undefined, this.health.now());
      const seconds = this.health.markRateLimited(candidate.name, asked);
      // The cap was silent (the provider-router audit): a provider asking an hour (a daily quota spent) read as a minute's
      // pause, and its next 429 a minute later as a new one. What it asked is said beside what was applied.
      const why =
        asked === undefined
          ? ' (no Retry-After, default)'
          : asked > seconds
            ? ` (it asked ${Math.ceil(asked)} s; capped at ${seconds} s, then tried again)`
            : '';
      const message = `rate-limited; disabled for ${seconds} s${why}`;
      this.emit({ provider: candidate.name, kind: 'rate_limited', status, message, latencyMs });
      return { provider: candidate.name, kind: 'rate_limited', status, message };
    }
    // Defect 3: the provider's own text only as a scrubbed, capped excerpt after the status and error class.
    const described = describeProviderError(error, this.scrub);
    // A request that timed out was sent, and the provider may have run it and billed it; it was settled at $0, so a
    // provider that answered slowly cost nothing on the ledger. It is charged at the most it could cost, as a stream
    // that breaks is (fail safe): its prompt's bound and the output it was allowed (S-141).
    const unanswered = described.status === undefined && described.errorClass === 'timeout';
    // S-255: a reply the client could not read (truncated JSON, usage as strings) was answered, so billed, and it was
    // settled at $0. With no usage to read, it is charged at its bound like a timeout (fail safe).
    const unreadable = described.errorClass === 'invalid_response';
    // S-266: a reply past what max_tokens allows was generated, so billed, and whatever usage it reported was not read
    // (nor to be trusted from a provider that ignored the cap): charged at its bound, what it was allowed to bill.
    const tooLarge = described.errorClass === 'reply_too_large';
    const reported = billedUsageOf(error);
    const atBound = reported === undefined && (unanswered || unreadable || tooLarge);
    const usage = reported ?? (atBound ? tokenUsage(promptTokenBound(call), call.maxOutputTokens ?? 0) : undefined);
    const costUsd = this.bill(candidate, usage, billed);
    const message = !atBound
      ? described.message
      : unanswered
        ? `${described.message}; charged at its bound, as a provider may bill a request it never answered`
        : tooLarge
          ? `${described.message}; charged at its bound, as the provider generated at least all the output it was allowed`
          : `${described.message}; charged at its bound, as the provider answered and its usage could not be read`;
    this.emit({
      provider: candidate.name,
      kind: 'failed',
      ...(status ? { status } : {}),
      message,
      latencyMs,
      ...(usage ? { usage } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    });
    return { provider: candidate.name, kind: 'failed', ...(status ? { status } : {}), message };
  }

  /** A 200 that said nothing: failed, with what it billed. */
  private recordEmpty(candidate: RouterCandidate, started: number, usage: LanguageModelV3Usage | undefined, billed: BilledAttempt[]): ProviderFailure {
    const message = 'HTTP 200 with an empty reply (no text, no tool call)';
    const costUsd = this.bill(candidate, usage, billed);
    this.emit({
      provider: candidate.name,
      kind: 'failed',
      status: 200,
      message,
      latencyMs: this.health.now() - started,
      ...(usage ? { usage } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    });
    return { provider: candidate.name, kind: 'failed', status: 200, message };
  }

  /** Notes a failed attempt's reported usage as billed; its cost at the candidate's price, or undefined when none was reported. */
  private bill(candidate: RouterCandidate, usage: LanguageModelV3Usage | undefined, billed: BilledAttempt[]): number | undefined {
    const inputTokens = usage?.inputTokens.total ?? 0;
    const outputTokens = usage?.outputTokens.total ?? 0;
    if (inputTokens + outputTokens > 0) billed.push({ provider: candidate.name, inputTokens, outputTokens });
    return usageCostUsd(usage, candidate.pricing);
  }

  private served(candidate: RouterCandidate, started: number, usage: LanguageModelV3Usage | undefined, note?: string): void {
    this.lastServedBy = candidate.name;
    const costUsd = usageCostUsd(usage, candidate.pricing);
    this.emit({
      provider: candidate.name,
      kind: 'served',
      ...(note ? { message: note } : {}),
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
    billed: readonly BilledAttempt[],
    call: LanguageModelV3CallOptions,
  ): ReadableStream<LanguageModelV3StreamPart> {
    let reported = false;
    // Whether the consumer has been given anything a provider bills output for (S-265: then 0 output tokens is no count).
    let said = false;
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
      if (part.type !== 'finish') {
        said ||= carriesOutput(part);
        return part;
      }
      const charged = said ? servedUsage(part.usage, call) : { usage: part.usage };
      if (!reported) {
        reported = true;
        this.served(candidate, started, charged.usage, charged.note);
      }
      return {
        ...part,
        usage: charged.usage,
        providerMetadata: withResultMetadata(part.providerMetadata, { servedBy: candidate.name, ...billedPatch(billed) }),
      };
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

/** Nothing a caller can use: no text but whitespace, no tool call, no file. Reasoning alone is no answer. */
function saysNothing(content: readonly LanguageModelV3Content[]): boolean {
  return !content.some((part) => (part.type === 'text' ? part.text.trim() !== '' : part.type !== 'reasoning'));
}

/** A stream part that is output a provider bills for: text, reasoning, a tool call, a file. */
function carriesOutput(part: LanguageModelV3StreamPart): boolean {
  if (part.type === 'text-delta' || part.type === 'reasoning-delta') return part.delta !== '';
  return part.type === 'tool-call' || part.type === 'tool-input-start' || part.type === 'file';
}

function billedPatch(billed: readonly BilledAttempt[]): { billed?: BilledAttempt[] } {
  return billed.length > 0 ? { billed: [...billed] } : {};
}

/**
 * Usage a provider reported in a 2xx reply the client then refused (the body
 * failed validation, or held no choices): the OpenAI-compatible `usage` object
 * of the body, which every candidate speaks. Undefined for anything else — a
 * provider does not bill a request it answered with an error status.
 */
function billedUsageOf(error: unknown): LanguageModelV3Usage | undefined {
  let body: unknown;
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined || error.statusCode < 200 || error.statusCode > 299 || !error.responseBody) return undefined;
    try {
      body = JSON.parse(error.responseBody);
    } catch {
      return undefined;
    }
  } else if (InvalidResponseDataError.isInstance(error)) {
    body = error.data;
  } else {
    return undefined;
  }
  const usage = typeof body === 'object' && body !== null ? (body as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage : undefined;
  const input = usage?.prompt_tokens;
  const output = usage?.completion_tokens;
  if (typeof input !== 'number' || typeof output !== 'number' || !(input >= 0) || !(output >= 0)) return undefined;
  return tokenUsage(input, output);
}
