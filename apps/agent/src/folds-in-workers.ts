import { availableParallelism, freemem } from 'node:os';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import {
  type EvaluationReport,
  evaluateLeaveOneCorpusOut,
  type Fold,
  type HeldOutGroup,
  heldOutFold,
  heldOutNames,
  type LeaveOneCorpusOutOptions,
} from '@sandscope/eval';
import { UserError } from './user-error.ts';

type Reply = { ready: true } | { name: string; fold: Fold } | { name: string; error: string };

/**
 * The leave-one-corpus-out folds, scored in worker threads (S-217). Each fold trains the whole procedure on the
 * other corpora and depends on nothing but its input, so the folds are the ones `leaveOneCorpusOut` computes in
 * turn, bit for bit; only the wall time changes. The record's fresh run was most of CI's time on one core while the
 * other idled. Folds go to whichever worker is free (a fold's cost follows its training set, not its order).
 */
export async function foldsInWorkers(
  corpora: readonly HeldOutGroup[],
  options: LeaveOneCorpusOutOptions = {},
  { threads = defaultThreads(), resourceLimits }: { threads?: number; resourceLimits?: ResourceLimits } = {},
): Promise<Fold[]> {
  const names = heldOutNames(corpora, options);
  const count = Math.min(threads, names.length);
  if (count <= 1) return names.map((name) => heldOutFold(corpora, name, options));
  const done = new Map<string, Fold>();
  const queue = [...names];
  const workers = Array.from(
    { length: count },
    () => new Worker(new URL('./folds-worker.js', import.meta.url), { workerData: { corpora, options }, ...(resourceLimits ? { resourceLimits } : {}) }),
  );
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let scoring: string | undefined;
            const next = () => {
              scoring = queue.shift();
              if (scoring === undefined) resolve();
              else worker.postMessage(scoring);
            };
            worker.on('message', (reply: Reply) => {
              if ('error' in reply) reject(new Error(`leave-one-corpus-out fold ${reply.name}: ${reply.error}`));
              else {
                if ('fold' in reply) done.set(reply.name, reply.fold);
                next();
              }
            });
            worker.on('error', (error) => reject(workerDied(error, scoring, count)));
            worker.on('exit', (code) => {
              if (code !== 0) reject(new Error(`a leave-one-corpus-out worker stopped with code ${code}${scoring ? ` while scoring fold ${scoring}` : ''}`));
            });
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return names.map((name) => done.get(name)!);
}

/**
 * A worker that runs out of memory is something a person can act on, not a bug: it was reported as the CLI's
 * last-resort "internal error … This is a bug" line with the worker's exit code, naming no fold and no way out.
 */
function workerDied(error: unknown, scoring: string | undefined, workers: number): Error {
  const where = scoring ? `fold ${scoring}` : 'a fold';
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new UserError(
      `leave-one-corpus-out ${where}: its worker ran out of memory (${workers} workers at once, each holding its own copy of the measured corpora). Free memory, or score fewer corpora at once (--held-out a,b or --exclude a,b), and run again.`,
    );
  return new Error(`leave-one-corpus-out ${where}: its worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}

/**
 * `evaluateLeaveOneCorpusOut` with its folds scored in worker threads: the options are given once, so the folds are
 * trained as the report says they were (the same `alwaysTrainOn`, `budgets` and `heldOut`).
 */
export async function evaluateLeaveOneCorpusOutInWorkers(
  corpora: Parameters<typeof evaluateLeaveOneCorpusOut>[0],
  options: Omit<Parameters<typeof evaluateLeaveOneCorpusOut>[1], 'folds'>,
): Promise<EvaluationReport> {
  const { shippedBands: _, typedSeed: __, detail: ___, ...training } = options;
  return evaluateLeaveOneCorpusOut(corpora, { ...options, folds: await foldsInWorkers(corpora, training) });
}

/**
 * A thread per core, as many as free memory holds at a gigabyte each: every worker keeps its own copy of the measured
 * corpora, and at 37 corpora a worker added about 370 MB to the process (816 MB → 1,550 MB with two), so a thread per
 * core of a large machine would have asked for more memory than it has.
 */
function defaultThreads(): number {
  return Math.max(1, Math.min(availableParallelism(), Math.floor(freemem() / 1e9)));
}
