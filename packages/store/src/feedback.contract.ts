import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { saveClaims } from './citation-repository.ts';
import type { Database } from './database.ts';
import { isCachedAnswerWithdrawn } from './cache-withdrawal-repository.ts';
import { getFeedback, labelsFitting, listFeedback, MAX_FEEDBACK_NOTE_CHARS, markedCorpusVersions, markRun } from './feedback-repository.ts';
import { getRun } from './run-detail.ts';
import { appendSpan, createRun, finishRun, type NewRun, type RunRecord } from './run-repository.ts';
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
      const { replaced: _replaced, ...stored } = second;
      expect(await getFeedback(db, run.id)).toEqual(stored);
      expect((await getRun(db, run.id))?.feedback).toEqual(stored);
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

    it("a wrong-answer mark withdraws the cache keys its run's spans record, at the mark's time; another label withdraws none (S-263)", async () => {
      const { db, newRun } = context();
      const [served, stored, other] = [randomUUID(), randomUUID(), randomUUID()];
      const drafted = async (...attributes: Record<string, unknown>[]) => {
        const run = await createRun(db, newRun({ question: 'the pool ceiling?' }));
        for (const a of attributes) await appendSpan(db, run.id, { node: 'hypothesise', kind: 'end', attributes: a });
        const verdict = attributes.some((a) => a['refused']) ? 'refused' : 'answered';
        return finishRun(db, run.id, { status: 'completed', terminal: verdict === 'refused' ? 'refuse' : 'emit', verdict, band: 'sufficient' });
      };
      // A first draft served from the cache, its correction stored under another key; a span with no key, one with a number.
      const run = await drafted({ cache: 'hit:exact', cacheKey: served }, { cache: 'bypass', cacheKey: stored }, { cache: null }, { cacheKey: 42 });
      const before = Date.now() - 60_000;
      const withdrawn = (key: string, at: number) => isCachedAnswerWithdrawn(db, key, at);

      await markRun(db, { runId: run.id, label: 'right' });
      expect(await withdrawn(served, before)).toBe(false);
      const mark = await markRun(db, { runId: run.id, label: 'wrong-answer' });
      const markedAt = Date.parse(mark.createdAt);
      expect(await withdrawn(served, before)).toBe(true);
      expect(await withdrawn(stored, before)).toBe(true);
      // Up to the mark's time, not after: an answer drafted afresh under the key after the mark is served.
      expect(await withdrawn(served, markedAt)).toBe(true);
      expect(await withdrawn(served, markedAt + 60_000)).toBe(false);
      expect(await withdrawn(other, before)).toBe(false);
      // An entry whose time cannot be read is not trusted under a withdrawn key.
      expect(await withdrawn(served, Number.NaN)).toBe(true);
      expect(await withdrawn(other, Number.NaN)).toBe(false);
      const rows = await db.query<{ cache_key: string; run_id: string }>(
        'select cache_key, run_id::text from cache_withdrawal where run_id = $1 order by cache_key',
        [run.id],
      );
      expect(rows).toEqual([served, stored].sort().map((key) => ({ cache_key: key, run_id: run.id })));

      // Another run served the same entry, marked later: the withdrawal moves to the later mark, and names that run.
      const later = await drafted({ cache: 'hit:exact', cacheKey: served });
      await db.query(`update cache_withdrawal set withdrawn_at = withdrawn_at - interval '1 hour' where cache_key = $1`, [served]);
      const again = await markRun(db, { runId: later.id, label: 'wrong-answer' });
      expect(await withdrawn(served, Date.parse(again.createdAt))).toBe(true);
      expect(await db.query('select run_id::text from cache_withdrawal where cache_key = $1', [served])).toEqual([{ run_id: later.id }]);
      // A mark refused (wrong-answer on a refusal) withdraws nothing.
      const refused = await drafted({ cacheKey: other, refused: true });
      await expectStoreError(markRun(db, { runId: refused.id, label: 'wrong-answer' }), 'mark_contradicts_verdict');
      expect(await withdrawn(other, before)).toBe(false);
    });

    it('a mark says which mark it replaced, as it was: label, note, passage and time; none for a first mark (S-289)', async () => {
      const { db } = context();
      const run = await finished('answered', 'how long are backups kept?');
      await saveClaims(db, run.id, [{ text: 'Kept for 14 days.', citations: ['runbook-pool#ceiling'] }]);
      const first = await markRun(db, { runId: run.id, label: 'right', note: 'good', evidence: 'runbook-pool#ceiling' });
      expect(first.replaced).toBeNull();
      const second = await markRun(db, { runId: run.id, label: 'wrong-answer', note: 'a colleague disagrees' });
      expect(second.replaced).toEqual({ label: 'right', note: 'good', evidence: 'runbook-pool#ceiling', createdAt: first.createdAt });
      expect((await markRun(db, { runId: run.id, label: 'wrong-answer' })).replaced).toEqual({
        label: 'wrong-answer',
        note: 'a colleague disagrees',
        evidence: null,
        createdAt: second.createdAt,
      });
      // A refused mark replaces nothing, and says nothing of it.
      await expectStoreError(markRun(db, { runId: run.id, label: 'wrong-refusal' }), 'mark_contradicts_verdict');
      expect(await getFeedback(db, run.id)).toMatchObject({ label: 'wrong-answer', note: null });
    });

    it('two first marks of one run made at once: one replaced nothing, the other says it replaced that one (S-289)', async () => {
      const { db } = context();
      for (let i = 0; i < 5; i++) {
        const run = await finished('answered', 'marked twice at once?');
        const [a, b] = await Promise.all([
          markRun(db, { runId: run.id, label: 'right', note: 'colleague A' }),
          markRun(db, { runId: run.id, label: 'wrong-answer', note: 'colleague B' }),
        ]);
        const [earlier, later] = a.replaced === null ? [a, b] : [b, a];
        expect(earlier.replaced).toBeNull();
        expect(later.replaced).toEqual({ label: earlier.label, note: earlier.note, evidence: null, createdAt: earlier.createdAt });
        // The later mark's time is when it was written, after the one it waited for, not when its transaction began.
        expect(Date.parse(later.createdAt)).toBeGreaterThanOrEqual(Date.parse(earlier.createdAt));
        expect(await getFeedback(db, run.id)).toMatchObject({ label: later.label, note: later.note });
      }
    });

    it('keeps the passage a mark names as answering, and reads it back; marking again without one clears it (S-286)', async () => {
      const { db } = context();
      const run = await finished('answered', 'pool exhausted, what do I do?');
      await saveClaims(db, run.id, [{ text: 'Fail over.', citations: ['runbook-pool#symptoms'] }]);
      const marked = await markRun(db, { runId: run.id, label: 'wrong-answer', note: 'wrong section', evidence: '  runbook-pool#ceiling  ' });
      expect(marked).toMatchObject({ label: 'wrong-answer', evidence: 'runbook-pool#ceiling' });
      expect(await getFeedback(db, run.id)).toMatchObject({ evidence: 'runbook-pool#ceiling' });
      expect((await getRun(db, run.id))?.feedback).toMatchObject({ evidence: 'runbook-pool#ceiling' });
      expect((await listFeedback(db)).find((m) => m.runId === run.id)).toMatchObject({
        label: 'wrong-answer',
        evidence: 'runbook-pool#ceiling',
        citedChunkIds: ['runbook-pool#symptoms'],
      });
      expect((await markRun(db, { runId: run.id, label: 'wrong-answer', evidence: '   ' })).evidence).toBeNull();
      expect(await getFeedback(db, run.id)).toMatchObject({ evidence: null });
      const refused = await finished('refused', 'rotate DNS?');
      expect((await markRun(db, { runId: refused.id, label: 'wrong-refusal', evidence: 'policy-paging#acknowledgement' })).evidence).toBe(
        'policy-paging#acknowledgement',
      );
    });

    it('right naming a passage confirms the source: refused unless the run cited it, and on a refusal (S-286)', async () => {
      const { db } = context();
      const run = await finished('answered', 'the pool ceiling?');
      await saveClaims(db, run.id, [
        { text: 'It is 100.', citations: ['runbook-pool#symptoms'] },
        { text: 'Raise it with care.', citations: ['runbook-pool#ceiling'] },
      ]);
      // Stored, a right answer from the wrong passage became a question scored right source by construction.
      await expectStoreError(
        markRun(db, { runId: run.id, label: 'right', evidence: 'policy-paging#acknowledgement' }),
        'evidence_not_cited',
        new RegExp(
          `^run ${run.id} cited runbook-pool#symptoms, runbook-pool#ceiling, not policy-paging#acknowledgement: right with a passage confirms the one the run answered from\\. An answer from another passage than the one that answers is marked wrong-answer, with that passage$`,
        ),
      );
      expect(await getFeedback(db, run.id)).toBeNull();
      expect((await markRun(db, { runId: run.id, label: 'right', evidence: 'runbook-pool#ceiling' })).evidence).toBe('runbook-pool#ceiling');
      expect((await markRun(db, { runId: run.id, label: 'wrong-answer', evidence: 'policy-paging#acknowledgement' })).evidence).toBe(
        'policy-paging#acknowledgement',
      );
      const uncited = await finished('answered', 'cited nothing?');
      await expectStoreError(markRun(db, { runId: uncited.id, label: 'right', evidence: 'runbook-pool#ceiling' }), 'evidence_not_cited', /cited no passage/);
      const refused = await finished('refused', 'rotate certificates?');
      await expectStoreError(
        markRun(db, { runId: refused.id, label: 'right', evidence: 'runbook-pool#ceiling' }),
        'mark_contradicts_verdict',
        /refused, and right with the passage that answers \(runbook-pool#ceiling\) says the library answers it: .* marked wrong-refusal, with that passage$/,
      );
      expect(await getFeedback(db, refused.id)).toBeNull();
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
