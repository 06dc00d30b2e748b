import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { type BilledAttempt, billedAttempts, readResultMetadata, withSandscopeOptions } from './call-options.ts';
import { promptTokenBound, usageCostUsd } from './pricing.ts';
import { PromptMeter } from './prompt-meter.ts';
import { type LedgerHold, type SpendLedger, SpendLedgerUnavailableError } from './spend-ledger.ts';
import type { PricedCandidate, PricedModel } from './priced-model.ts';
import {
  BudgetExceededError,
  callCost,
  type BudgetExceededDetails,
  type BudgetRefusal,
  type Reservation,
  type SpendEventSink,
  type SpendGuard,
} from './spend-guard.ts';

/** Output tokens a call asks for when it sets no maxOutputTokens (SpendGuardedModelOptions.defaultMaxOutputTokens). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 1024;

export interface SpendGuardedModelOptions {
  /** Output tokens asked for when a call sets no maxOutputTokens. Default DEFAULT_MAX_OUTPUT_TOKENS. */
  readonly defaultMaxOutputTokens?: number;
  /**
   * Fewest output tokens worth sending a call for (default 64): a draft or a
   * judgement cut shorter is no answer, and still costs its prompt. A call the
   * budget cannot afford this many for is refused, not sent.
   */
  readonly minOutputTokens?: number;
  /** Prompt tokens to price a call at. Default `promptTokenBound`: the most the prompt as sent can bill (defect 6). */
  readonly promptTokens?: (options: LanguageModelV3CallOptions) => number;
  /** What each provider has billed per token of that bound; process-wide. Default: a meter for this model only. */
  readonly meter?: PromptMeter;
  /**
   * The deployment's daily ceiling, shared by every replica (DAILY_SPEND_CEILING_USD,
   * issue 11 section 2). Every call that could cost money books its reservation
   * here too, after the run's guard; absent, only the run's ceiling applies.
   */
  readonly ledger?: SpendLedger;
  readonly onEvent?: SpendEventSink;
}

interface Booking {
  readonly reservation: Reservation;
  readonly dearest: PricedCandidate | undefined;
  /** The prompt's bound, before any provider's billed factor: what the meter compares a bill with. */
  readonly promptBound: number;
  readonly options: LanguageModelV3CallOptions;
  /** The same money booked on the shared daily ledger; absent for a free call or without a ledger. */
  hold?: LedgerHold;
}

/**
 * The spend guard as a model wrapping the router. Before every call it reserves
 * what the call could cost at the MOST EXPENSIVE candidate that could still
 * serve — not the first. D-010: pricing the first candidate assumed the cheapest
 * option would answer, and under-reserved 4× the moment failover reached a
 * costlier model. The router is told which candidates the reservation covers
 * (`providerOptions.sandscope.eligible`) and serves from no other. After the
 * call it settles at the real usage × the price of the provider that actually
 * served.
 *
 * Issue 12, defect 6 — the budget relied on the estimate:
 * - the prompt is priced as sent, by `promptTokenBound` (bytes, not chars/4),
 *   times what each provider has been seen to bill per token of it (PromptMeter);
 * - `maxOutputTokens` is capped at what the remaining money and token allowance
 *   afford, for every candidate the reservation covers, and that cap is sent;
 * - a call that cannot afford its prompt and `minOutputTokens` is refused before
 *   anything is sent;
 * - a settlement that leaves the run over a ceiling stops it: every later call
 *   is refused (`reason: 'over'`).
 */
export class SpendGuardedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'sandscope.spend-guard';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly defaultMaxOutputTokens: number;
  private readonly minOutputTokens: number;
  private readonly promptTokens: (options: LanguageModelV3CallOptions) => number;
  private readonly meter: PromptMeter;
  private readonly emit: SpendEventSink;
  private readonly ledger: SpendLedger | undefined;

  constructor(
    readonly router: PricedModel,
    readonly guard: SpendGuard,
    options: SpendGuardedModelOptions = {},
  ) {
    this.modelId = router.modelId;
    this.defaultMaxOutputTokens = options.defaultMaxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    this.minOutputTokens = options.minOutputTokens ?? 64;
    this.promptTokens = options.promptTokens ?? promptTokenBound;
    this.meter = options.meter ?? new PromptMeter();
    this.emit = options.onEvent ?? (() => {});
    this.ledger = options.ledger;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const booking = await this.bookShared(this.book(options));
    await this.unsentIfAborted(booking);
    let result: LanguageModelV3GenerateResult;
    try {
      result = await this.router.doGenerate(booking.options);
    } catch (error) {
      if (await this.settledIfAborted(booking)) throw error;
      // Nothing served. Providers do not bill a refused or failed request — but one that failed after reporting usage was billed.
      const billed = this.billedCost(booking, billedOf(error));
      await this.settle(booking, billed.usd, undefined, undefined, true, billed.tokens);
      throw error;
    }
    const meta = readResultMetadata(result.providerMetadata);
    const servedBy = meta.servedBy ?? this.router.lastServedBy;
    const billed = this.billedCost(booking, meta.billed);
    await this.settle(booking, this.actualCost(booking, servedBy, result.usage) + billed.usd, servedBy, result.usage, false, billed.tokens);
    return result;
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const booking = await this.bookShared(this.book(options));
    await this.unsentIfAborted(booking);
    let result: LanguageModelV3StreamResult;
    try {
      result = await this.router.doStream(booking.options);
    } catch (error) {
      if (await this.settledIfAborted(booking)) throw error;
      const billed = this.billedCost(booking, billedOf(error));
      await this.settle(booking, billed.usd, undefined, undefined, true, billed.tokens);
      throw error;
    }
    let settled = false;
    // A stream that breaks or is cancelled after it started may have been billed for what it generated: assume all of it.
    const settleAtReservation = async (): Promise<void> => {
      if (settled) return;
      settled = true;
      await this.settle(booking, booking.reservation.usd, this.router.lastServedBy);
    };
    const settleFromFinish = async (part: Extract<LanguageModelV3StreamPart, { type: 'finish' }>): Promise<void> => {
      if (settled) return;
      settled = true;
      const meta = readResultMetadata(part.providerMetadata);
      const servedBy = meta.servedBy ?? this.router.lastServedBy;
      const billed = this.billedCost(booking, meta.billed);
      await this.settle(booking, this.actualCost(booking, servedBy, part.usage) + billed.usd, servedBy, part.usage, false, billed.tokens);
    };
    const reader = result.stream.getReader();
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            await settleAtReservation();
            controller.close();
            return;
          }
          if (next.value.type === 'finish') await settleFromFinish(next.value);
          controller.enqueue(next.value);
        } catch (error) {
          await settleAtReservation();
          controller.error(error);
        }
      },
      async cancel(reason) {
        await settleAtReservation();
        return reader.cancel(reason);
      },
    });
    return { ...result, stream };
  }

  /**
   * A call whose signal aborted before it reached the router (while its hold was being booked) is sent to no
   * provider: its reservation is released at $0 and the abort's reason thrown.
   */
  private async unsentIfAborted(booking: Booking): Promise<void> {
    const signal = booking.options.abortSignal;
    if (!signal?.aborted) return;
    await this.settle(booking, 0, undefined, undefined, true);
    signal.throwIfAborted();
  }

  /**
   * S-267: a call aborted while a provider had it (the run stopped at the end of a replica's grace, S-258, or by its
   * client) was settled as "nothing served": $0, what failed attempts reported. The request was sent, and the provider
   * may run it to the end and bill it, as it may a request that timed out; the abort tells us only that we stopped
   * listening. It is settled at the reservation it held (fail safe, as a timeout and a broken stream are): the dearest
   * covered provider's bound, which also covers any attempt before it that billed (S-249). The router rethrows the
   * abort as it came, so its billed attempts are not known here; the reservation is at least their sum.
   * Returns whether the call was aborted (and so settled).
   */
  private async settledIfAborted(booking: Booking): Promise<boolean> {
    if (!booking.options.abortSignal?.aborted) return false;
    await this.settle(booking, booking.reservation.usd, undefined);
    return true;
  }

  /** Reserves for the call against the dearest candidate that could serve it, or throws BudgetExceededError. */
  private book(options: LanguageModelV3CallOptions): Booking {
    const servable = this.router.servable();
    const bound = this.promptTokens(options);
    const requested = options.maxOutputTokens ?? this.defaultMaxOutputTokens;
    const floor = Math.min(this.minOutputTokens, requested);
    // Each candidate's prompt at what that provider bills per token of the bound.
    const everyPriced = servable.map((candidate) => ({ candidate, prompt: Math.ceil(bound * this.meter.factor(candidate.name)) }));
    const affords = (p: (typeof everyPriced)[number]) => {
      const { inputUsdPerToken, outputUsdPerToken } = p.candidate.pricing;
      const byUsd = outputUsdPerToken > 0 ? Math.floor((this.guard.remaining - p.prompt * inputUsdPerToken) / outputUsdPerToken) : Number.POSITIVE_INFINITY;
      return { byUsd, byTokens: this.guard.tokensRemaining - p.prompt };
    };
    // A candidate priced out of even the floor only by what it once billed past the bound is left out of this call,
    // not made the reason to refuse it: the meter is process-wide, and one odd bill from one provider refused every
    // later run of the process, a provider the run could afford standing by — and the priced-out provider, never
    // called again, never billed within the bound again to be forgiven. Priced out at its list price, a candidate
    // still refuses the call (D-010: the ceiling is too small for it; RUN_BUDGET_USD says so). With none left, the
    // call is refused naming the one that bound.
    const fits = everyPriced.filter((p) => {
      const { byUsd, byTokens } = affords(p);
      return this.meter.factor(p.candidate.name) === 1 || Math.min(byUsd, byTokens) >= floor;
    });
    const priced = fits.length ? fits : everyPriced;
    const dearestAt = (output: number) => {
      let dearest: (typeof priced)[number] | undefined;
      let usd = 0;
      let tokens = 0;
      for (const p of priced) {
        const cost = callCost(p.candidate.pricing, p.prompt, output);
        if (dearest === undefined || cost > usd) {
          dearest = p;
          usd = cost;
        }
        tokens = Math.max(tokens, p.prompt + output);
      }
      return { dearest, usd, tokens };
    };

    if (this.guard.overBudget) this.refuse('over', dearestAt(floor), bound, floor);

    // Defect 6: the output cap is what the remaining money and tokens afford at every candidate the reservation covers.
    let output = requested;
    let binding: { limit: 'usd' | 'tokens'; at: (typeof priced)[number] } | undefined;
    for (const p of priced) {
      const { byUsd, byTokens } = affords(p);
      const affordable = Math.min(byUsd, byTokens);
      if (affordable < output) {
        output = Math.max(0, affordable);
        binding = { limit: byUsd <= byTokens ? 'usd' : 'tokens', at: p };
      }
    }
    // The arithmetic above is in floats; the guard books in nano-dollars. Step down past any rounding.
    while (output >= floor && !this.guard.fits(dearestAt(output).usd, dearestAt(output).tokens)) output -= 1;
    if (output < floor) {
      // Name the candidate that could not afford it, at its own price.
      const at = binding ? { dearest: binding.at, usd: callCost(binding.at.candidate.pricing, binding.at.prompt, floor) } : dearestAt(floor);
      this.refuse(binding?.limit ?? 'usd', at, bound, floor);
    }

    const { dearest, usd, tokens } = dearestAt(output);
    const reservation = this.guard.reserve(usd, this.guard.tokenCeiling === undefined ? 0 : tokens);
    if (!reservation) this.refuse('usd', { dearest, usd }, bound, floor);
    this.emit({
      kind: 'reserved',
      reservationId: reservation.id,
      usd: reservation.usd,
      pricedAgainst: dearest?.candidate.name,
      promptTokens: dearest?.prompt ?? bound,
      outputTokens: output,
    });
    const capped: LanguageModelV3CallOptions = { ...options, maxOutputTokens: output };
    // S-249: what each covered candidate could cost, so failover after a billed attempt stays inside the reservation.
    const costs = Object.fromEntries(priced.map((p) => [p.candidate.name, callCost(p.candidate.pricing, p.prompt, output)]));
    return {
      reservation,
      dearest: dearest?.candidate,
      promptBound: bound,
      options: withSandscopeOptions(capped, { eligible: priced.map((p) => p.candidate.name), reservation: { usd: reservation.usd, costs } }),
    };
  }

  /**
   * Books the run's reservation on the shared daily ledger as well. The run's
   * guard answers first (synchronously, so a run's own concurrent calls cannot
   * overbook it); the ledger is asked second, so a call the run could not
   * afford never touches the shared store. A free call books nothing there: it
   * cannot take the deployment past a ceiling, and the offline default stays
   * free of a round trip. Refused, or the ledger unreachable, the run's
   * reservation is released and no provider is called.
   */
  private async bookShared(booking: Booking): Promise<Booking> {
    if (!this.ledger || booking.reservation.usd === 0) return booking;
    let hold: LedgerHold | null;
    try {
      hold = await this.ledger.reserve(booking.reservation.usd);
    } catch (error) {
      await this.settle(booking, 0, undefined, undefined, true);
      if (error instanceof SpendLedgerUnavailableError) throw error;
      throw new SpendLedgerUnavailableError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    if (hold) {
      booking.hold = hold;
      return booking;
    }
    await this.settle(booking, 0, undefined, undefined, true);
    const usage = await this.ledger.usage().catch(() => undefined);
    const details: BudgetExceededDetails = {
      requestedUsd: booking.reservation.usd,
      pricedAgainst: booking.dearest?.name,
      spentUsd: this.guard.spent,
      reservedUsd: this.guard.reserved,
      ceilingUsd: this.guard.ceilingUsd,
      reason: 'daily',
      dailyCeilingUsd: this.ledger.ceilingUsd,
      ...(usage ? { dailyCommittedUsd: usage.spentUsd + usage.reservedUsd } : {}),
    };
    this.emit({ kind: 'refused', ...details });
    throw new BudgetExceededError(details);
  }

  private refuse(
    reason: BudgetRefusal,
    at: { dearest: { candidate: PricedCandidate; prompt: number } | undefined; usd: number },
    bound: number,
    minOutputTokens: number,
  ): never {
    const name = at.dearest?.candidate.name;
    const factor = name ? this.meter.factor(name) : 1;
    const details: BudgetExceededDetails = {
      requestedUsd: at.usd,
      pricedAgainst: name,
      spentUsd: this.guard.spent,
      reservedUsd: this.guard.reserved,
      ceilingUsd: this.guard.ceilingUsd,
      reason,
      promptTokens: bound,
      ...(factor > 1 ? { billedFactor: factor } : {}),
      minOutputTokens,
      ...(this.guard.tokenCeiling !== undefined
        ? { tokenCeiling: this.guard.tokenCeiling, tokensSpent: this.guard.tokensSpent, tokensReserved: this.guard.tokensReserved }
        : {}),
    };
    this.emit({ kind: 'refused', ...details });
    throw new BudgetExceededError(details);
  }

  private actualCost(booking: Booking, servedBy: string | undefined, usage: LanguageModelV3Usage | undefined): number {
    // Unknown provider or unreported usage: assume the reservation was spent (fail safe, never fail open).
    const pricing = (servedBy ? this.router.pricingOf(servedBy) : undefined) ?? booking.dearest?.pricing;
    const cost = pricing ? usageCostUsd(usage, pricing) : undefined;
    return cost ?? booking.reservation.usd;
  }

  /** What failed-but-billed attempts cost, each at its own provider's price (the dearest candidate's, for one the router does not know). */
  private billedCost(booking: Booking, billed: readonly BilledAttempt[] | undefined): { usd: number; tokens: number } {
    let usd = 0;
    let tokens = 0;
    for (const attempt of billed ?? []) {
      const pricing = this.router.pricingOf(attempt.provider) ?? booking.dearest?.pricing;
      usd += pricing ? callCost(pricing, attempt.inputTokens, attempt.outputTokens) : booking.reservation.usd;
      tokens += attempt.inputTokens + attempt.outputTokens;
    }
    return { usd, tokens };
  }

  private async settle(
    booking: Booking,
    actualUsd: number,
    provider: string | undefined,
    usage?: LanguageModelV3Usage,
    failed = false,
    billedTokens = 0,
  ): Promise<void> {
    const input = usage?.inputTokens.total;
    const output = usage?.outputTokens.total;
    // Tokens as billed; unreported, the whole reservation (fail safe). A call nothing served used none but what failed attempts billed.
    const actualTokens = billedTokens + (failed ? 0 : input !== undefined && output !== undefined ? input + output : booking.reservation.tokens);
    this.guard.settle(booking.reservation, actualUsd, actualTokens);
    if (provider && !failed) this.meter.observe(provider, booking.promptBound, input);
    if (booking.hold && this.ledger) {
      const hold = booking.hold;
      booking.hold = undefined;
      // A settlement the ledger cannot take is not lost money: the hold expires and is charged in full (fail safe).
      await this.ledger.settle(hold, actualUsd).catch(() => {});
    }
    this.emit({
      kind: 'settled',
      reservationId: booking.reservation.id,
      reservedUsd: booking.reservation.usd,
      actualUsd,
      provider,
      ...(this.guard.overBudget ? { overBudget: true as const } : {}),
    });
  }
}

/** The billed attempts an AllProvidersFailedError carries (the router's): none for any other error. */
function billedOf(error: unknown): BilledAttempt[] {
  const billed = error instanceof Error && (error as { code?: unknown }).code === 'all_providers_failed' ? (error as { billed?: unknown }).billed : undefined;
  return Array.isArray(billed) ? billedAttempts(billed) : [];
}
