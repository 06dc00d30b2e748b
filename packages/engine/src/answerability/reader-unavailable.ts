import { hasErrorCode } from '../has-error-code.ts';

/**
 * Why no model read a question, in words a person can act on, from the error the reader's call failed with (S-250).
 * "No model read this answer (BudgetExceededError); answered as offline." named a class and not what to do: the
 * reading's prompt (some 5,300 tokens) at groq's prices cost more than RUN_BUDGET_USD, so every answer was given unread
 * and only that line said so. The error is told apart by its code (errors.ts), never by its class name, and no class
 * name or provider message reaches the reason.
 */
export function whyNoReading(error: unknown): string {
  if (hasErrorCode(error, 'budget_exceeded')) {
    const d = error.details;
    if (d.reason === 'daily')
      return `the daily spend ceiling is reached (DAILY_SPEND_CEILING_USD${d.dailyCeilingUsd === undefined ? '' : ` ${usd(d.dailyCeilingUsd)}`}, shared by every replica); try again after 00:00 UTC, or raise DAILY_SPEND_CEILING_USD`;
    if (d.reason === 'over')
      return 'the run has already spent past its budget (a provider billed more than a call had reserved), so it makes no further model call; ask again';
    if (d.reason === 'tokens')
      return `the run's token allowance (RUN_TOKEN_BUDGET${d.tokenCeiling === undefined ? '' : ` ${d.tokenCeiling} tokens`}) is too small for the reading${d.promptTokens === undefined ? '' : ` (a ${d.promptTokens.toLocaleString('en-US')}-token prompt)`}; raise RUN_TOKEN_BUDGET`;
    const committed = d.spentUsd + d.reservedUsd;
    const budget =
      committed > 0
        ? `what is left of the run's budget (${usd(Math.max(0, d.ceilingUsd - committed))} of RUN_BUDGET_USD ${usd(d.ceilingUsd)})`
        : `the run's budget (RUN_BUDGET_USD ${usd(d.ceilingUsd)})`;
    const priced = d.pricedAgainst ? ` at ${d.pricedAgainst}'s prices` : '';
    return `${budget} cannot pay for the reading (${usd(d.requestedUsd, d.ceilingUsd)}${priced}); raise RUN_BUDGET_USD`;
  }
  if (hasErrorCode(error, 'all_providers_failed')) {
    const names = [...new Set(error.failures.map((f) => f.provider))];
    return names.length
      ? `every provider failed (${names.join(', ')}); check their keys and status, or wait for a rate limit to clear`
      : 'no model provider is configured; set a provider key (e.g. GROQ_API_KEY) or OLLAMA_BASE_URL';
  }
  if (hasErrorCode(error, 'spend_ledger_unavailable'))
    return 'the shared spend ledger cannot be reached, so no call was made; retry, and check the Redis (REDIS_URL) or database (DATABASE_URL) the replicas share';
  return 'the call failed';
}

/** Dollars to three significant figures ($0.02, $0.0265), with more where that would print `against` the same. */
function usd(amount: number, against?: number): string {
  let digits = 3;
  const at = (n: number) => n.toLocaleString('en-US', { maximumSignificantDigits: digits });
  while (digits < 9 && against !== undefined && amount !== against && at(amount) === at(against)) digits++;
  return `$${at(amount)}`;
}
