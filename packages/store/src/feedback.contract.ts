import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { saveClaims } from './citation-repository.ts';
import type { Database } from './database.ts';
import { getFeedback, listFeedback, markRun, MAX_FEEDBACK_NOTE_CHARS } from './feedback-repository.ts';
import { getRun } from './run-detail.ts';
import { createRun, finishRun, type NewRun, type RunRecord } from './run-repository.ts';
import { expectStoreError, rejection } from './store-contract-context.ts';

/** What the feedback cases need from the suite that runs them: its migrated database and its run template. */
export interface FeedbackContractContext {
  readonly db: Database;
  readonly newRun: (over?: Partial<NewRun>) => NewRun;
}

/**
 * Migration 0017 and the feedback repository, run inside the store contract
 * (store.contract.ts) so PGlite and a Postgres server must agree: one mark per run,
 * the latest replacing the earlier, listed newest first even within one
 * millisecond, joined with what the run said and cited.
 */
export function describeFeedbackContract(context: () => FeedbackContractContext): void {
  describe('feedback (0017)', () => {
    async function finished(verdict: 'answered' | 'partial' | 'refused', question: string): Promise<RunRecord> {
      const { db, newRun } = context();
      const run = await createRun(db, newRun({ question }));
      return finishRun(db, run.id, { status: 'completed', terminal: verdict === 'refused' ? 'refuse' : 'emit', verdict, band: 'sufficient' });
    }

    it('marks a run once: marking again replaces the label and note, and the run reads back with its mark', async () => {
      const { db } = context();
      const run = await finished('answered', 'what is the ceiling?');
      const first = await markRun(db, { runId: run.id, label: 'right', note: '  matches the runbook  ' });
      expect(first).toMatchObject({ runId: run.id, label: 'right', note: 'matches the runbook' });
      const second = await markRun(db, { runId: run.id, label: 'wrong-answer', note: '   ' });
      expect(second).toMatchObject({ runId: run.id, label: 'wrong-answer', note: null });
      const [count] = await db.query<{ n: number }>('select count(*)::int as n from feedback where run_id = $1', [run.id]);
      expect(count?.n).toBe(1);
      expect(await getFeedback(db, run.id)).toEqual(second);
      expect((await getRun(db, run.id))?.feedback).toEqual(second);
      expect(await getFeedback(db, randomUUID())).toBeNull();
      expect(await getFeedback(db, 'not-a-uuid')).toBeNull();
    });

    it('lists marks newest first, even within one millisecond; a re-marked run moves to the front', async () => {
      const { db } = context();
      const a = await finished('refused', 'rotate DNS?');
      const b = await finished('partial', 'who approves?');
      await markRun(db, { runId: a.id, label: 'wrong-refusal' });
      await markRun(db, { runId: b.id, label: 'right' });
      const tie = () => db.query(`update feedback set created_at = '2030-01-01T00:00:00Z' where run_id = any($1::uuid[])`, [[a.id, b.id]]);
      await tie();
      const order = async () => (await listFeedback(db)).map((m) => m.runId).filter((id) => id === a.id || id === b.id);
      expect(await order()).toEqual([b.id, a.id]);
      await markRun(db, { runId: a.id, label: 'wrong-refusal', note: 'the runbook covers it' });
      await tie();
      expect(await order()).toEqual([a.id, b.id]);
    });

    it("joins each mark with the run's question, verdict and cited chunk ids, each once, in claim order", async () => {
      const { db } = context();
      const run = await finished('answered', 'pool ceiling and paging?');
      await saveClaims(db, run.id, [
        { text: 'The ceiling is 100.', citations: ['runbook-pool#ceiling', 'runbook-pool#symptoms'] },
        { text: 'SEV1 is acknowledged in 5 minutes.', citations: ['policy-paging#acknowledgement', 'runbook-pool#ceiling'] },
      ]);
      const refused = await finished('refused', 'rotate certificates?');
      await markRun(db, { runId: run.id, label: 'right', note: 'good' });
      await markRun(db, { runId: refused.id, label: 'right' });
      const marks = await listFeedback(db);
      expect(marks.find((m) => m.runId === run.id)).toMatchObject({
        label: 'right',
        note: 'good',
        question: 'pool ceiling and paging?',
        verdict: 'answered',
        citedChunkIds: ['runbook-pool#ceiling', 'runbook-pool#symptoms', 'policy-paging#acknowledgement'],
      });
      expect(marks.find((m) => m.runId === refused.id)).toMatchObject({ verdict: 'refused', note: null, citedChunkIds: [] });
    });

    it('refuses an unknown run, a run without a verdict, a bad label and an over-long note, naming each', async () => {
      const { db, newRun } = context();
      await expectStoreError(markRun(db, { runId: randomUUID(), label: 'right' }), 'run_not_found');
      await expectStoreError(markRun(db, { runId: 'nope', label: 'right' }), 'invalid_argument', /not a uuid/);
      const running = await createRun(db, newRun());
      await expectStoreError(markRun(db, { runId: running.id, label: 'right' }), 'run_without_verdict', /is running/);
      await finishRun(db, running.id, { status: 'failed', error: 'boom' });
      await expectStoreError(markRun(db, { runId: running.id, label: 'wrong-answer' }), 'run_without_verdict', /is failed/);

      const run = await finished('answered', 'limits?');
      await expectStoreError(
        markRun(db, { runId: run.id, label: 'wrong' as 'right' }),
        'invalid_argument',
        /label "wrong" is not one of wrong-answer, wrong-refusal, right/,
      );
      // Characters, not UTF-16 units: 2000 emoji fit (4000 units), 2001 do not.
      const fits = '🙂'.repeat(MAX_FEEDBACK_NOTE_CHARS);
      expect((await markRun(db, { runId: run.id, label: 'right', note: fits })).note).toBe(fits);
      await expectStoreError(markRun(db, { runId: run.id, label: 'right', note: `${fits}x` }), 'invalid_argument', /2001 characters; the limit is 2000/);
      expect((await getFeedback(db, run.id))?.note).toBe(fits);
    });

    it('the table itself refuses an unknown label, a second row per run, a run that does not exist and an empty note', async () => {
      const { db } = context();
      const run = await finished('answered', 'raw?');
      expect(await rejection(db.query("insert into feedback (run_id, label) values ($1, 'meh')", [run.id]))).toEqual({
        code: '23514',
        constraint: 'feedback_label_check',
      });
      expect(await rejection(db.query("insert into feedback (run_id, label, note) values ($1, 'right', '')", [run.id]))).toEqual({
        code: '23514',
        constraint: 'feedback_note_check',
      });
      await db.query("insert into feedback (run_id, label) values ($1, 'right')", [run.id]);
      expect(await rejection(db.query("insert into feedback (run_id, label) values ($1, 'right')", [run.id]))).toEqual({
        code: '23505',
        constraint: 'feedback_pkey',
      });
      expect(await rejection(db.query("insert into feedback (run_id, label) values ($1, 'right')", [randomUUID()]))).toEqual({
        code: '23503',
        constraint: 'feedback_run_id_fkey',
      });
    });
  });
}
