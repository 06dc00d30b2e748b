import { describe, expect, it } from 'vitest';
import { ENGINE_ERROR_REMEDIES, type EngineErrorCode, errorCodeOf } from './errors.ts';
import { hasErrorCode } from './has-error-code.ts';
import { AllProvidersFailedError } from './models/router.ts';
import { BudgetExceededError, InvalidBudgetError } from './models/spend-guard.ts';
import { SpendLedgerUnavailableError } from './models/spend-ledger.ts';
import { NotAwaitingApprovalError } from './orchestrator/approval.ts';

/** Issue 13, item 8: one casing of codes across the layers, one remedy per code, errors told apart by code. */
describe('the engine error vocabulary', () => {
  const raised: Record<EngineErrorCode, Error & { code: string; remedy: string }> = {
    all_providers_failed: new AllProvidersFailedError([]),
    budget_exceeded: new BudgetExceededError({ requestedUsd: 0.03, pricedAgainst: 'groq', spentUsd: 0, reservedUsd: 0, ceilingUsd: 0.02 }),
    invalid_budget: new InvalidBudgetError('RUN_BUDGET_USD must be positive'),
    not_awaiting_approval: new NotAwaitingApprovalError('run-1', 'emit'),
    spend_ledger_unavailable: new SpendLedgerUnavailableError('Redis: connection refused'),
  };

  it('every engine error carries its code in lower_snake, as the store, the limiter and the API spell theirs', () => {
    for (const [code, error] of Object.entries(raised)) {
      expect(error.code).toBe(code);
      expect(error.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it("each error's remedy is its code's line in the one table (the budget's varies with the budget that refused)", () => {
    for (const [code, error] of Object.entries(raised)) {
      if (code === 'budget_exceeded') continue;
      expect(error.remedy).toBe(ENGINE_ERROR_REMEDIES[code as EngineErrorCode]);
    }
  });

  it('tells errors apart by code: a copy of the class from another module instance is still recognised', () => {
    const copy = Object.assign(new Error('All 2 model providers failed'), { code: 'all_providers_failed', failures: [] });
    expect(hasErrorCode(copy, 'all_providers_failed')).toBe(true);
    expect(hasErrorCode(copy, 'budget_exceeded')).toBe(false);
    expect(errorCodeOf({ code: 'budget_exceeded' })).toBeUndefined(); // not an Error: nothing was thrown by us
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 42 }))).toBeUndefined();
  });
});
