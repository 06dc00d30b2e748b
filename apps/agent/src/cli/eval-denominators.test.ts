import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * What each figure of `sandscope eval` is counted over. S-281: a rate over nothing was 0 in --json and 0.0% on a
 * fold's line. S-282: right source, MRR and the steps share leave out the questions with no labelled passage, and
 * said nothing of them. S-283: a procedure question in another case, or whose labelled section has no steps, left the
 * steps share without a word.
 */
const io = captureOutput();
const harbor = resolve(import.meta.dirname, '../../../../eval-corpora/harbor-runbooks');
const tmp = mkdtempSync(join(tmpdir(), 'eval-denominators-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, rows: readonly object[]) => {
  const path = join(tmp, name);
  writeFileSync(path, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return path;
};

/** A runbook with one numbered procedure and one without steps, and a question of each kind about it. */
function runbook(): string {
  const dir = join(tmp, 'ledger-library');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'ledger-api.md'),
    [
      '# ledger-api runbook',
      '',
      'ledger-api is the HTTP front of the double-entry ledger. It runs as 6 pods in the `payments` namespace behind edge-gateway and writes to ledger-db.',
      '',
      '## Alert: LedgerApiHighLatency',
      '',
      "Fires when the p99 latency of `POST /v1/entries` is above 800 ms for 10 minutes. The usual cause is lock contention in ledger-db during the nightly settlement batch, which starts at 01:30 UTC. Check the settlement job's dashboard before anything else.",
      '',
      '## Mitigation: high latency',
      '',
      '1. Confirm the settlement batch is running: `kubectl -n payments get jobs -l app=settlement`.',
      '2. Pause the settlement batch with `kubectl -n payments patch cronjob settlement -p \'{"spec":{"suspend":true}}\'`.',
      '3. Wait five minutes and check that p99 latency is back under 800 ms.',
      '4. Resume the batch after 06:00 UTC with `suspend: false` and tell #payments-oncall.',
      '',
      '## Timeouts and limits',
      '',
      'The request timeout of ledger-api is 12 seconds. The outbound call to ledger-db has a statement timeout of 5 seconds. Each pod accepts at most 400 concurrent requests; above that it answers 503 with `Retry-After: 2`. The client idempotency key is kept for 24 hours.',
      '',
      '## Rollback',
      '',
      'To roll back a bad ledger-api release, run `argocd app rollback ledger-api` to the previous revision. A rollback does not touch database migrations; a release that ran a migration must be rolled forward instead.',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('eval says what each figure is counted over (S-282, S-283)', () => {
  const library = runbook();
  const questions = write('ledger.jsonl', [
    {
      id: 'latency',
      question: 'ledger-api p99 latency alert is firing, what should I do?',
      label: 'answerable',
      evidence: 'ledger-api#mitigation-high-latency',
      intent: 'Procedure',
    },
    { id: 'rollback', question: 'how do I roll back a bad ledger-api release?', label: 'answerable', evidence: 'ledger-api#rollback', intent: 'procedure' },
    { id: 'pause', question: 'how do I pause the settlement batch?', label: 'answerable', doc: 'ledger-api.md', intent: 'procedure' },
    { id: 'timeout', question: 'what is the request timeout of ledger-api?', label: 'answerable' },
    { id: 'pool', question: 'what is the connection pool ceiling for search-indexer?', label: 'unanswerable' },
  ]);

  it('names the questions right source, MRR and the steps share leave out, and why, beside each figure', async () => {
    expect(await main(['eval', '--corpus', library, '--questions', questions, '--json', '--rows'])).toBe(0);
    const r = JSON.parse(io.out) as {
      countedOver: Record<string, number>;
      questions: {
        id: string;
        verdict: string;
        intent: string | null;
        labelled: string | null;
        procedure: boolean;
        labelledSteps: number | null;
        stepsKept: boolean | null;
      }[];
    };
    // The rows carry what recounts the figures: the intent as read, the labelled passage, and the steps.
    const latency = r.questions.find((q) => q.id === 'latency')!;
    expect(latency).toMatchObject({ intent: 'procedure', labelled: 'ledger-api#mitigation-high-latency', procedure: true, labelledSteps: 4 });
    expect(r.questions.find((q) => q.id === 'rollback')).toMatchObject({ procedure: true, labelledSteps: 0, stepsKept: null });
    expect(r.questions.find((q) => q.id === 'timeout')).toMatchObject({ labelled: null, procedure: false });
    // Each answered as the shipped model scores them today; the counts below follow from that.
    expect(r.questions.filter((q) => q.verdict !== 'refused').map((q) => q.id)).toEqual(['latency', 'rollback', 'pause', 'timeout']);
    expect(r.countedOver).toMatchObject({
      sourced: 3,
      answeredUnlabelled: 1,
      ranked: 3,
      answerableUnlabelled: 1,
      procedureAnswered: 3,
      procedureAnswers: 1,
      procedureUnlabelled: 1,
      procedureWithoutSteps: 1,
    });

    io.out = '';
    expect(await main(['eval', '--corpus', library, '--questions', questions])).toBe(0);
    expect(io.out).toMatch(
      /^ {2}right source {4}100\.0% {3}\(target ≥ 95\.0%; 3 of the 3 answered with a labelled passage cite it, 0 another passage; 1 answered question has no labelled passage and is not counted\)$/m,
    );
    expect(io.out).toMatch(
      /^ {2}procedure steps 100\.0% {3}\(1 of the 1 answered procedure questions with labelled steps carry every one; 2 of the 3 answered procedure questions not counted: 1 with no labelled passage \(none, or a document only\), 1 whose labelled section has fewer than two numbered or bulleted steps\)$/m,
    );
    expect(io.out).toMatch(/^ {2}chunk MRR .*\(over the 3 answerable questions with a labelled passage; 1 with none not counted\)$/m);
  });

  it('says a refusal of a question with no labelled passage named nothing that can be checked, not "0 of them named it"', async () => {
    // Harbor's month-end freeze question is refused by the shipped model; without its document it has no labelled passage.
    const lines = readFileSync(join(harbor, 'questions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const freeze = lines.find((q) => String(q.question).includes('month-end freeze'))!;
    const { doc: _, ...unlabelled } = freeze;
    const file = write('freeze.jsonl', [unlabelled, ...lines.filter((q) => q.label === 'unanswerable')]);
    expect(await main(['eval', '--corpus', harbor, '--questions', file])).toBe(0);
    expect(io.out).toMatch(/^ {2}false refusals +100\.0% .*; none of the 1 had a labelled passage, so whether they named the answer is unknown\)$/m);
    expect(io.out).not.toMatch(/0 of the 1 named the labelled passage/);
  });
});

// S-281: `falseAnswerRate: 0` in --json, and "false answers 0.0%" on each fold's line, where no unanswerable question was scored.
describe('a rate over nothing is null in --json and n/a in text, on each fold’s line as pooled (S-281)', () => {
  const library = join(tmp, 'team-library');
  cpSync(harbor, library, { recursive: true });
  const answerable = write(
    'answerable.jsonl',
    readFileSync(join(harbor, 'questions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { label: string })
      .filter((q) => q.label === 'answerable'),
  );
  type Folds = { falseAnswerRate: number | null; corpora: { name: string; falseAnswerRate: number | null }[] };

  it('eval --cv: each fold of answerable questions has no false-answer rate', async () => {
    expect(await main(['eval', '--corpus', library, '--questions', answerable, '--cv', '--folds', '2', '--json'])).toBe(0);
    const r = JSON.parse(io.out) as Folds;
    expect(r.falseAnswerRate).toBeNull();
    expect(r.corpora.map((c) => [c.name, c.falseAnswerRate])).toEqual([
      ['fold 1', null],
      ['fold 2', null],
    ]);
    io.out = '';
    expect(await main(['eval', '--corpus', library, '--questions', answerable, '--cv', '--folds', '2'])).toBe(0);
    expect(io.out).toMatch(/^ {2}fold 1 +\d+ {2}false answers {4}n\/a {2}false refusals/m);
    expect(io.out).not.toMatch(/false answers {3}0\.0%/);
  });

  it('calibrate --dry-run: the folds and the shipped bands alike', async () => {
    expect(await main(['calibrate', '--corpus', library, '--questions', answerable, '--folds', '2', '--dry-run', '--json'])).toBe(0);
    const r = JSON.parse(io.out) as Folds & { shipped: { falseAnswerRate: number | null } };
    expect([r.falseAnswerRate, r.shipped.falseAnswerRate, ...r.corpora.map((c) => c.falseAnswerRate)]).toEqual([null, null, null, null]);
    io.out = '';
    expect(await main(['calibrate', '--corpus', library, '--questions', answerable, '--folds', '2', '--dry-run'])).toBe(0);
    expect(io.out).toMatch(/^ {2}fold 2 +\d+ {2}false answers {4}n\/a /m);
    expect(io.out).toMatch(/The shipped bands on the same questions: false answers n\/a, false refusals/);
  });
});
