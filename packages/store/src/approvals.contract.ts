import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimApproval, getApproval, recordApproval } from './approval-repository.ts';
import { getRun } from './run-detail.ts';
import { createRun, finishRun, listChildRuns, type NewRun } from './run-repository.ts';
import type { StoreError } from './store-error.ts';
import type { Database } from './database.ts';
import { expectStoreError, rejection, type StoreContractContext } from './store-contract-context.ts';

/** The store contract's cases for approvals: a gated run is approved once, from the session that asked (store.contract.ts runs them on every backend). */
export function describeApprovalContract(context: () => StoreContractContext): void {
  describe('approvals', () => {
    let db: Database;
    let session: string;
    let newRun: StoreContractContext['newRun'];
    beforeAll(() => {
      ({ db, session, newRun } = context());
    });

    async function gatedRun() {
      const gated = await createRun(db, newRun({ workload: 'change' }));
      await finishRun(db, gated.id, { status: 'completed', terminal: 'await_approval' });
      const approval = await createRun(db, newRun({ workload: 'change', parentRunId: gated.id }));
      return { gated, approval };
    }

    it('are unique per gated run', async () => {
      const { gated, approval } = await gatedRun();
      const recorded = await recordApproval(db, { gatedRunId: gated.id, approvalRunId: approval.id, sessionId: session });
      expect(recorded).toMatchObject({ gatedRunId: gated.id, approvalRunId: approval.id, sessionId: session });
      const second = await createRun(db, newRun({ workload: 'change', parentRunId: gated.id }));
      await expectStoreError(recordApproval(db, { gatedRunId: gated.id, approvalRunId: second.id, sessionId: session }), 'already_approved');
      const raw = await rejection(
        db.query('insert into approval (gated_run_id, approval_run_id, session_id) values ($1, $2, $3)', [gated.id, second.id, session]),
      );
      expect(raw).toEqual({ code: '23505', constraint: 'approval_gated_run_id_key' });
      expect((await getRun(db, gated.id))?.approval?.approvalRunId).toBe(approval.id);
    });

    it('claimed by twenty at once: one wins and creates its run; the others are already_approved and create none (defect 7)', async () => {
      const gated = await createRun(db, newRun({ workload: 'change' }));
      await finishRun(db, gated.id, { status: 'completed', terminal: 'await_approval' });
      const claims = await Promise.allSettled(
        Array.from({ length: 20 }, () =>
          claimApproval(db, {
            sessionId: session,
            run: newRun({ id: randomUUID(), workload: 'change', parentRunId: gated.id }) as NewRun & { id: string; parentRunId: string },
          }),
        ),
      );
      const won = claims.filter((c) => c.status === 'fulfilled');
      const lost = claims.filter((c): c is PromiseRejectedResult => c.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.map((c) => (c.reason as StoreError).code)).toEqual(Array(19).fill('already_approved'));
      const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claimApproval>>>).value;
      expect(winner.run).toMatchObject({ parentRunId: gated.id, status: 'running', sessionId: session });
      expect((await listChildRuns(db, gated.id)).map((c) => c.id)).toEqual([winner.run.id]);
      expect((await getApproval(db, gated.id))?.approvalRunId).toBe(winner.run.id);
      await finishRun(db, winner.run.id, { status: 'completed', terminal: 'emit' });
    });

    it('still refuse an approval naming a run that does not exist: the deferred key is checked at commit', async () => {
      const gated = await createRun(db, newRun({ workload: 'change' }));
      await finishRun(db, gated.id, { status: 'completed', terminal: 'await_approval' });
      const raw = await rejection(
        db.query('insert into approval (gated_run_id, approval_run_id, session_id) values ($1, $2, $3)', [gated.id, randomUUID(), session]),
      );
      expect(raw).toEqual({ code: '23503', constraint: 'approval_approval_run_id_fkey' });
      expect(await getApproval(db, gated.id)).toBeNull();
    });

    it('need a run that stopped at await_approval, from its own session', async () => {
      const emitted = await createRun(db, newRun());
      await finishRun(db, emitted.id, { status: 'completed', terminal: 'emit' });
      const child = await createRun(db, newRun({ parentRunId: emitted.id }));
      await expectStoreError(recordApproval(db, { gatedRunId: emitted.id, approvalRunId: child.id, sessionId: session }), 'not_awaiting_approval');
      const { gated, approval } = await gatedRun();
      await expectStoreError(recordApproval(db, { gatedRunId: gated.id, approvalRunId: approval.id, sessionId: 'someone-else' }), 'approval_session_mismatch');
    });
  });
}
