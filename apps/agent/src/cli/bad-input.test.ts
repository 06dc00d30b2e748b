import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/** What a person sees at the CLI boundary: an answer, or one line saying what to do — never a stack trace. */
const io = captureOutput();

const tmp = mkdtempSync(join(tmpdir(), 'sandscope-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const oneLine = () => {
  expect(io.err.trim().split('\n')).toHaveLength(1);
  expect(io.err).not.toMatch(/\n\s+at /);
  expect(io.err).toMatch(/^sandscope: /);
};

describe('the done-when questions of the core issue', () => {
  it('answers the orders-db ceiling, citing the passage that states 100', async () => {
    expect(await main(['ask', '--json', 'What is the connection pool ceiling for orders-db?'])).toBe(0);
    const r = JSON.parse(io.out) as { verdict: string; claims: { text: string; citations: string[] }[]; sources: { chunkId: string; text: string }[] };
    expect(r.verdict).toBe('answered');
    const cited = r.sources.filter((s) => r.claims.some((c) => c.citations.includes(s.chunkId)));
    expect(cited.some((s) => /\b100\b/.test(s.text) && s.text.includes('orders-db'))).toBe(true);
  });
  it('refuses the events-bus ceiling (documented for orders-db only) and a DNS question', async () => {
    expect(await main(['ask', '--json', 'What is the connection pool ceiling for events-bus?'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ verdict: 'refused', terminal: 'refuse', claims: [] });
    io.out = '';
    expect(await main(['ask', '--json', 'How do we rotate DNS records for the storefront?'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ verdict: 'refused', terminal: 'refuse', claims: [] });
  });
});

describe('bad input gets one line and a non-zero exit', () => {
  it('an empty question', async () => {
    expect(await main(['ask', '   '])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/question is empty/);
  });
  it('an over-long question', async () => {
    expect(await main(['ask', 'why '.repeat(400)])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/limit is 1000/);
  });
  it('a missing corpus folder, a file given as a folder, an empty folder', async () => {
    expect(await main(['ask', '--corpus', join(tmp, 'nope'), 'q?'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/corpus folder not found/);
    io.err = '';
    writeFileSync(join(tmp, 'file.md'), '# x');
    expect(await main(['ask', '--corpus', join(tmp, 'file.md'), 'q?'])).toBe(2);
    expect(io.err).toMatch(/must be a folder/);
    io.err = '';
    mkdirSync(join(tmp, 'empty'));
    expect(await main(['ask', '--corpus', join(tmp, 'empty'), 'q?'])).toBe(2);
    expect(io.err).toMatch(/no markdown/);
    // S-145: an empty --corpus "$DIR" read the working folder (in the repository, its own docs).
    io.err = '';
    expect(await main(['ask', '--corpus', '', 'q?'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/the corpus folder is empty/);
  });

  it('CORPUS_DIR names the library ask reads, as it does for serve, and ask says so (S-145)', async () => {
    const lib = join(tmp, 'lib');
    mkdirSync(lib);
    writeFileSync(
      join(lib, 'gizmo.md'),
      '# Gizmo\n\n## Restarting the gizmo\n\nRestart the gizmo with `gizmoctl restart` after draining its queue; it takes about 40 seconds to come back.\n',
    );
    vi.stubEnv('CORPUS_DIR', lib);
    try {
      expect(await main(['ask', '--json', 'What is the connection pool ceiling for orders-db?'])).toBe(0);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(io.err).toContain(`answering from ${lib} (CORPUS_DIR)`);
    // The bundled corpus would have answered it (orders-db's ceiling is 100); this library never names orders-db.
    expect(JSON.parse(io.out.slice(io.out.indexOf('{')))).toMatchObject({ outcome: 'refused' });
  });
  it('a broken symbolic link in the corpus is named as one, with where it points', async () => {
    mkdirSync(join(tmp, 'unreadable'));
    writeFileSync(join(tmp, 'unreadable', 'ok.md'), '# Ok\n\nA passage about the ledger that is long enough to index on its own.');
    symlinkSync(join(tmp, 'does-not-exist.md'), join(tmp, 'unreadable', 'gone.md'));
    expect(await main(['ask', '--corpus', join(tmp, 'unreadable'), 'q?'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/gone\.md is a broken symbolic link: it points to .*does-not-exist\.md, which does not exist\. Fix the link or remove it\./);
  });
  it('an unknown option and an unknown command', async () => {
    expect(await main(['ask', '--nope', 'q?'])).toBe(2);
    oneLine();
    io.err = '';
    expect(await main(['frobnicate'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/unknown command "frobnicate"/);
  });
  it('questions --out in a folder that does not exist, or that is a folder: one line before the corpus is indexed', async () => {
    expect(await main(['questions', '--out', join(tmp, 'no-such-folder', 'q.jsonl')])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/cannot write .*q\.jsonl: the folder .*no-such-folder does not exist\. Create it, or pass another --out path\./);
    io.err = '';
    expect(await main(['questions', '--out', tmp])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/is a folder\. Pass --out with a file name/);
  });
  it("questions does not replace an existing file without --force: the default is the corpus's own, perhaps hand-labelled, set", async () => {
    // The default --out is the corpus's own questions.jsonl: for the development corpora, a hand-labelled set.
    const corpus = join(tmp, 'labelled');
    mkdirSync(corpus);
    writeFileSync(join(corpus, 'disk.md'), '# Disk\n\nThe disk alert fires at 85 percent of the volume; page the storage on-call.\n');
    const labelled = '{"question":"When does the disk alert fire?","label":"answerable"}\n';
    writeFileSync(join(corpus, 'questions.jsonl'), labelled);
    writeFileSync(join(tmp, 'mine.jsonl'), labelled);
    for (const [argv, path] of [
      [['questions', '--corpus', corpus], join(corpus, 'questions.jsonl')],
      [['questions', '--corpus', corpus, '--out', join(tmp, 'mine.jsonl')], join(tmp, 'mine.jsonl')],
    ] as const) {
      io.err = '';
      expect(await main([...argv]), argv.join(' ')).toBe(2);
      oneLine();
      expect(io.err).toBe(`sandscope: ${path} already exists. Pass --force to replace it, or --out with another path.\n`);
      expect(readFileSync(path, 'utf8')).toBe(labelled);
    }
    expect(await main(['questions', '--corpus', corpus, '--force'])).toBe(0);
    expect(readFileSync(join(corpus, 'questions.jsonl'), 'utf8')).not.toBe(labelled);
    expect(io.out).toMatch(/^Wrote \d+ questions to /);
  });
  it('calibrate checks --folds before the corpus is read and its questions measured', async () => {
    for (const folds of ['1', 'five', '21']) {
      io.err = '';
      expect(await main(['calibrate', '--corpus', join(tmp, 'not-read-yet'), '--folds', folds])).toBe(2);
      oneLine();
      expect(io.err).toBe(`sandscope: --folds must be a whole number from 2 to 20 (got "${folds}").\n`);
    }
  });
  it('eval refuses --folds and --seed where nothing is split into folds, before the corpus is read (S-159)', async () => {
    const file = join(tmp, 'folds.jsonl');
    writeFileSync(file, '{"id":"q1","question":"x?","label":"unanswerable"}\n');
    for (const [argv, said] of [
      [
        ['eval', '--corpus', join(tmp, 'not-read-yet'), '--questions', file, '--folds', '3'],
        'sandscope: --folds splits a cross-validated run (--cv, or a corpus’s own questions); this run scores the set with what ships. Add --cv to cross-validate it, or drop --folds.\n',
      ],
      [
        ['eval', '--loco', '--seed', '7'],
        'sandscope: --seed splits a cross-validated run (--cv, or a corpus’s own questions); this run holds out whole corpora (--loco). Add --cv to cross-validate it, or drop --seed.\n',
      ],
    ] as const) {
      io.err = '';
      expect(await main([...argv]), argv.join(' ')).toBe(2);
      expect(io.err).toBe(said);
    }
  });
  it('a stray argument to a command that takes options only is refused, not ignored', async () => {
    // `questions out.jsonl` wrote the corpus's own questions.jsonl; `eval mine.jsonl` scored another set.
    const corpus = join(tmp, 'stray');
    mkdirSync(corpus);
    writeFileSync(join(corpus, 'disk.md'), '# Disk\n\nThe disk alert fires at 85 percent of the volume.\n');
    for (const argv of [
      ['questions', '--corpus', corpus, 'out.jsonl'],
      ['eval', '--corpus', corpus, 'mine.jsonl'],
      ['calibrate', '--corpus', corpus, 'mine.jsonl'],
      ['graph', 'json'],
    ]) {
      io.err = '';
      io.out = '';
      expect(await main(argv), argv.join(' ')).toBe(2);
      oneLine();
      expect(io.err).toMatch(
        new RegExp(`^sandscope: ${argv[0]} takes options only, not "${argv.at(-1)}"\\. \`npx sandscope ${argv[0]} --help\` lists its options\\.`),
      );
    }
    expect(existsSync(join(corpus, 'questions.jsonl'))).toBe(false);
  });
  it('a malformed question file stops before scoring, naming the lines; --skip-bad scores the rest', async () => {
    const file = join(tmp, 'q.jsonl');
    writeFileSync(
      file,
      '{"question":"What is the pool ceiling for orders-db?","label":"answerable"}\nnot json\n{"question":"DNS?","label":"nope"}\n{"question":"How do we rotate DNS?","label":"unanswerable"}\n',
    );
    expect(await main(['eval', '--questions', file, '--json'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/2 malformed line\(s\).*line 2: not JSON.*line 3: label/);
    io.err = '';
    expect(await main(['eval', '--questions', file, '--json', '--skip-bad'])).toBe(0);
    // S-210: the JSON report says which lines were left out, and why; stderr gives the reasons too, not the numbers only.
    expect(JSON.parse(io.out)).toMatchObject({
      n: 2,
      mode: 'shipped-model',
      skipped: [
        { line: 2, reason: expect.stringMatching(/^not JSON/) },
        { line: 3, reason: expect.stringMatching(/^label: /) },
      ],
    });
    expect(io.err).toMatch(/skipped 2 malformed line\(s\) — line 2: not JSON .*; line 3: label: [^\n]*\n/);
    expect(io.err).not.toMatch(/more/);
  });
  // S-284: the same question twice was scored twice; labelled both ways, the pair made a false answer by itself.
  it('the same question twice is a bad line; labelled both ways it stops the run even with --skip-bad, which cannot tell which label is right', async () => {
    const file = join(tmp, 'twice.jsonl');
    const pool = 'What is the pool ceiling for orders-db?';
    writeFileSync(
      file,
      [
        { question: pool, label: 'answerable' },
        { question: ' what is the POOL ceiling for orders-db? ', label: 'answerable' },
        { question: 'How do we rotate DNS?', label: 'unanswerable' },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    expect(await main(['eval', '--questions', file, '--json'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/1 malformed line\(s\).*line 2: the same question as line 1 \(case and spacing aside\)/);
    io.err = '';
    expect(await main(['eval', '--questions', file, '--json', '--skip-bad'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ n: 2, skipped: [{ line: 2, reason: expect.stringMatching(/^the same question as line 1/) }] });
    writeFileSync(file, `${JSON.stringify({ question: pool, label: 'answerable' })}\n${JSON.stringify({ question: pool, label: 'unanswerable' })}\n`);
    for (const skip of [[], ['--skip-bad']]) {
      io.err = '';
      io.out = '';
      expect(await main(['eval', '--questions', file, '--json', ...skip])).toBe(2);
      oneLine();
      expect(io.out).toBe('');
      expect(io.err).toMatch(
        /1 question\(s\) in .* labelled both answerable and unanswerable — line 2: .*labelled unanswerable here and answerable there.*Fix the labels/,
      );
    }
  });

  it('--skip-bad over thousands of bad lines names the first ten with their reasons and how many more; --json lists every one (S-210)', async () => {
    const file = join(tmp, 'many-bad.jsonl');
    const bad = Array.from({ length: 5000 }, (_, i) => `bad ${i}`);
    writeFileSync(file, `${[...bad, '{"question":"What is the pool ceiling for orders-db?","label":"answerable"}'].join('\n')}\n`);
    expect(await main(['eval', '--questions', file, '--json', '--skip-bad'])).toBe(0);
    const r = JSON.parse(io.out) as { n: number; skipped: { line: number; reason: string }[] };
    expect(r.n).toBe(1);
    expect(r.skipped).toHaveLength(5000);
    expect(r.skipped.at(-1)).toEqual({ line: 5000, reason: expect.stringMatching(/^not JSON/) });
    const said = io.err.split('\n').find((l) => l.includes('skipped'))!;
    // It was one 29 KB line of 5,000 line numbers.
    expect(said.length).toBeLessThan(1200);
    expect(said).toMatch(
      /^sandscope: skipped 5000 malformed line\(s\) — line 1: not JSON .*; line 10: not JSON [^;]*; and 4990 more \(--json lists every one, as "skipped"\)$/,
    );
  });
  it('a question longer than `ask` takes is a bad line, by the rule `ask` refuses it by; --skip-bad leaves it out (S-210)', async () => {
    // A 900,000-character question was scored, and counted as a false answer, where `ask` refused it.
    const long = `What is the pool ceiling ${'for orders-db '.repeat(80)}?`.replace(/ \?$/, '?');
    expect(long.length).toBeGreaterThan(1000);
    expect(await main(['ask', long])).toBe(2);
    const askSaid = /the question is \d+ characters; the limit is 1000/.exec(io.err)![0];
    const file = join(tmp, 'long.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ question: 'What is the pool ceiling for orders-db?', label: 'answerable' }),
        JSON.stringify({ question: long, label: 'unanswerable' }),
        JSON.stringify({ question: 'How do we rotate DNS?', label: 'unanswerable' }),
      ].join('\n'),
    );
    io.err = '';
    expect(await main(['eval', '--questions', file, '--json'])).toBe(2);
    oneLine();
    expect(io.err).toContain(`1 malformed line(s) in ${file} — line 2: ${askSaid}. Fix them, or pass --skip-bad`);
    io.err = '';
    expect(await main(['eval', '--questions', file, '--json', '--skip-bad'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ n: 2, answerable: 1, unanswerable: 1, skipped: [{ line: 2, reason: askSaid }] });
    // At the limit it is a question like any other.
    writeFileSync(file, `${JSON.stringify({ question: long.slice(0, 999).concat('?'), label: 'unanswerable' })}\n`);
    io.out = '';
    expect(await main(['eval', '--questions', file, '--json'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ n: 1, unanswerable: 1 });
  });
  it('a question file saved with a UTF-8 byte-order mark keeps its first question', async () => {
    // Notepad and Excel write "UTF-8 with BOM"; the mark made line 1 "not JSON", so the first question was lost.
    const file = join(tmp, 'bom.jsonl');
    writeFileSync(
      file,
      '\uFEFF{"question":"What is the pool ceiling for orders-db?","label":"answerable"}\r\n{"question":"How do we rotate DNS?","label":"unanswerable"}\r\n',
    );
    expect(await main(['eval', '--questions', file, '--json'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ n: 2, mode: 'shipped-model' });
  });

  it('a library whose generated questions are all answerable is not scored: false answers cannot be measured on them (S-148)', async () => {
    const lib = join(tmp, 'no-gaps');
    mkdirSync(lib);
    for (let i = 0; i < 12; i++)
      writeFileSync(
        join(lib, `service-${i}.md`),
        `# Service ${i}\n\n## Restarting service-${i}\n\nRestart service-${i} with \`svc restart ${i}\` after draining its queue of ${i + 10} jobs.\n\n## Impact of service-${i} down\n\nCheckout fails for ${i + 2} percent of users while service-${i} is down.\n`,
      );
    expect(await main(['eval', '--corpus', lib])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/questions generated from .* are all answerable .* pass --questions FILE/);
  });

  it('questions about another library, scored without --corpus, say which library scored them and that most were not scored (S-145)', async () => {
    const file = join(tmp, 'other-library.jsonl');
    const lines = [
      ...Array.from({ length: 12 }, (_, i) => ({ id: `a${i}`, question: `How do I fix gizmo ${i}?`, label: 'answerable', doc: `gizmos/gizmo-${i}.md` })),
      { id: 'u1', question: 'How do we rotate DNS?', label: 'unanswerable' },
    ];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    expect(await main(['eval', '--questions', file])).toBe(0);
    const out = io.out.split('\n');
    expect(out[0]).toMatch(/^Evaluation of 1 questions .* on the library at .*corpus \(the bundled corpus: --corpus DIR or CORPUS_DIR names another\)\.$/);
    expect(out[1]).toBe('NOT SCORED: 12 more question(s), whose evidence names no passage of this library (listed at the end).');
    expect(io.out).toContain('  … and 2 more (--json lists every one)');
  });
});

describe('feedback: bad input is refused in one line before any database is opened', () => {
  const RUN = '0b9c3f0e-4a8e-4c1e-9d6a-2f1e5b7c8d90';
  it('a bad or missing label, a run id that is not one, a note over 2000 characters', async () => {
    const cases: [string[], RegExp][] = [
      [['feedback', RUN, '--label', 'wrong'], /--label must be one of wrong-answer, wrong-refusal, right \(got "wrong"\)/],
      [['feedback', RUN], /--label is required/],
      [['feedback', '--label', 'right'], /name exactly one run id/],
      [['feedback', 'run-42', '--label', 'right'], /"run-42" is not a run id \(a uuid\)/],
      [['feedback', RUN, '--label', 'right', '--note', 'x'.repeat(2001)], /the note is 2001 characters; the limit is 2000/],
      [['feedback', '--export', join(tmp, 'out.jsonl'), RUN], /--export writes every mark; it takes no run id/],
    ];
    for (const [argv, message] of cases) {
      io.err = '';
      expect(await main(argv), argv.join(' ')).toBe(2);
      oneLine();
      expect(io.err).toMatch(message);
    }
  });
  it('an export path in a folder that does not exist, or that is a folder', async () => {
    expect(await main(['feedback', '--export', join(tmp, 'no-such-folder', 'marks.jsonl')])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/cannot write .*marks\.jsonl: the folder .*no-such-folder does not exist/);
    io.err = '';
    expect(await main(['feedback', '--export', tmp])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/is a folder\. Pass --export with a file name/);
    // S-210: an empty path (an unset shell variable) was the working folder: "sandscope:  is a folder."
    for (const empty of ['', '  ']) {
      io.err = '';
      expect(await main(['feedback', '--export', empty])).toBe(2);
      oneLine();
      expect(io.err).toBe('sandscope: --export was given an empty path. Pass --export with a file name, e.g. feedback.jsonl, or - for standard output.\n');
    }
  });
  it('no database where SANDSCOPE_DATA_DIR points: said, and none is created', async () => {
    const nowhere = join(tmp, 'no-data');
    vi.stubEnv('SANDSCOPE_DATA_DIR', nowhere);
    vi.stubEnv('DATABASE_URL', '');
    try {
      for (const argv of [
        ['feedback', RUN, '--label', 'right'],
        ['eval', '--feedback'],
        ['feedback', '--export', join(tmp, 'x.jsonl')],
      ]) {
        io.err = '';
        expect(await main(argv), argv.join(' ')).toBe(2);
        oneLine();
        expect(io.err).toMatch(/no Sandscope database at .*no-data\/pglite: runs are recorded by the agent/);
      }
      expect(existsSync(nowhere)).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });
  it('eval with both --questions and --feedback', async () => {
    expect(await main(['eval', '--feedback', '--questions', join(tmp, 'q.jsonl')])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/pass --questions FILE or --feedback, not both/);
  });
});
