import type { Database, Queryable } from './database.ts';
import { createRun, type NewRun, type RunRecord } from './run-repository.ts';
import { postgresError, StoreError, UNIQUE_VIOLATION } from './store-error.ts';
import { iso, isUuid, requireUuid } from './values.ts';

export interface ApprovalRecord {
  readonly gatedRunId: string;
  readonly approvalRunId: string;
  readonly sessionId: string;
  readonly approvedAt: string;
}

export interface NewApproval {
  /** The run that stopped at await_approval. It is never resumed. */
  readonly gatedRunId: string;
  /** The new run that carries the approval; its parentRunId must be the gated run (seed ADR-0006). */
  readonly approvalRunId: string;
  /** The approving session: it must be the one that asked, since the session binds approvals (T-17). */
  readonly sessionId: string;
}

interface ApprovalRow {
  gated_run_id: string;
  approval_run_id: string;
  session_id: string;
  approved_at: Date;
}

const toRecord = (r: ApprovalRow): ApprovalRecord => ({
  gatedRunId: r.gated_run_id,
  approvalRunId: r.approval_run_id,
  sessionId: r.session_id,
  approvedAt: iso(r.approved_at),
});

/** The gated run must have completed at await_approval, and be approved from the session that asked. */
async function requireAwaitingApproval(tx: Queryable, gatedRunId: string, sessionId: string): Promise<void> {
  const [gated] = await tx.query<{ status: string; terminal: string | null; session_id: string }>(
    'select status, terminal, session_id from run where id = $1',
    [gatedRunId],
  );
  if (!gated) throw new StoreError('run_not_found', `gated run ${gatedRunId} does not exist`);
  if (gated.status !== 'completed' || gated.terminal !== 'await_approval') {
    throw new StoreError('not_awaiting_approval', `run ${gatedRunId} is ${gated.status} with terminal ${gated.terminal ?? 'none'}`);
  }
  if (gated.session_id !== sessionId) {
    throw new StoreError('approval_session_mismatch', `run ${gatedRunId} belongs to another session`);
  }
}

/** Inserts the approval row; losing the unique constraint on gated_run_id is `already_approved`. */
async function insertApproval(tx: Queryable, gatedRunId: string, approvalRunId: string, sessionId: string): Promise<ApprovalRecord> {
  try {
    const [row] = await tx.query<ApprovalRow>(
      `insert into approval (gated_run_id, approval_run_id, session_id) values ($1, $2, $3)
       returning gated_run_id::text, approval_run_id::text, session_id, approved_at`,
      [gatedRunId, approvalRunId, sessionId],
    );
    return toRecord(row!);
  } catch (error) {
    const pg = postgresError(error);
    if (pg?.code === UNIQUE_VIOLATION && pg.constraint === 'approval_gated_run_id_key') {
      throw new StoreError('already_approved', `run ${gatedRunId} has already been approved`, { cause: error });
    }
    throw error;
  }
}

/**
 * Records that a gated run was approved by an approval run that already
 * exists. Refused unless the gated run completed at await_approval, the
 * approving session is the one that asked, and the approval run points back at
 * the gated one. A gated run is approved at most once — a unique constraint, so
 * two racing approvals cannot both land. A service approving on a person's
 * behalf uses claimApproval, which creates the approval run only once it has won.
 */
export async function recordApproval(db: Database, approval: NewApproval): Promise<ApprovalRecord> {
  const gatedRunId = requireUuid(approval.gatedRunId, 'gated run id');
  const approvalRunId = requireUuid(approval.approvalRunId, 'approval run id');
  return db.transaction(async (tx) => {
    await requireAwaitingApproval(tx, gatedRunId, approval.sessionId);
    const [child] = await tx.query<{ parent_run_id: string | null }>('select parent_run_id::text from run where id = $1', [approvalRunId]);
    if (!child) throw new StoreError('run_not_found', `approval run ${approvalRunId} does not exist`);
    if (child.parent_run_id !== gatedRunId) {
      throw new StoreError('invalid_argument', `approval run ${approvalRunId} does not point back at gated run ${gatedRunId}`);
    }
    return insertApproval(tx, gatedRunId, approvalRunId, approval.sessionId);
  });
}

export interface ApprovalClaim {
  readonly approval: ApprovalRecord;
  /** The approval run, created 'running' in the same transaction as the claim. */
  readonly run: RunRecord;
}

/**
 * Approves a gated run and creates its approval run, in one transaction that
 * claims the approval FIRST (issue 12, defect 7). Twenty racing approvals used
 * to create twenty child runs and then find out which one won, leaving failed
 * children behind. Here the approval row goes in before the child run: on a
 * server the losers wait on the winner's unique key (approval_gated_run_id_key),
 * then fail with `already_approved` and roll back — no child run of theirs ever
 * exists. The foreign key to the approval run is deferred to commit (0019).
 */
export async function claimApproval(
  db: Database,
  claim: { readonly sessionId: string; readonly run: NewRun & { readonly id: string; readonly parentRunId: string } },
  /**
   * The approval run's record (its spans and outcome), written in the same
   * transaction: if it fails — the database gone between the claim and the
   * outcome — the claim is rolled back with it, so the approver's retry can
   * still win instead of meeting an approval used up by a run with no answer.
   */
  record?: (tx: Queryable, claimed: ApprovalClaim) => Promise<void>,
): Promise<ApprovalClaim> {
  const gatedRunId = requireUuid(claim.run.parentRunId, 'gated run id');
  const approvalRunId = requireUuid(claim.run.id, 'approval run id');
  if (claim.run.sessionId !== claim.sessionId) {
    throw new StoreError('invalid_argument', `approval run ${approvalRunId} must belong to the approving session`);
  }
  return db.transaction(async (tx) => {
    await requireAwaitingApproval(tx, gatedRunId, claim.sessionId);
    const approval = await insertApproval(tx, gatedRunId, approvalRunId, claim.sessionId);
    const run = await createRun(tx, claim.run);
    await record?.(tx, { approval, run });
    return { approval, run };
  });
}

/** The approval a run is part of, as the gated run or as the approval run. */
export async function getApproval(db: Queryable, runId: string): Promise<ApprovalRecord | null> {
  if (!isUuid(runId)) return null;
  const [row] = await db.query<ApprovalRow>(
    `select gated_run_id::text, approval_run_id::text, session_id, approved_at from approval
     where gated_run_id = $1 or approval_run_id = $1`,
    [runId],
  );
  return row ? toRecord(row) : null;
}
