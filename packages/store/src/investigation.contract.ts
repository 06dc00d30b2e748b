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
} from './investigation-repository.ts';
import { StoreError, type StoreErrorCode } from './store-error.ts';

async function expectCode(promise: Promise<unknown>, code: StoreErrorCode, message?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected StoreError ${code}`).toBeInstanceOf(StoreError);
  expect((error as StoreError).code).toBe(code);
  if (message) expect((error as StoreError).message).toMatch(message);
}

async function rawRejection(promise: Promise<unknown>): Promise<{ code?: string; constraint?: string }> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code?: string; constraint?: string } | undefined;
  expect(error, 'expected the statement to be rejected').toBeDefined();
  return { code: error?.code, constraint: error?.constraint };
}

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
      await expectCode(deleteInvestigation(db, b.id), 'investigation_not_found');
      await expectCode(renameInvestigation(db, randomUUID(), 'x'), 'investigation_not_found');
      await expectCode(renameInvestigation(db, 'not-a-uuid', 'x'), 'investigation_not_found');
      await expectCode(renameInvestigation(db, a.id, '   '), 'invalid_argument', /title is empty/);
      await expectCode(createInvestigation(db, { title: 'x'.repeat(201) }), 'invalid_argument', /201 characters; the limit is 200/);
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
      await expectCode(removeInvestigationFile(db, inv.id, 'app.log'), 'file_not_found', /no file "app.log"/);
      expect((await listInvestigations(db)).find((i) => i.id === inv.id)?.fileCount).toBe(1);
    });

    it('refuses a path that leaves the workspace, and a file for an investigation that does not exist', async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'escapes' });
      for (const path of ['../etc/passwd', 'logs/../../x', '/etc/passwd', '~other/x', 'C:\\x', 'file:///etc/passwd', '']) {
        await expectCode(putInvestigationFile(db, inv.id, { path, content: 'x' }), 'invalid_argument');
      }
      await expectCode(putInvestigationFile(db, randomUUID(), { path: 'a.log', content: 'x' }), 'investigation_not_found');
      await expectCode(listInvestigationFiles(db, randomUUID()), 'investigation_not_found');
      expect(await listInvestigationFiles(db, inv.id)).toEqual([]);
      // The table itself refuses what the repository would: the CHECK is the last line.
      expect(await rawRejection(db.query("insert into investigation_file (investigation_id, path, content, size_bytes) values ($1, '../x', '', 0)", [inv.id]))).toMatchObject({ code: '23514' });
      expect(await rawRejection(db.query("insert into investigation_file (investigation_id, path, content, size_bytes, status) values ($1, 'x', '', 0, 'error')", [inv.id]))).toMatchObject({ code: '23514' });
    });

    it('messages keep their order; an assistant message round-trips its result and metrics (seed #22); delete cascades', async () => {
      const { db } = context();
      const inv = await createInvestigation(db, { title: 'conversation' });
      await putInvestigationFile(db, inv.id, { path: 'app.log', content: 'x' });
      await appendInvestigationMessage(db, inv.id, { role: 'user', text: 'why 502?' });
      const metrics = { promptTokens: 812, completionTokens: 96, elapsedMs: 41.5, costUsd: 0.00125, provider: 'offline' };
      const result = { claims: [{ text: 'c', citations: [{ kind: 'file', path: 'app.log', startLine: 1, endLine: 2 }] }], toolCalls: [{ tool: 'list_files', args: {}, ok: true }] };
      await appendInvestigationMessage(db, inv.id, { role: 'assistant', text: 'Because.', result, metrics });
      const messages = await listInvestigationMessages(db, inv.id);
      expect(messages.map((m) => [m.role, m.text])).toEqual([
        ['user', 'why 502?'],
        ['assistant', 'Because.'],
      ]);
      expect(messages[0]?.metrics).toBeNull();
      expect(messages[1]?.metrics).toEqual(metrics);
      expect(messages[1]?.result).toEqual(result);
      await expectCode(appendInvestigationMessage(db, inv.id, { role: 'user', text: '  ' }), 'invalid_argument', /must not be empty/);
      await expectCode(appendInvestigationMessage(db, randomUUID(), { role: 'user', text: 'hi' }), 'investigation_not_found');
      // A user message carries no metrics: the table refuses one that does.
      expect(await rawRejection(db.query("insert into investigation_message (investigation_id, role, text, prompt_tokens) values ($1, 'user', 'q', 5)", [inv.id]))).toMatchObject({ code: '23514' });
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
