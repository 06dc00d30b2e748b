import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from './database.ts';
import {
  appendInvestigationMessage,
  createInvestigation,
  deleteInvestigation,
  getInvestigation,
  listInvestigationFiles,
  listInvestigationMessages,
  listInvestigations,
  putInvestigationFile,
  readInvestigationFile,
  removeInvestigationFile,
  renameInvestigation,
  similarInvestigationPassages,
} from './investigation-repository.ts';
import { appendTurnEvent, listTurnEnds, listTurnEvents } from './investigation-turn-repository.ts';
import { expectStoreError, rejection } from './store-contract-context.ts';

/**
 * Migration 0018 and the investigation repository (issue 10), run inside the
 * store contract so PGlite and a Postgres server must agree.
 */
export function describeInvestigationContract(context: () => { readonly db: Database }): void {
  describe('investigations (0018)', () => {
    it('create, open, rename, list newest first, delete', async () => {
      const { db } = context();
      const a = await createInvestigation(db, { title: '  orders-db latency  ' });
      const b = await createInvestigation(db, { title: 'checkout 5xx' });
      expect(a.title).toBe('orders-db latency');
      expect(await getInvestigation(db, a.id)).toEqual(a);
      const renamed = await renameInvestigation(db, a.id, 'orders-db latency, 1 May');
      expect(renamed.title).toBe('orders-db latency, 1 May');
      await db.query(`update investigation set created_at = '2030-01-01T00:00:00Z' where id = any($1::uuid[])`, [[a.id, b.id]]);
      const listed = (await listInvestigations(db)).filter((i) => i.id === a.id || i.id === b.id);
      expect(listed.map((i) => i.id)).toEqual([b.id, a.id]);
      expect(listed[1]).toMatchObject({ title: 'orders-db latency, 1 May', fileCount: 0, messageCount: 0 });
      await deleteInvestigation(db, b.id);
      expect(await getInvestigation(db, b.id)).toBeNull();
      await expectStoreError(deleteInvestigation(db, b.id), 'investigation_not_found');
      await expectStoreError(renameInvestigation(db, randomUUID(), 'x'), 'investigation_not_found');
      await expectStoreError(renameInvestigation(db, 'not-a-uuid', 'x'), 'investigation_not_found');
      await expectStoreError(renameInvestigation(db, a.id, '   '), 'invalid_argument', /title is empty/);
      await expectStoreError(createInvestigation(db, { title: 'x'.repeat(201) }), 'invalid_argument', /201 characters; the limit is 200/);
      expect((await getInvestigation(db, a.id))?.title).toBe('orders-db latency, 1 May');
      expect(await getInvestigation(db, 'not-a-uuid')).toBeNull();
    });

    it('files are keyed by (investigation, path): a second upload replaces, never duplicates', async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'files' });
      await putInvestigationFile(db, inv.id, { path: 'app.log', content: 'one\ntwo\n' });
      const again = await putInvestigationFile(db, inv.id, { path: './app.log', content: 'héllo\n' });
      expect(again).toMatchObject({ path: 'app.log', sizeBytes: 7, status: 'ok', error: null });
      await putInvestigationFile(db, inv.id, { path: 'conf/values.json', content: '{}', status: 'error', error: 'embedding timed out' });
      expect((await listInvestigationFiles(db, inv.id)).map((f) => [f.path, f.sizeBytes, f.status, f.error])).toEqual([
        ['app.log', 7, 'ok', null],
        ['conf/values.json', 2, 'error', 'embedding timed out'],
      ]);
      expect((await readInvestigationFile(db, inv.id, '/root/app.log'))?.content).toBe('héllo\n');
      expect(await readInvestigationFile(db, inv.id, 'absent.log')).toBeNull();
      await removeInvestigationFile(db, inv.id, 'app.log');
      await expectStoreError(removeInvestigationFile(db, inv.id, 'app.log'), 'file_not_found', /no file "app.log"/);
      expect((await listInvestigations(db)).find((i) => i.id === inv.id)?.fileCount).toBe(1);
    });

    it("a file's passage embeddings (0023) are ranked by similarity, in one embedding space; replacing or removing the file replaces or removes them", async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'passages' });
      const other = await createInvestigation(db, { title: 'another' });
      const embeddings = (vectors: number[][]) => ({
        embedderId: 'space-a',
        passages: vectors.map((vector, i) => ({ startLine: i * 40 + 1, endLine: i * 40 + 40, vector })),
      });
      await putInvestigationFile(db, inv.id, {
        path: 'app.log',
        content: 'x',
        embeddings: embeddings([
          [1, 0, 0],
          [0, 1, 0],
        ]),
      });
      await putInvestigationFile(db, inv.id, { path: 'logs/db.log', content: 'y', embeddings: embeddings([[0.6, 0.8, 0]]) });
      await putInvestigationFile(db, inv.id, {
        path: 'other-space.log',
        content: 'z',
        embeddings: { embedderId: 'space-b', passages: [{ startLine: 1, endLine: 1, vector: [0, 1, 0] }] },
      });
      await putInvestigationFile(db, other.id, { path: 'app.log', content: 'x', embeddings: embeddings([[0, 1, 0]]) });
      const near = (path?: string) => similarInvestigationPassages(db, inv.id, [0, 1, 0], { embedderId: 'space-a', k: 5, ...(path ? { path } : {}) });
      const found = await near();
      expect(found.map((p) => [p.path, p.startLine, p.endLine])).toEqual([
        ['app.log', 41, 80],
        ['logs/db.log', 1, 40],
        ['app.log', 1, 40],
      ]);
      expect(found[0]?.similarity).toBeCloseTo(1, 5);
      expect(found[1]?.similarity).toBeCloseTo(0.8, 5);
      expect((await near('logs/')).map((p) => p.path)).toEqual(['logs/db.log']);
      expect((await similarInvestigationPassages(db, inv.id, [0, 1, 0], { embedderId: 'space-a', k: 1 })).length).toBe(1);
      // A re-upload whose embedding failed keeps no vector of the old text.
      await putInvestigationFile(db, inv.id, { path: 'app.log', content: 'new', status: 'error', error: 'embedding failed' });
      expect((await near()).map((p) => p.path)).toEqual(['logs/db.log']);
      await removeInvestigationFile(db, inv.id, 'logs/db.log');
      expect(await near()).toEqual([]);
      await expectStoreError(similarInvestigationPassages(db, randomUUID(), [1], { embedderId: 'space-a', k: 1 }), 'investigation_not_found');
      await expectStoreError(
        putInvestigationFile(db, inv.id, {
          path: 'a.log',
          content: 'x',
          embeddings: { embedderId: 'e', passages: [{ startLine: 0, endLine: 1, vector: [1] }] },
        }),
        'invalid_argument',
      );
      await deleteInvestigation(db, other.id);
      const [left] = await db.query<{ n: number }>('select count(*)::int as n from investigation_file_passage where investigation_id = $1', [other.id]);
      expect(left?.n).toBe(0);
    });

    it("a turn's events (0024) are kept in order and read back after a seq; only a user message of that investigation names a turn; delete cascades", async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'turn events' });
      const other = await createInvestigation(db, { title: 'someone else' });
      const asked = await appendInvestigationMessage(db, inv.id, { role: 'user', text: 'why 502?' });
      const turnId = asked.id;
      const events = [
        { type: 'tool' as const, data: { tool: 'list_files', ok: true } },
        { type: 'note' as const, data: { text: 'fell back' } },
        { type: 'result' as const, data: { turn: { answer: 'Because.' } } },
      ];
      expect(await listTurnEvents(db, inv.id, turnId)).toMatchObject({ events: [], ended: false, lastEventAt: null });
      for (const [i, e] of events.entries()) await appendTurnEvent(db, { investigationId: inv.id, turnId, seq: i + 1, ...e });
      const all = await listTurnEvents(db, inv.id, turnId);
      expect(all.events.map((e) => [e.seq, e.type, e.data])).toEqual(events.map((e, i) => [i + 1, e.type, e.data]));
      expect(all.askedAt).toBe(asked.createdAt);
      expect((await listTurnEvents(db, inv.id, turnId, 2)).events.map((e) => e.seq)).toEqual([3]);
      // Resumed after its result, the page is empty but says the turn is over, and when it last moved.
      const after = await listTurnEvents(db, inv.id, turnId, 3);
      expect(after).toMatchObject({ events: [], ended: true });
      expect(after.lastEventAt).toBe(all.events.at(-1)!.createdAt);
      // The same seq twice is a bug: the key refuses it.
      expect(await rejection(appendTurnEvent(db, { investigationId: inv.id, turnId, seq: 3, type: 'error', data: {} }))).toMatchObject({ code: '23505' });
      const answer = await appendInvestigationMessage(db, inv.id, {
        role: 'assistant',
        text: 'Because.',
        metrics: { promptTokens: 1, completionTokens: 1, elapsedMs: 1, costUsd: 0, provider: 'offline' },
      });
      await expectStoreError(listTurnEvents(db, other.id, turnId), 'turn_not_found');
      await expectStoreError(listTurnEvents(db, inv.id, answer.id), 'turn_not_found');
      await expectStoreError(listTurnEvents(db, inv.id, 999_999_999), 'turn_not_found');
      await deleteInvestigation(db, inv.id);
      const [left] = await db.query<{ n: number }>('select count(*)::int as n from investigation_turn_event where turn_id = $1', [turnId]);
      expect(left?.n).toBe(0);
    });

    it("S-270: how each turn of a conversation ended, in one read: answered, its last error's data, or not yet; another investigation's turns are not read", async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'turn ends' });
      const other = await createInvestigation(db, { title: 'someone else' });
      const [answered, failed, going, silent] = [
        await appendInvestigationMessage(db, inv.id, { role: 'user', text: 'why 502?' }),
        await appendInvestigationMessage(db, inv.id, { role: 'user', text: 'and 503?' }),
        await appendInvestigationMessage(db, inv.id, { role: 'user', text: 'and 504?' }),
        await appendInvestigationMessage(db, inv.id, { role: 'user', text: 'and 505?' }),
      ];
      const elsewhere = await appendInvestigationMessage(db, other.id, { role: 'user', text: 'not mine' });
      const event = (turnId: number, seq: number, type: 'tool' | 'result' | 'error', data: unknown) =>
        appendTurnEvent(db, { investigationId: inv.id, turnId, seq, type, data });
      await event(answered!.id, 1, 'tool', { tool: 'list_files' });
      await event(answered!.id, 2, 'result', { turn: {} });
      await event(failed!.id, 1, 'error', { error: { code: 'internal', message: 'first' } });
      await event(failed!.id, 2, 'error', { error: { code: 'shutting_down', message: 'last' } });
      await event(going!.id, 1, 'tool', { tool: 'read_file' });
      await appendTurnEvent(db, { investigationId: other.id, turnId: elsewhere.id, seq: 1, type: 'result', data: {} });
      const ends = await listTurnEnds(db, inv.id, [answered!.id, failed!.id, going!.id, silent!.id, elsewhere.id]);
      expect(ends.sort((a, b) => a.turnId - b.turnId).map(({ lastEventAt, ...rest }) => rest)).toEqual([
        { turnId: answered!.id, answered: true, error: null },
        { turnId: failed!.id, answered: false, error: { error: { code: 'shutting_down', message: 'last' } } },
        { turnId: going!.id, answered: false, error: null },
      ]);
      for (const end of ends) expect(Number.isNaN(Date.parse(end.lastEventAt))).toBe(false);
      expect(await listTurnEnds(db, inv.id, [])).toEqual([]);
      expect(await listTurnEnds(db, 'not-a-uuid', [answered!.id])).toEqual([]);
    });

    it('refuses a path that leaves the workspace, and a file for an investigation that does not exist', async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'escapes' });
      for (const path of ['../etc/passwd', 'logs/../../x', '/etc/passwd', '~other/x', 'C:\\x', 'file:///etc/passwd', '']) {
        await expectStoreError(putInvestigationFile(db, inv.id, { path, content: 'x' }), 'invalid_argument');
      }
      await expectStoreError(putInvestigationFile(db, randomUUID(), { path: 'a.log', content: 'x' }), 'investigation_not_found');
      await expectStoreError(listInvestigationFiles(db, randomUUID()), 'investigation_not_found');
      expect(await listInvestigationFiles(db, inv.id)).toEqual([]);
      // The table itself refuses what the repository would: the CHECK is the last line.
      expect(
        await rejection(db.query("insert into investigation_file (investigation_id, path, content, size_bytes) values ($1, '../x', '', 0)", [inv.id])),
      ).toMatchObject({ code: '23514' });
      expect(
        await rejection(
          db.query("insert into investigation_file (investigation_id, path, content, size_bytes, status) values ($1, 'x', '', 0, 'error')", [inv.id]),
        ),
      ).toMatchObject({ code: '23514' });
    });

    it('messages keep their order; an assistant message round-trips its result and metrics (seed #22); delete cascades', async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'conversation' });
      await putInvestigationFile(db, inv.id, { path: 'app.log', content: 'x' });
      await appendInvestigationMessage(db, inv.id, { role: 'user', text: 'why 502?' });
      const metrics = { promptTokens: 812, completionTokens: 96, elapsedMs: 41.5, costUsd: 0.00125, provider: 'offline' };
      const result = {
        claims: [{ text: 'c', citations: [{ kind: 'file', path: 'app.log', startLine: 1, endLine: 2 }] }],
        toolCalls: [{ tool: 'list_files', args: {}, ok: true }],
      };
      await appendInvestigationMessage(db, inv.id, { role: 'assistant', text: 'Because.', result, metrics });
      const messages = await listInvestigationMessages(db, inv.id);
      expect(messages.map((m) => [m.role, m.text])).toEqual([
        ['user', 'why 502?'],
        ['assistant', 'Because.'],
      ]);
      expect(messages[0]?.metrics).toBeNull();
      expect(messages[1]?.metrics).toEqual(metrics);
      expect(messages[1]?.result).toEqual(result);
      await expectStoreError(appendInvestigationMessage(db, inv.id, { role: 'user', text: '  ' }), 'invalid_argument', /must not be empty/);
      await expectStoreError(appendInvestigationMessage(db, randomUUID(), { role: 'user', text: 'hi' }), 'investigation_not_found');
      // A user message carries no metrics: the table refuses one that does.
      expect(
        await rejection(db.query("insert into investigation_message (investigation_id, role, text, prompt_tokens) values ($1, 'user', 'q', 5)", [inv.id])),
      ).toMatchObject({ code: '23514' });
      await deleteInvestigation(db, inv.id);
      const [left] = await db.query<{ n: number }>(
        `select (select count(*)::int from investigation_message where investigation_id = $1)
              + (select count(*)::int from investigation_file where investigation_id = $1) as n`,
        [inv.id],
      );
      expect(left?.n).toBe(0);
    });
  });
}
