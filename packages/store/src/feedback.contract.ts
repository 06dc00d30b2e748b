import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { saveClaims } from './citation-repository.ts';
import type { Database } from './database.ts';
import { getFeedback, labelsFitting, listFeedback, MAX_FEEDBACK_NOTE_CHARS, markedCorpusVersions, markRun } from './feedback-repository.ts';
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

    it('refuses a label the verdict contradicts, naming the verdict and the labels that fit; a partial answer takes all three (S-210)', async () => {
      const { db } = context();
      const answered = await finished('answered', 'who approves?');
      const refused = await finished('refused', 'rotate DNS?');
      await markRun(db, { runId: answered.id, label: 'right', note: 'cites the policy' });
      // Stored, an answer marked wrong-refusal became an answerable question with no evidence: its cited passage lost.
      await expectStoreError(
        markRun(db, { runId: answered.id, label: 'wrong-refusal' }),
        'mark_contradicts_verdict',
        new RegExp(
          `^run ${answered.id} answered, and wrong-refusal says it refused what the library answers: a run that answered is marked wrong-answer or right$`,
        ),
      );
      await expectStoreError(
        markRun(db, { runId: refused.id, label: 'wrong-answer' }),
        'mark_contradicts_verdict',
        new RegExp(
          `^run ${refused.id} refused, and wrong-answer says it answered what the library cannot answer: a run that refused is marked wrong-refusal or right$`,
        ),
      );
      // Nothing was stored or replaced.
      expect(await getFeedback(db, answered.id)).toMatchObject({ label: 'right', note: 'cites the policy' });
      expect(await getFeedback(db, refused.id)).toBeNull();
      expect(labelsFitting('answered')).toEqual(['wrong-answer', 'right']);
      expect(labelsFitting('refused')).toEqual(['wrong-refusal', 'right']);
      expect(labelsFitting('partial')).toEqual(['wrong-answer', 'wrong-refusal', 'right']);
      const partial = await finished('partial', 'which runbook?');
      for (const label of ['wrong-answer', 'wrong-refusal', 'right'] as const) expect((await markRun(db, { runId: partial.id, label })).label).toBe(label);
      expect((await markRun(db, { runId: answered.id, label: 'wrong-answer' })).label).toBe('wrong-answer');
      expect((await markRun(db, { runId: refused.id, label: 'wrong-refusal' })).label).toBe('wrong-refusal');
    });

    it('counts the marks on runs of each corpus version (S-210)', async () => {
      const { db, newRun } = context();
      const on = async (corpusVersion: string, verdict: 'answered' | 'refused') => {
        const run = await createRun(db, newRun({ corpusVersion, question: 'which library?' }));
        await finishRun(db, run.id, { status: 'completed', terminal: verdict === 'refused' ? 'refuse' : 'emit', verdict, band: 'sufficient' });
        await markRun(db, { runId: run.id, label: 'right' });
      };
      await on('s210-library-a', 'answered');
      await on('s210-library-a', 'refused');
      await on('s210-library-b', 'refused');
      // An unmarked run of a third version is not counted.
      await createRun(db, newRun({ corpusVersion: 's210-library-c' }));
      const versions = (await markedCorpusVersions(db)).filter((v) => v.corpusVersion.startsWith('s210-'));
      expect(versions).toEqual([
        { corpusVersion: 's210-library-a', marks: 2 },
        { corpusVersion: 's210-library-b', marks: 1 },
      ]);
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
