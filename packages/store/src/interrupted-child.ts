/**
 * The process interrupted.test.ts kills with SIGKILL: it opens a PGlite data
 * directory, starts a run under its own lease, writes two spans, says READY
 * and hangs. Nothing after READY runs — whatever survives is what appendSpan
 * committed.
 *
 * Usage: node --import tsx interrupted-child.ts <dataDir>
 */
import { randomUUID } from 'node:crypto';
import { appendSpan, createRun } from './run-repository.ts';
import { startStore } from './store.ts';

const dataDir = process.argv[2];
if (!dataDir) {
  console.error('usage: interrupted-child.ts <dataDir>');
  process.exit(2);
}
const store = await startStore({ dataDir, ownerId: `child-${process.pid}-${randomUUID()}` });
const run = await createRun(store.db, {
  sessionId: 'crash-session',
  ownerId: store.ownerId,
  workload: 'triage',
  question: 'will this survive kill -9?',
  corpusVersion: 'none',
});
await appendSpan(store.db, run.id, { node: 'classify', kind: 'start' });
await appendSpan(store.db, run.id, { node: 'classify', kind: 'end', durationMs: 3 });
console.log(`READY ${run.id}`);
setInterval(() => {}, 60_000);
