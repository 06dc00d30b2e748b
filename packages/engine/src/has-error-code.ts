import { type EngineErrorCode, errorCodeOf } from './errors.ts';
import type { AllProvidersFailedError } from './models/router.ts';
import type { BudgetExceededError, InvalidBudgetError } from './models/spend-guard.ts';
import type { SpendLedgerUnavailableError } from './models/spend-ledger.ts';
import type { NotAwaitingApprovalError } from './orchestrator/approval.ts';

/** Each engine code and the error that carries it. */
interface EngineErrors {
  readonly all_providers_failed: AllProvidersFailedError;
  readonly budget_exceeded: BudgetExceededError;
  readonly invalid_budget: InvalidBudgetError;
  readonly not_awaiting_approval: NotAwaitingApprovalError;
  readonly spend_ledger_unavailable: SpendLedgerUnavailableError;
}

/**
 * Whether `error` carries `code`, typed as the engine error that does: an error
 * is told apart by its code (errors.ts), and still read with its own fields.
 */
export function hasErrorCode<C extends EngineErrorCode>(error: unknown, code: C): error is EngineErrors[C] {
  return errorCodeOf(error) === code;
}
