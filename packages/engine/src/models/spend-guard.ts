import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { readResultMetadata, withSandscopeOptions } from './call-options.ts';
import { estimateTokens, promptText, usageCostUsd, type Pricing } from './pricing.ts';
import type { RouterCandidate, RouterModel } from './router.ts';

/** The run ceiling when RUN_BUDGET_USD is not set. */
export const DEFAULT_RUN_BUDGET_USD = 0.02;

/**
 * The configured ceiling cannot bound anything (zero, negative, not a number).
 * Thrown at construction so the composition root refuses to start — D-007: a
 * zero ceiling used to let the service start and then kill every run mid-stream
 * with a stack trace.
 */
export class InvalidBudgetError extends Error {
  override readonly name = 'InvalidBudgetError';
  readonly code = 'INVALID_BUDGET';
  readonly remedy = `Set RUN_BUDGET_USD to a positive number of US dollars (default ${DEFAULT_RUN_BUDGET_USD}), or unset it.`;
}

export interface BudgetExceededDetails {
  readonly requestedUsd: number;
  readonly pricedAgainst: string | undefined;
  readonly spentUsd: number;
  readonly reservedUsd: number;
  readonly ceilingUsd: number;
}

/**
 * A call would take the run past its ceiling, so it was not made. Not retryable:
 * the same call costs the same on retry. Nothing was sent to any provider.
 */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
  readonly code = 'BUDGET_EXCEEDED';
  readonly isRetryable = false;
  readonly remedy = 'Ask a narrower question, or raise RUN_BUDGET_USD for this deployment.';
  constructor(readonly details: BudgetExceededDetails) {
    const remaining = Math.max(0, details.ceilingUsd - details.spentUsd - details.reservedUsd);
    super(
      `Run budget exhausted: this model call could cost up to $${fmt(details.requestedUsd)}` +
        `${details.pricedAgainst ? ` (priced at ${details.pricedAgainst}, the most expensive provider that could serve it)` : ''}` +
        ` but only $${fmt(remaining)} of the run's $${fmt(details.ceilingUsd)} ceiling (RUN_BUDGET_USD) remains. The call was not made.`,
    );
  }
}

/** Money set aside for one call until it is settled. */
export interface Reservation {
  readonly id: number;
  readonly usd: number;
}

/** Reads RUN_BUDGET_USD (quotes stripped, unset → default). Throws InvalidBudgetError for a ceiling that bounds nothing (D-007). */
export function runBudgetFromEnv(env: Record<string, string | undefined>): number {
  const raw = env['RUN_BUDGET_USD']?.trim().replace(/^(['"])(.*)\1$/, '$2').trim();
  const ceiling = raw === undefined || raw === '' ? DEFAULT_RUN_BUDGET_USD : Number(raw);
  assertCeiling(ceiling, raw);
  return ceiling;
}

function assertCeiling(ceilingUsd: number, raw: string | undefined = String(ceilingUsd)): void {
  if (!Number.isFinite(ceilingUsd) || ceilingUsd <= 0) {
    throw new InvalidBudgetError(
      `RUN_BUDGET_USD must be a positive number of US dollars, got "${raw}". ` +
        `A ceiling of zero (or one that is not a number) would refuse every model call mid-run (D-007); ` +
        `the service refuses to start instead. Set RUN_BUDGET_USD=${DEFAULT_RUN_BUDGET_USD} or unset it.`,
    );
  }
}

/** Integer nano-dollars: a thousand float additions cannot drift the books past the ceiling. */
const NANO = 1_000_000_000;

/**
 * One run's money. Reserve before a call, settle after it: "no budget, no call".
 *
 * `reserve` checks and books in one synchronous step, so concurrent calls in the
 * same run (JavaScript's single thread, no await in between) can never together
 * book more than the ceiling. Amounts are kept as integer nano-dollars, rounded
 * up for reservations and spends and down for the ceiling, so the invariant
 * `reserved + spent ≤ ceiling` holds exactly, not approximately.
 */
export class SpendGuard {
  readonly ceilingUsd: number;
  private readonly ceilingNano: number;
  private reservedNano = 0;
  private spentNano = 0;
  private nextId = 1;
  private readonly open = new Map<number, number>();

  constructor(ceilingUsd: number) {
    assertCeiling(ceilingUsd);
    this.ceilingUsd = ceilingUsd;
    this.ceilingNano = Math.floor(ceilingUsd * NANO);
  }

  /** Dollars settled so far. */
  get spent(): number {
    return this.spentNano / NANO;
  }

  /** Dollars set aside for calls in flight. */
  get reserved(): number {
    return this.reservedNano / NANO;
  }

  /** `reserved + spent`, computed exactly: the number the ceiling bounds. */
  get committed(): number {
    return (this.reservedNano + this.spentNano) / NANO;
  }

  get remaining(): number {
    return Math.max(0, this.ceilingNano - this.reservedNano - this.spentNano) / NANO;
  }

  /** Books `usd` for a call, or returns null — booking nothing — when it would pass the ceiling. */
  reserve(usd: number): Reservation | null {
    if (!Number.isFinite(usd) || usd < 0) throw new RangeError(`reserve() needs a non-negative amount, got ${usd}`);
    const nano = Math.ceil(usd * NANO);
    if (this.reservedNano + this.spentNano + nano > this.ceilingNano) return null;
    const id = this.nextId++;
    this.reservedNano += nano;
    this.open.set(id, nano);
    return { id, usd: nano / NANO };
  }

  /** Releases a reservation and records what the call really cost. Settling twice is a bug and throws. */
  settle(reservation: Reservation, actualUsd: number): void {
    if (!Number.isFinite(actualUsd) || actualUsd < 0) throw new RangeError(`settle() needs a non-negative amount, got ${actualUsd}`);
    const nano = this.open.get(reservation.id);
    if (nano === undefined) throw new Error(`reservation ${reservation.id} is not open (already settled, or from another guard)`);
    this.open.delete(reservation.id);
    this.reservedNano -= nano;
    this.spentNano += Math.ceil(actualUsd * NANO);
  }
}

export type SpendEvent =
  | {
      readonly kind: 'reserved';
      readonly reservationId: number;
      readonly usd: number;
      readonly pricedAgainst: string | undefined;
      readonly estimatedInputTokens: number;
      readonly estimatedOutputTokens: number;
    }
  | { readonly kind: 'settled'; readonly reservationId: number; readonly reservedUsd: number; readonly actualUsd: number; readonly provider: string | undefined }
  | ({ readonly kind: 'refused' } & BudgetExceededDetails);

export type SpendEventSink = (event: SpendEvent) => void;

export interface SpendGuardedModelOptions {
  /** Output tokens reserved when a call sets no maxOutputTokens; also sent as the call's cap. Default 1024. */
  readonly defaultMaxOutputTokens?: number;
  /** Input-token estimate for a prompt. Default chars/4 over the prompt text. */
  readonly estimateInputTokens?: (options: LanguageModelV3CallOptions) => number;
  readonly onEvent?: SpendEventSink;
}

interface Booking {
  readonly reservation: Reservation;
  readonly dearest: RouterCandidate | undefined;
  readonly options: LanguageModelV3CallOptions;
}

/**
 * The spend guard as a model wrapping the router. Before every call it reserves
 * `estimated tokens × price` of the MOST EXPENSIVE candidate that could still
 * serve — not the first. D-010: pricing the first candidate assumed the cheapest
 * option would answer, and under-reserved 4× the moment failover reached a
 * costlier model. The router is told which candidates the reservation covers
 * (`providerOptions.sandscope.eligible`) and serves from no other, and the output
 * cap the estimate assumed is sent with the call, so the reservation bounds the
 * call. After the call it settles at the real usage × the price of the provider
 * that actually served.
 */
export class SpendGuardedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'sandscope.spend-guard';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly defaultMaxOutputTokens: number;
  private readonly estimateInputTokens: (options: LanguageModelV3CallOptions) => number;
  private readonly emit: SpendEventSink;

  constructor(
    readonly router: RouterModel,
    readonly guard: SpendGuard,
    options: SpendGuardedModelOptions = {},
  ) {
    this.modelId = router.modelId;
    this.defaultMaxOutputTokens = options.defaultMaxOutputTokens ?? 1024;
    this.estimateInputTokens = options.estimateInputTokens ?? ((o) => estimateTokens(promptText(o.prompt)));
    this.emit = options.onEvent ?? (() => {});
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const booking = this.book(options);
    let result: LanguageModelV3GenerateResult;
    try {
      result = await this.router.doGenerate(booking.options);
    } catch (error) {
      // Nothing served: providers do not bill a refused or failed request.
      this.settle(booking, 0, undefined);
      throw error;
    }
    const servedBy = readResultMetadata(result.providerMetadata).servedBy ?? this.router.lastServedBy;
    this.settle(booking, this.actualCost(booking, servedBy, result.usage), servedBy);
    return result;
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const booking = this.book(options);
    let result: LanguageModelV3StreamResult;
    try {
      result = await this.router.doStream(booking.options);
    } catch (error) {
      this.settle(booking, 0, undefined);
      throw error;
    }
    let settled = false;
    // A stream that breaks or is cancelled after it started may have been billed for what it generated: assume all of it.
    const settleAtReservation = (): void => {
      if (settled) return;
      settled = true;
      this.settle(booking, booking.reservation.usd, this.router.lastServedBy);
    };
    const settleFromFinish = (part: Extract<LanguageModelV3StreamPart, { type: 'finish' }>): void => {
      if (settled) return;
      settled = true;
      const servedBy = readResultMetadata(part.providerMetadata).servedBy ?? this.router.lastServedBy;
      this.settle(booking, this.actualCost(booking, servedBy, part.usage), servedBy);
    };
    const reader = result.stream.getReader();
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            settleAtReservation();
            controller.close();
            return;
          }
          if (next.value.type === 'finish') settleFromFinish(next.value);
          controller.enqueue(next.value);
        } catch (error) {
          settleAtReservation();
          controller.error(error);
        }
      },
      cancel(reason) {
        settleAtReservation();
        return reader.cancel(reason);
      },
    });
    return { ...result, stream };
  }

  /** Reserves for the call against the dearest candidate that could serve it, or throws BudgetExceededError. */
  private book(options: LanguageModelV3CallOptions): Booking {
    const servable = this.router.servable();
    const inputTokens = this.estimateInputTokens(options);
    const outputTokens = options.maxOutputTokens ?? this.defaultMaxOutputTokens;
    let dearest: RouterCandidate | undefined;
    let usd = 0;
    for (const candidate of servable) {
      const cost = callCost(candidate.pricing, inputTokens, outputTokens);
      if (dearest === undefined || cost > usd) {
        dearest = candidate;
        usd = cost;
      }
    }
    const reservation = this.guard.reserve(usd);
    if (!reservation) {
      const details: BudgetExceededDetails = {
        requestedUsd: usd,
        pricedAgainst: dearest?.name,
        spentUsd: this.guard.spent,
        reservedUsd: this.guard.reserved,
        ceilingUsd: this.guard.ceilingUsd,
      };
      this.emit({ kind: 'refused', ...details });
      throw new BudgetExceededError(details);
    }
    this.emit({
      kind: 'reserved',
      reservationId: reservation.id,
      usd: reservation.usd,
      pricedAgainst: dearest?.name,
      estimatedInputTokens: inputTokens,
      estimatedOutputTokens: outputTokens,
    });
    const capped: LanguageModelV3CallOptions = { ...options, maxOutputTokens: outputTokens };
    return { reservation, dearest, options: withSandscopeOptions(capped, { eligible: servable.map((c) => c.name) }) };
  }

  private actualCost(booking: Booking, servedBy: string | undefined, usage: LanguageModelV3Usage | undefined): number {
    // Unknown provider or unreported usage: assume the reservation was spent (fail safe, never fail open).
    const pricing = (servedBy ? this.router.pricingOf(servedBy) : undefined) ?? booking.dearest?.pricing;
    const cost = pricing ? usageCostUsd(usage, pricing) : undefined;
    return cost ?? booking.reservation.usd;
  }

  private settle(booking: Booking, actualUsd: number, provider: string | undefined): void {
    this.guard.settle(booking.reservation, actualUsd);
    this.emit({ kind: 'settled', reservationId: booking.reservation.id, reservedUsd: booking.reservation.usd, actualUsd, provider });
  }
}

/** What a call of this size costs at this price. */
export function callCost(pricing: Pricing, inputTokens: number, outputTokens: number): number {
  return inputTokens * pricing.inputUsdPerToken + outputTokens * pricing.outputUsdPerToken;
}

function fmt(usd: number): string {
  return usd.toFixed(6);
}
