import { ENGINE_ERROR_REMEDIES } from '../errors.ts';
import type { Pricing } from './pricing.ts';

/**
 * The configured ceiling cannot bound anything (zero, negative, not a number).
 * Thrown at construction so the composition root refuses to start — D-007: a
 * zero ceiling used to let the service start and then kill every run mid-stream
 * with a stack trace.
 */
export class InvalidBudgetError extends Error {
  override readonly name = 'InvalidBudgetError';
  readonly code = 'invalid_budget';
  readonly remedy = ENGINE_ERROR_REMEDIES.invalid_budget;
}

/**
 * Why a call was refused (issue 12, defect 6):
 * - `usd` — the call, at its smallest useful size, could cost more than the run has left;
 * - `tokens` — it needs more of the run's token allowance (RUN_TOKEN_BUDGET) than is left;
 * - `over` — an earlier call settled above its reservation and left the run over a
 *   ceiling: the run is stopped, and makes no further call;
 * - `daily` — the run could afford it, but the deployment's money for the UTC day
 *   (DAILY_SPEND_CEILING_USD, booked by every replica on one ledger) could not.
 */
export type BudgetRefusal = 'usd' | 'tokens' | 'over' | 'daily';

export interface BudgetExceededDetails {
  readonly requestedUsd: number;
  readonly pricedAgainst: string | undefined;
  readonly spentUsd: number;
  readonly reservedUsd: number;
  readonly ceilingUsd: number;
  /** Which budget refused it; absent means `usd`. */
  readonly reason?: BudgetRefusal;
  /** The prompt as sent, in tokens (`promptTokenBound`). */
  readonly promptTokens?: number;
  /** How many times the bound `pricedAgainst` has billed (PromptMeter), when more than 1. */
  readonly billedFactor?: number;
  /** The fewest output tokens the call would have been sent with. */
  readonly minOutputTokens?: number;
  readonly tokenCeiling?: number;
  readonly tokensSpent?: number;
  readonly tokensReserved?: number;
  /** `daily`: the deployment's ceiling for the UTC day, and what every replica had spent and reserved against it. */
  readonly dailyCeilingUsd?: number;
  readonly dailyCommittedUsd?: number;
}

/**
 * A call would take the run past its ceiling, so it was not made. Not retryable:
 * the same call costs the same on retry. Nothing was sent to any provider.
 */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
  readonly code = 'budget_exceeded';
  readonly isRetryable = false;
  readonly remedy: string;
  constructor(readonly details: BudgetExceededDetails) {
    super(budgetMessage(details));
    this.remedy =
      details.reason === 'tokens'
        ? 'Ask a narrower question, or raise RUN_TOKEN_BUDGET (at most DAILY_TOKEN_CEILING) for this deployment.'
        : details.reason === 'daily'
          ? 'Try again after 00:00 UTC, or raise DAILY_SPEND_CEILING_USD for this deployment.'
          : 'Ask a narrower question, or raise RUN_BUDGET_USD for this deployment.';
  }
}

function budgetMessage(d: BudgetExceededDetails): string {
  const remaining = Math.max(0, d.ceilingUsd - d.spentUsd - d.reservedUsd);
  const billed =
    d.billedFactor && d.billedFactor > 1 && d.promptTokens !== undefined
      ? `; ${d.pricedAgainst} has billed ${d.billedFactor.toFixed(1)}× a prompt's size, so ${Math.ceil(d.promptTokens * d.billedFactor).toLocaleString('en-US')}`
      : '';
  const priced = d.pricedAgainst ? ` (priced at ${d.pricedAgainst}, the most expensive provider that could serve it)` : '';
  const prompt = d.promptTokens !== undefined ? d.promptTokens.toLocaleString('en-US') : undefined;
  if (d.reason === 'over') {
    const tokens =
      d.tokenCeiling !== undefined && (d.tokensSpent ?? 0) > d.tokenCeiling
        ? `used ${d.tokensSpent} tokens, over its ${d.tokenCeiling}-token allowance (RUN_TOKEN_BUDGET)`
        : `cost $${fmt(d.spentUsd)}, over its $${fmt(d.ceilingUsd)} ceiling (RUN_BUDGET_USD)`;
    return `Run stopped: its model calls have ${tokens}, because a provider billed more than the call had reserved. No further model call is made in this run.`;
  }
  if (d.reason === 'daily') {
    // S-259: the ceiling quoted is the one the call was refused under — the lowest any replica declared today (the
    // ledger's `ceilingUsd`) — so a replica set higher no longer says "$3.23 of the deployment's $5" is left on a $2 day.
    const left = d.dailyCommittedUsd === undefined ? '' : `only $${fmt(Math.max(0, (d.dailyCeilingUsd ?? 0) - d.dailyCommittedUsd))} of `;
    return (
      `Daily spend ceiling reached: this model call could cost up to $${fmt(d.requestedUsd)}, but ${left}the deployment's ` +
      `$${fmt(d.dailyCeilingUsd ?? 0)} for this UTC day (DAILY_SPEND_CEILING_USD, the lowest any replica has set, shared by every replica) is left. ` +
      'The call was not made.'
    );
  }
  if (d.reason === 'tokens') {
    const left = Math.max(0, (d.tokenCeiling ?? 0) - (d.tokensSpent ?? 0) - (d.tokensReserved ?? 0));
    return (
      `Run token allowance exhausted: this model call's prompt (${prompt} tokens as sent${billed}) and at least ${d.minOutputTokens} output tokens ` +
      `need more than the ${left} of the run's ${d.tokenCeiling} tokens (RUN_TOKEN_BUDGET) that remain. The call was not made.`
    );
  }
  const what =
    prompt !== undefined
      ? `this model call's prompt alone (${prompt} tokens as sent${billed}) with at least ${d.minOutputTokens} output tokens`
      : 'this model call';
  return (
    `Run budget exhausted: ${what} could cost up to $${fmt(d.requestedUsd)}${priced}` +
    ` but only $${fmt(remaining)} of the run's $${fmt(d.ceilingUsd)} ceiling (RUN_BUDGET_USD) remains. The call was not made.`
  );
}

/** Money — and tokens, when the run has a token allowance — set aside for one call until it is settled. */
export interface Reservation {
  readonly id: number;
  readonly usd: number;
  readonly tokens: number;
}

export interface SpendGuardOptions {
  /**
   * Model tokens the run may use (RUN_TOKEN_BUDGET): what the service reserved
   * from the client's daily ceiling when it admitted the run (issue 12, defect 1).
   * Held like the money ceiling, so a run cannot spend more than was reserved
   * for it. Unbounded when absent (the CLI has no daily ceiling).
   */
  readonly tokenCeiling?: number;
}

/** The deployable's schema refuses such a value at start-up; this is the guard's own last line (D-007). */
function assertCeiling(ceilingUsd: number): void {
  if (!Number.isFinite(ceilingUsd) || ceilingUsd <= 0) {
    throw new InvalidBudgetError(
      `RUN_BUDGET_USD must be a positive number of US dollars, got "${String(ceilingUsd)}". ` +
        `A ceiling of zero (or one that is not a number) would refuse every model call mid-run (D-007); ` +
        `the service refuses to start instead. Set RUN_BUDGET_USD to a positive amount such as 0.02, or unset it.`,
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
 *
 * With a token ceiling the same holds for tokens. A settlement can still exceed
 * its reservation — a provider billing more than the request could contain —
 * and is recorded as billed; the guard is then `overBudget` and reserves nothing
 * more (issue 12, defect 6: stop the run).
 */
export class SpendGuard {
  readonly ceilingUsd: number;
  readonly tokenCeiling: number | undefined;
  private readonly ceilingNano: number;
  private reservedNano = 0;
  private spentNano = 0;
  private reservedTokens = 0;
  private spentTokens = 0;
  private nextId = 1;
  private readonly open = new Map<number, { readonly nano: number; readonly tokens: number }>();

  constructor(ceilingUsd: number, options: SpendGuardOptions = {}) {
    assertCeiling(ceilingUsd);
    const { tokenCeiling } = options;
    if (tokenCeiling !== undefined && (!Number.isSafeInteger(tokenCeiling) || tokenCeiling < 1)) {
      throw new InvalidBudgetError(`RUN_TOKEN_BUDGET must be a whole number of tokens of at least 1, got ${String(tokenCeiling)}.`);
    }
    this.ceilingUsd = ceilingUsd;
    this.tokenCeiling = tokenCeiling;
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

  /** Tokens settled so far. */
  get tokensSpent(): number {
    return this.spentTokens;
  }

  /** Tokens set aside for calls in flight. */
  get tokensReserved(): number {
    return this.reservedTokens;
  }

  /** Tokens the run may still reserve; Infinity without a token ceiling. */
  get tokensRemaining(): number {
    return this.tokenCeiling === undefined ? Number.POSITIVE_INFINITY : Math.max(0, this.tokenCeiling - this.reservedTokens - this.spentTokens);
  }

  /** A settled call took the run past a ceiling: it is stopped, and no reservation is granted again. */
  get overBudget(): boolean {
    return this.spentNano > this.ceilingNano || (this.tokenCeiling !== undefined && this.spentTokens > this.tokenCeiling);
  }

  /** Whether `reserve(usd, tokens)` would book, without booking. */
  fits(usd: number, tokens = 0): boolean {
    if (this.overBudget) return false;
    if (this.reservedNano + this.spentNano + Math.ceil(usd * NANO) > this.ceilingNano) return false;
    return this.tokenCeiling === undefined || this.reservedTokens + this.spentTokens + tokens <= this.tokenCeiling;
  }

  /** Books `usd` (and `tokens`) for a call, or returns null — booking nothing — when it would pass a ceiling. */
  reserve(usd: number, tokens = 0): Reservation | null {
    if (!Number.isFinite(usd) || usd < 0) throw new RangeError(`reserve() needs a non-negative amount, got ${usd}`);
    if (!Number.isSafeInteger(tokens) || tokens < 0) throw new RangeError(`reserve() needs a non-negative whole number of tokens, got ${tokens}`);
    if (!this.fits(usd, tokens)) return null;
    const nano = Math.ceil(usd * NANO);
    const id = this.nextId++;
    this.reservedNano += nano;
    this.reservedTokens += tokens;
    this.open.set(id, { nano, tokens });
    return { id, usd: nano / NANO, tokens };
  }

  /** Releases a reservation and records what the call really cost (and used). Settling twice is a bug and throws. */
  settle(reservation: Reservation, actualUsd: number, actualTokens = 0): void {
    if (!Number.isFinite(actualUsd) || actualUsd < 0) throw new RangeError(`settle() needs a non-negative amount, got ${actualUsd}`);
    if (!Number.isFinite(actualTokens) || actualTokens < 0) throw new RangeError(`settle() needs a non-negative number of tokens, got ${actualTokens}`);
    const booked = this.open.get(reservation.id);
    if (booked === undefined) throw new Error(`reservation ${reservation.id} is not open (already settled, or from another guard)`);
    this.open.delete(reservation.id);
    this.reservedNano -= booked.nano;
    this.reservedTokens -= booked.tokens;
    this.spentNano += Math.ceil(actualUsd * NANO);
    this.spentTokens += Math.ceil(actualTokens);
  }
}

export type SpendEvent =
  | {
      readonly kind: 'reserved';
      readonly reservationId: number;
      readonly usd: number;
      readonly pricedAgainst: string | undefined;
      /** The prompt as sent, priced by its bound (defect 6), for the provider priced against. */
      readonly promptTokens: number;
      /** The output cap sent with the call (defect 6: what the remaining budget affords, at most what was asked). */
      readonly outputTokens: number;
    }
  | {
      readonly kind: 'settled';
      readonly reservationId: number;
      readonly reservedUsd: number;
      readonly actualUsd: number;
      readonly provider: string | undefined;
      /** This settlement left the run over a ceiling: it is stopped (defect 6). */
      readonly overBudget?: true;
    }
  | ({ readonly kind: 'refused' } & BudgetExceededDetails);

export type SpendEventSink = (event: SpendEvent) => void;

/** What a call of this size costs at this price. */
export function callCost(pricing: Pricing, inputTokens: number, outputTokens: number): number {
  return inputTokens * pricing.inputUsdPerToken + outputTokens * pricing.outputUsdPerToken;
}

function fmt(usd: number): string {
  return usd.toFixed(6);
}
