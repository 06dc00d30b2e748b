import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseQuestionsJsonl } from '@sandscope/eval';
import { corpusVersion } from '@sandscope/engine';
import { createRun, finishRun, getFeedback, markRun, saveClaims, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.ts';
import { loadCorpusSource } from '../corpus-source.ts';
import { freePort } from '../limits/private-redis-server.ts';
import { startAgentService } from '../service/compose.ts';
import type { RunResultView } from '../service/run-views.ts';
import { shellArg } from '../shell-arg.ts';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * `sandscope feedback` and `sandscope eval --feedback` against a real embedded
 * database on disk: the agent records a run, the test writes an answer, a
 * refusal and one that never finishes (start-up recovery marks it interrupted
 * when the CLI opens the database), then closes it (PGlite has one owner per
 * directory); the CLI opens it the way a person's terminal would, through
 * SANDSCOPE_DATA_DIR.
 */
const io = captureOutput();

const tmp = mkdtempSync(join(tmpdir(), 'sandscope-feedback-'));
const dataDir = join(tmp, 'data');
const emptyDataDir = join(tmp, 'unmarked');
/** A real run through the agent: whatever the gate makes of it, it has a verdict. */
let asked: RunResultView;
/** Runs written straight to the store, so their verdicts (and citations) are the test's choice, not the gate's. */
let answeredId: string;
let citedChunks: string[];
let refusedId: string;
let unfinishedId: string;

async function finished(store: Store, corpusVersion: string, question: string, verdict: 'answered' | 'refused', citations: string[] = []): Promise<string> {
  const run = await createRun(store.db, { sessionId: 'cli-test', ownerId: store.ownerId, workload: 'triage', question, corpusVersion });
  if (citations.length > 0) await saveClaims(store.db, run.id, [{ text: 'A claim.', citations }]);
  await finishRun(store.db, run.id, {
    status: 'completed',
    terminal: verdict === 'refused' ? 'refuse' : 'emit',
    verdict,
    band: verdict === 'refused' ? 'insufficient' : 'sufficient',
  });
  return run.id;
}

async function seedRuns(): Promise<void> {
  const parsed = loadConfig({});
  if (!parsed.ok) throw new Error(parsed.message);
  const store = await startStore({ dataDir: join(dataDir, 'pglite') });
  const agent = await startAgentService({ config: { ...parsed.config, agentToken: 'unused-token-0123456789' }, store, log: () => {} });
  try {
    const version = agent.kb.version;
    asked = await agent.runs.start({ question: 'What is the connection pool ceiling for orders-db?', workload: 'triage', sessionId: 'cli-test' });
    citedChunks = agent.kb.chunks.slice(0, 2).map((c) => c.id);
    answeredId = await finished(store, version, 'Who approves a production change?', 'answered', citedChunks);
    refusedId = await finished(store, version, 'How do we rotate DNS records for the storefront?', 'refused');
    unfinishedId = (
      await createRun(store.db, { sessionId: 'cli-test', ownerId: store.ownerId, workload: 'triage', question: 'still thinking?', corpusVersion: version })
    ).id;
  } finally {
    await agent.close();
    await store.close();
  }
  // A database that exists but holds no marks.
  await (await startStore({ dataDir: join(emptyDataDir, 'pglite') })).close();
}

beforeAll(async () => {
  await seedRuns();
  // Answered, so its draft is in the semantic cache for the wrong-answer mark below to evict.
  expect(asked.verdict).toBe('answered');
  vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
  vi.stubEnv('DATABASE_URL', '');
  vi.stubEnv('REDIS_URL', undefined);
}, 120_000);

afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

const oneLine = () => {
  expect(io.err.trim().split('\n')).toHaveLength(1);
  expect(io.err).not.toMatch(/\n\s+at /);
  expect(io.err).toMatch(/^sandscope: /);
};

describe('sandscope feedback', () => {
  it('marks runs; marking again replaces the mark; --export writes what eval --questions reads, labels derived', async () => {
    expect(await main(['feedback', answeredId, '--label', 'right', '--note', 'cites the change policy'])).toBe(0);
    expect(io.out).toMatch(new RegExp(`^Marked run ${answeredId} right \\(note: cites the change policy\\)\\. It had no earlier mark\\.`));
    // S-286: a right answer naming no passage is not labelled with its own citation; it is said how to confirm it.
    expect(io.out).toContain(
      `It names no passage that answers, so \`eval --feedback\` leaves its source unscored: the run's own citation would be right by construction. If ${citedChunks[0]}, which it cited, answers it, confirm it: \`npx sandscope feedback ${answeredId} --label right --evidence ${shellArg(citedChunks[0]!)}\`.`,
    );
    expect(await main(['feedback', refusedId, '--label', 'right'])).toBe(0);
    expect(await main(['feedback', refusedId, '--label', 'wrong-refusal', '--note', 'the paging policy covers DNS'])).toBe(0);
    io.out = '';
    expect(await main(['feedback', asked.runId, '--label', 'wrong-answer'])).toBe(0);
    // S-132: the marked answer leaves the cache the agent serves from (this database's, REDIS_URL being unset).
    expect(io.out).toMatch(/\nIts answer is no longer served from the semantic cache \(database \(embedded PGlite/);

    const file = join(tmp, 'marks.jsonl');
    io.out = '';
    expect(await main(['feedback', '--export', file])).toBe(0);
    expect(io.out).toMatch(/^Wrote 3 marks from marked runs in PGlite at .* \(2 answerable, 1 unanswerable\)/);
    expect(io.out).toContain('1 answer marked right names no passage that answers: its source is not scored');
    const { questions, bad } = parseQuestionsJsonl(readFileSync(file, 'utf8'));
    expect(bad).toEqual([]);
    // Newest first; a re-marked run counts as marked when it was marked again.
    expect(questions).toEqual([
      { id: `feedback-${asked.runId}`, question: asked.question, label: 'unanswerable', mechanism: 'feedback-wrong-answer' },
      { id: `feedback-${refusedId}`, question: 'How do we rotate DNS records for the storefront?', label: 'answerable', mechanism: 'feedback-wrong-refusal' },
      // S-286: not labelled with the run's own first citation, which eval would find again by construction.
      { id: `feedback-${answeredId}`, question: 'Who approves a production change?', label: 'answerable', mechanism: 'feedback-right' },
    ]);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { note?: string });
    expect(lines.map((l) => l.note)).toEqual([undefined, 'the paging policy covers DNS', 'cites the change policy']);
  });

  it('eval --feedback scores the marks exactly as eval --questions scores their export, with what ships', async () => {
    const file = join(tmp, 'scored.jsonl');
    expect(await main(['feedback', '--export', file])).toBe(0);
    io.out = '';
    expect(await main(['eval', '--feedback', '--json'])).toBe(0);
    const fromMarks = JSON.parse(io.out) as Record<string, unknown>;
    io.out = '';
    expect(await main(['eval', '--questions', file, '--json'])).toBe(0);
    const fromFile = JSON.parse(io.out) as Record<string, unknown>;
    // Scored with what ships and tuned on nothing, as an external file is (not cross-validated on the marks).
    expect(fromMarks.mode).toMatch(/^shipped-/);
    expect(fromMarks).toMatchObject({ n: 3, answerable: 2, unanswerable: 1, questionsFrom: expect.stringMatching(/^marked runs in PGlite at /) });
    expect(Object.keys(fromMarks.byMechanism as object).sort()).toEqual(['feedback-right', 'feedback-wrong-answer', 'feedback-wrong-refusal']);
    for (const key of ['mode', 'n', 'falseAnswerRate', 'falseRefusalRate', 'deferralRate', 'mrr', 'recallAt6', 'byMechanism', 'bands', 'bandsFrom']) {
      expect(fromMarks[key], key).toEqual(fromFile[key]);
    }
  });

  it('a wrong-answer mark whose cache cannot be reached says the answer could not be removed and will not be served (S-264)', async () => {
    // A REDIS_URL nothing listens on: the cache's Redis is down (IP_SALT, as the settings require with REDIS_URL).
    vi.stubEnv('REDIS_URL', `redis://127.0.0.1:${await freePort()}/0`);
    vi.stubEnv('IP_SALT', 'salt-for-tests-0123456789');
    try {
      io.out = '';
      io.err = '';
      expect(await main(['feedback', asked.runId, '--label', 'wrong-answer', '--note', 'the ceiling is for events-bus'])).toBe(0);
      expect(io.out).toMatch(new RegExp(`^Marked run ${asked.runId} wrong-answer`));
      expect(io.out).toMatch(
        /\nThe cached answer could not be removed now \(Redis \(shared by every replica\) failed: [^)]+\); the mark is kept, and the answer will not be served from the cache again: every replica checks a cached answer against the marks before serving it\.\n$/,
      );
      // Not the old advice to mark it again once the cache is reachable: nothing is left to do.
      expect(io.err).not.toMatch(/mark it again/);
    } finally {
      vi.stubEnv('REDIS_URL', undefined);
    }
    // What stops it being served: the mark, and with it the withdrawal of the keys its run drafted under.
    const store = await startStore({ dataDir: join(dataDir, 'pglite') });
    try {
      expect(await getFeedback(store.db, asked.runId)).toMatchObject({ label: 'wrong-answer', note: 'the ceiling is for events-bus' });
      expect(await store.db.query('select run_id::text from cache_withdrawal where run_id = $1', [asked.runId])).not.toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('bad input against a database gets one line and a non-zero exit', () => {
  it('an existing file is never overwritten without --force: a hand-labelled set there is kept', async () => {
    const file = join(tmp, 'labelled.jsonl');
    const labelled = '{"question":"Who owns the ledger?","label":"answerable"}\n';
    writeFileSync(file, labelled);
    expect(await main(['feedback', '--export', file])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/labelled\.jsonl already exists\. Pass --force to replace it, or another --export path\./);
    expect(readFileSync(file, 'utf8')).toBe(labelled);
    io.out = '';
    expect(await main(['feedback', '--export', file, '--force'])).toBe(0);
    expect(io.out).toMatch(/^Wrote 3 marks/);
  });
  it('a run that is not there, and one without a verdict', async () => {
    expect(await main(['feedback', '00000000-0000-4000-8000-000000000000', '--label', 'right'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(
      /there is no run 00000000-0000-4000-8000-000000000000 in PGlite at .*Check the id.*ask records nothing; mark runs asked on the website or the API/,
    );
    io.err = '';
    expect(await main(['feedback', unfinishedId, '--label', 'right'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(new RegExp(`run ${unfinishedId} is interrupted and has no verdict\\. Mark a run that answered`));
  });

  it('a mark the run contradicts: wrong-refusal on an answer, wrong-answer on a refusal; the earlier mark is kept (S-210)', async () => {
    // Stored, the answer marked wrong-refusal was exported answerable with no evidence: its cited passage was lost.
    expect(await main(['feedback', answeredId, '--label', 'wrong-refusal'])).toBe(2);
    oneLine();
    expect(io.err).toBe(
      `sandscope: run ${answeredId} answered, and wrong-refusal says it refused what the library answers: a run that answered is marked wrong-answer or right. Nothing was marked.\n`,
    );
    io.err = '';
    expect(await main(['feedback', refusedId, '--label', 'wrong-answer', '--note', 'should not be kept'])).toBe(2);
    oneLine();
    expect(io.err).toBe(
      `sandscope: run ${refusedId} refused, and wrong-answer says it answered what the library cannot answer: a run that refused is marked wrong-refusal or right. Nothing was marked.\n`,
    );
    const store = await startStore({ dataDir: join(dataDir, 'pglite') });
    try {
      expect(await getFeedback(store.db, answeredId)).toMatchObject({ label: 'right', note: 'cites the change policy' });
      expect(await getFeedback(store.db, refusedId)).toMatchObject({ label: 'wrong-refusal', note: 'the paging policy covers DNS' });
    } finally {
      await store.close();
    }
  });

  it('a database another process has open is refused before it is touched', async () => {
    // The owner recorded beside the folder is alive (this test's parent process stands in for a running agent).
    const owner = join(dataDir, 'pglite.owner');
    writeFileSync(owner, `${process.ppid}\n`);
    try {
      expect(await main(['feedback', answeredId, '--label', 'right'])).toBe(2);
      oneLine();
      expect(io.err).toMatch(new RegExp(`is open in another process \\(pid ${process.ppid}: is \`npm start\` or \`npx sandscope serve\` running\\?\\)`));
    } finally {
      rmSync(owner);
    }
  });

  // S-228: a command stopped by Ctrl-C left PGlite's postmaster.pid and its own dead pid behind, and every later command
  // was refused as if a server had the folder open, until a person deleted the file.
  it('a database a stopped command left behind is opened, not refused', async () => {
    const pid = join(dataDir, 'pglite', 'postmaster.pid');
    writeFileSync(pid, '-42\n');
    writeFileSync(join(dataDir, 'pglite.owner'), '999999999\n');
    expect(await main(['feedback', answeredId, '--label', 'right', '--note', 'cites the change policy'])).toBe(0);
    expect(existsSync(pid)).toBe(false);
  });

  it('no marks yet: eval --feedback and --export say how to add some', async () => {
    vi.stubEnv('SANDSCOPE_DATA_DIR', emptyDataDir);
    try {
      for (const argv of [
        ['eval', '--feedback'],
        ['feedback', '--export', join(tmp, 'none.jsonl')],
      ]) {
        io.err = '';
        expect(await main(argv)).toBe(2);
        oneLine();
        expect(io.err).toMatch(
          /no runs have been marked yet in PGlite at .*Mark a run on its page in the website \("Was this right\?"\) or with `npx sandscope feedback RUN_ID --label/,
        );
      }
    } finally {
      vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
    }
  });
});

describe('eval --feedback on marks of runs answered from another corpus version (S-210)', () => {
  // A `CORPUS_DIR=lib serve` recorded these; `eval --feedback` without --corpus scored them on the bundled corpus:
  // "false refusals 100%", their cited passages "matching no passage", with only a parenthetical warning.
  const otherDir = join(tmp, 'other-library');
  const OTHER = '0123456789abcdef';
  const bundled = loadCorpusSource();
  const bundledVersion = corpusVersion(bundled.documents);

  async function marked(runs: [version: string, question: string, verdict: 'answered' | 'refused', label: 'right' | 'wrong-refusal'][]): Promise<void> {
    const store = await startStore({ dataDir: join(otherDir, 'pglite') });
    try {
      for (const [version, question, verdict, label] of runs) await markRun(store.db, { runId: await finished(store, version, question, verdict), label });
    } finally {
      await store.close();
    }
  }

  beforeAll(async () => {
    await marked([
      [OTHER, 'How do I drain a gizmo before its firmware update?', 'refused', 'wrong-refusal'],
      [OTHER, 'Who owns the gizmo fleet?', 'refused', 'wrong-refusal'],
    ]);
  }, 60_000);

  const inOther = async (argv: string[]) => {
    vi.stubEnv('SANDSCOPE_DATA_DIR', otherDir);
    vi.stubEnv('CORPUS_DIR', undefined);
    try {
      io.err = '';
      io.out = '';
      return await main(argv);
    } finally {
      vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
    }
  };

  it('without --corpus, refuses in one line naming both versions and saying to pass --corpus DIR', async () => {
    expect(bundledVersion).not.toBe(OTHER);
    expect(await inOther(['eval', '--feedback'])).toBe(2);
    oneLine();
    expect(io.out).toBe('');
    expect(io.err).toBe(
      `sandscope: the 2 marked runs were answered from corpus version ${OTHER}, but without --corpus they would be scored on the bundled corpus at ${bundled.root} (version ${bundledVersion}). Pass --corpus DIR (or set CORPUS_DIR) for the library the agent answered them from; to score them on the bundled corpus all the same, pass --corpus ${bundled.root}.\n`,
    );
  });

  it("marks on several versions: says how many are on each, this corpus's named", async () => {
    await marked([
      ['fedcba9876543210', 'How do we page the gizmo on-call?', 'refused', 'wrong-refusal'],
      [bundledVersion, 'What is the connection pool ceiling for orders-db?', 'answered', 'right'],
    ]);
    expect(await inOther(['eval', '--feedback', '--json'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(
      new RegExp(
        `^sandscope: the 4 marks are on runs answered from 3 corpus versions, ${OTHER} \\(2 marks\\), (${bundledVersion} \\(1 mark, this corpus’s\\), fedcba9876543210 \\(1 mark\\)|fedcba9876543210 \\(1 mark\\), ${bundledVersion} \\(1 mark, this corpus’s\\)), but without --corpus they would be scored on the bundled corpus at .* \\(version ${bundledVersion}\\)\\. Pass --corpus DIR`,
      ),
    );
  });

  it('with a library named (--corpus), scores them, with a note saying how many are on another version', async () => {
    expect(await inOther(['eval', '--feedback', '--corpus', bundled.root, '--json'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ n: expect.any(Number), questionsFrom: expect.stringMatching(/^marked runs in PGlite at /) });
    expect(io.err).toContain(
      `sandscope: note: 3 of the 4 marks are on runs answered from another corpus version than the library at ${bundled.root} (version ${bundledVersion}): ${OTHER} (2 marks), fedcba9876543210 (1 mark). They are scored on its text as it is now`,
    );
  });
});

describe('a mark names the passage that answers, says what it replaced, and one question is scored once (S-286 to S-290)', () => {
  const POOL_STEPS = 'runbook-connection-pool-exhaustion#confirm-the-pool-is-saturated';
  const rowsOf = async (argv: string[]) => {
    io.out = '';
    io.err = '';
    expect(await main(argv)).toBe(0);
    return JSON.parse(io.out) as { n: number; questions: { id: string; question: string; label: string; source: string | null }[]; marksLeftOut?: unknown[] };
  };

  it('wrong-answer naming a quotation of the passage that answers: exported answerable with that passage, scored wrong source (S-286, S-289)', async () => {
    io.out = '';
    const evidence = 'Connect to the pooler admin console';
    expect(await main(['feedback', asked.runId, '--label', 'wrong-answer', '--note', 'the steps are in the runbook', '--evidence', evidence])).toBe(0);
    // The earlier mark is named as it was (S-289): a colleague's mark was replaced without a word.
    expect(io.out).toMatch(
      new RegExp(
        `^Marked run ${asked.runId} wrong-answer \\(note: the steps are in the runbook\\) \\(the passage that answers: ${POOL_STEPS}\\)\\. It replaced the earlier mark: wrong-answer, note "the ceiling is for events-bus", made \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\. `,
      ),
    );
    const { questions } = await rowsOf(['eval', '--feedback', '--json', '--rows']);
    // Exported as an answerable question labelled with the passage named: the answer, from another passage, is wrong source.
    expect(questions.find((q) => q.id === `feedback-${asked.runId}`)).toMatchObject({ label: 'answerable', source: 'wrong', labelled: POOL_STEPS });
  });

  it('a passage that matches none, or several, and right naming a passage the run did not cite: one line, nothing marked (S-286)', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--label', 'wrong-answer', '--evidence', 'the pooler admin consoel'],
        new RegExp(
          `^sandscope: --evidence: the passage that answers matches no passage: "the pooler admin consoel"; the passage sharing most of its words is ${POOL_STEPS} .*Nothing was marked\\. Name the passage by its id \\(\`npx sandscope passages\` lists them\\), or quote a sentence only it holds\\.\\n$`,
        ),
      ],
      [
        ['--label', 'wrong-answer', '--evidence', 'orders-db'],
        /^sandscope: --evidence: the passage that answers matches \d+ passages \(.*\); quote more of the answering one\. Nothing was marked\./,
      ],
      [
        ['--label', 'right', '--evidence', POOL_STEPS],
        new RegExp(
          `^sandscope: run ${asked.runId} cited .*, not ${POOL_STEPS}: right with a passage confirms the one the run answered from\\. An answer from another passage than the one that answers is marked wrong-answer, with that passage\\. Nothing was marked\\.\\n$`,
        ),
      ],
    ];
    for (const [flags, expected] of cases) {
      io.err = '';
      expect(await main(['feedback', asked.runId, ...flags])).toBe(2);
      oneLine();
      expect(io.err).toMatch(expected);
    }
    const store = await startStore({ dataDir: join(dataDir, 'pglite') });
    try {
      expect(await getFeedback(store.db, asked.runId)).toMatchObject({ label: 'wrong-answer', evidence: POOL_STEPS });
    } finally {
      await store.close();
    }
    io.err = '';
    expect(await main(['feedback', asked.runId, '--label', 'right', '--corpus', join(tmp, 'nowhere')])).toBe(2);
    expect(io.err).toMatch(/--corpus names the library --evidence is matched against; without --evidence it does nothing/);
  });

  it('two runs of one question marked right and wrong-answer: the export and eval keep the newest, and say which they left out (S-287)', async () => {
    const question = 'Who approves a production change?';
    // A second run of answeredId's question, marked the other way, later.
    const store = await startStore({ dataDir: join(dataDir, 'pglite') });
    let again: string;
    try {
      again = await finished(store, corpusVersion(loadCorpusSource().documents), 'WHO  approves a production change?', 'answered', citedChunks);
      await markRun(store.db, { runId: again, label: 'wrong-answer', note: 'no, the CAB does' });
    } finally {
      await store.close();
    }
    const file = join(tmp, 'conflict.jsonl');
    io.out = '';
    expect(await main(['feedback', '--export', file])).toBe(0);
    const exported = parseQuestionsJsonl(readFileSync(file, 'utf8'));
    // One line for the question, the newest mark's; `eval --questions` reads the file whole (it refuses one question twice).
    expect(exported.bad).toEqual([]);
    expect(exported.questions.filter((q) => q.question.replace(/\s+/g, ' ').toLowerCase() === question.toLowerCase())).toEqual([
      { id: `feedback-${again}`, question: 'WHO  approves a production change?', label: 'unanswerable', mechanism: 'feedback-wrong-answer' },
    ]);
    expect(io.out).toMatch(/^Wrote \d+ questions from the \d+ marks from marked runs in PGlite at /);
    expect(io.out).toContain('1 mark left out (1 in conflict): a question is scored once, by its newest mark, as marking a run again replaces its mark.');
    expect(io.out).toMatch(
      new RegExp(
        `\\n  conflict: "Who approves a production change\\?" — kept wrong-answer on run ${again} \\([^)]+ UTC\\); left out right on run ${answeredId} \\([^)]+ UTC\\), which says otherwise of what the library answers\\. If the older mark is the right one, mark run ${again} again to agree with it\\.\\n`,
      ),
    );
    const report = await rowsOf(['eval', '--feedback', '--json', '--rows']);
    expect(report.questions.filter((q) => q.id === `feedback-${answeredId}` || q.id === `feedback-${again}`).map((q) => q.id)).toEqual([`feedback-${again}`]);
    expect(report.n).toBe(exported.questions.length);
    expect(report.marksLeftOut).toEqual([{ runId: answeredId, question, label: 'right', kind: 'conflict', keptRunId: again, keptLabel: 'wrong-answer' }]);
    expect(io.err).toContain('sandscope: note: 1 mark left out (1 in conflict): a question is scored once, by its newest mark');
  });

  it('--export - writes the marks to standard output and what it says of them to standard error; no file named - (S-290)', async () => {
    const cwd = process.cwd();
    const here = mkdtempSync(join(tmp, 'cwd-'));
    process.chdir(here);
    try {
      io.out = '';
      io.err = '';
      expect(await main(['feedback', '--export', '-'])).toBe(0);
      expect(existsSync(join(here, '-'))).toBe(false);
      const { questions, bad } = parseQuestionsJsonl(io.out);
      expect(bad).toEqual([]);
      expect(questions.length).toBeGreaterThan(0);
      expect(io.err).toMatch(/^sandscope: Wrote .* to standard output \(\d+ answerable, \d+ unanswerable\)\.\n/);
      io.err = '';
      expect(await main(['feedback', '--export', '-', '--force'])).toBe(2);
      oneLine();
      expect(io.err).toMatch(/--export - writes the marks to standard output, which --force has nothing to replace in/);
    } finally {
      process.chdir(cwd);
    }
  });

  it('a question of 1,000 emoji, which the API takes (1,000 characters), is read back from the export by eval --questions (S-288)', async () => {
    const emoji = '🙂'.repeat(1000);
    const store = await startStore({ dataDir: join(dataDir, 'pglite') });
    let runId: string;
    try {
      runId = await finished(store, corpusVersion(loadCorpusSource().documents), emoji, 'refused');
      await markRun(store.db, { runId, label: 'right' });
    } finally {
      await store.close();
    }
    const file = join(tmp, 'emoji.jsonl');
    expect(await main(['feedback', '--export', file])).toBe(0);
    // Refused before as "the question is 2000 characters; the limit is 1000": UTF-16 units, where the API counts characters.
    const report = await rowsOf(['eval', '--questions', file, '--json', '--rows']);
    expect(report.questions.find((q) => q.id === `feedback-${runId}`)).toMatchObject({ question: emoji, label: 'unanswerable' });
  });
});
