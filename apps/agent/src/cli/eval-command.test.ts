import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startStore } from '@sandscope/store';
import { describe, expect, it, vi } from 'vitest';
import { readLatestEvaluation } from '../service/eval-latest.ts';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

const io = captureOutput();
const corpora = resolve(import.meta.dirname, '../../../../eval-corpora');
const shippedModel = () =>
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../../packages/engine/src/answerability/answerability-model.json'), 'utf8'));

describe('sandscope eval (issue 9)', () => {
  it('scores quoted-text evidence against the passage that holds it, reports an unmatched quote instead of scoring it 0, and gives the right-source rate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quoted-'));
    const file = join(dir, 'q.jsonl');
    writeFileSync(
      file,
      [
        { id: 'a', question: 'how do we cut over the ledger service to the standby database?', label: 'answerable', evidence: 'Promote the standby' },
        { id: 'b', question: 'how long is the month-end change freeze?', label: 'answerable', evidence: 'words that appear nowhere in this corpus at all' },
        { id: 'c', question: 'how do we renew the TLS certificate for the card gateway?', label: 'unanswerable' },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    expect(await main(['eval', '--corpus', join(corpora, 'harbor-runbooks'), '--questions', file, '--json'])).toBe(0);
    const r = JSON.parse(io.out) as { n: number; rightSourceRate: number; evidenceErrors: { id: string; message: string }[]; inSample: boolean };
    expect(r.n).toBe(2);
    expect(r.evidenceErrors).toEqual([{ corpus: file, id: 'b', message: expect.stringMatching(/matches no passage/) }]);
    expect(typeof r.rightSourceRate).toBe('number');
    // harbor-runbooks is one of the shipped model's development corpora: the figures are said to be in-sample.
    expect(r.inSample).toBe(true);
  });

  it('says in words why a questions file cannot be read, not only the system code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unreadable-'));
    const errFrom = io.err.length;
    expect(await main(['eval', '--corpus', join(corpora, 'harbor-runbooks'), '--questions', dir])).toBe(2);
    expect(io.err.slice(errFrom)).toContain(`cannot read ${dir}: it is a folder, not a file (EISDIR)`);
  });

  it('fails, in one line naming the first, when no question could be scored: no perfect score of nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unscored-'));
    const file = join(dir, 'q.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'b', question: 'how long is the change freeze?', label: 'answerable', evidence: 'words nowhere in this corpus' })}\n`,
    );
    const errFrom = io.err.length;
    expect(await main(['eval', '--corpus', join(corpora, 'harbor-runbooks'), '--questions', file])).toBe(2);
    expect(io.err.slice(errFrom)).not.toMatch(/\n\s+at /);
    const err = io.err.slice(errFrom).trim().split('\n').at(-1)!;
    expect(err).toMatch(/^sandscope: none of the 1 question\(s\) could be scored: .*\(first, b: .*matches no passage.*\)\. Quote in "evidence"/);
  });

  it('--loco holds each corpus out and prints per-corpus and pooled held-out rates with a corpora list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loco-'));
    for (const name of ['harbor-runbooks', 'tidewater-ops']) cpSync(join(corpora, name), join(dir, name), { recursive: true });
    expect(await main(['eval', '--loco', '--corpora', dir, '--json'])).toBe(0);
    const r = JSON.parse(io.out) as Record<string, unknown> & { corpora: { name: string; questions: number }[] };
    expect(r.mode).toBe('leave-one-corpus-out');
    for (const key of ['falseAnswerRate', 'falseRefusalRate', 'deferralRate', 'rightSourceRate']) {
      expect(typeof r[key], key).toBe('number');
      for (const c of r.corpora) expect(typeof (c as unknown as Record<string, unknown>)[key], `${c.name} ${key}`).toBe('number');
    }
    expect(r.corpora.map((c) => [c.name, c.questions])).toEqual([
      ['harbor-runbooks', 16],
      ['tidewater-ops', 40],
    ]);
    // With an LLM adjudicator: what the adjudicated bands decide alone and what they defer, pooled and per corpus.
    const adjudicated = r['adjudicated'] as { deferralRate: number; deferredAnswerable: number; deferredUnanswerable: number; nA: number; nU: number };
    expect(adjudicated.nA + adjudicated.nU).toBe(56);
    expect(adjudicated.deferralRate).toBeCloseTo((adjudicated.deferredAnswerable + adjudicated.deferredUnanswerable) / 56, 10);
    for (const c of r.corpora as unknown as { adjudicated: { bands: { insufficientBelow: number; sufficientAbove: number } } }[]) {
      expect(c.adjudicated.bands.insufficientBelow).toBeLessThanOrEqual(c.adjudicated.bands.sufficientAbove);
    }
    // S-084: each fold fitted its own bands, and the run's top-level bands are none of them: they were the first
    // fold's, passed off as the run's. They are the shipped model's (as in the record `npm run eval:report` writes),
    // and bandsFrom says the figures' bands are per fold.
    const folds = r.corpora as unknown as { bands: { insufficientBelow: number; sufficientAbove: number } }[];
    expect(folds[0]!.bands).not.toEqual(folds[1]!.bands);
    expect(r['bands']).toEqual(shippedModel().bands);
    expect(r['bandsFrom']).toBe('per-fold');
  }, 120_000);

  it('--loco --held-out scores only the named corpora, each exactly as its fold of the whole run; an unknown name says which exist', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loco-'));
    for (const name of ['harbor-runbooks', 'tidewater-ops', 'quarry-logistics']) cpSync(join(corpora, name), join(dir, name), { recursive: true });
    type Run = {
      n: number;
      falseAnswerRate: number;
      corpora: { name: string; questions: number }[];
      questions: { id: string; answerability: number | null }[];
    };
    expect(await main(['eval', '--loco', '--corpora', dir, '--json', '--rows'])).toBe(0);
    const whole = JSON.parse(io.out) as Run;
    io.out = '';
    expect(await main(['eval', '--loco', '--corpora', dir, '--held-out', 'tidewater-ops', '--json', '--rows'])).toBe(0);
    const held = JSON.parse(io.out) as Run;
    expect(held.corpora).toEqual([whole.corpora.find((c) => c.name === 'tidewater-ops')]);
    expect(held.n).toBe(40);
    expect(held.questions).toEqual(whole.questions.filter((q) => held.questions.some((h) => h.id === q.id)));
    expect(held.questions).toHaveLength(40);
    // S-088: the rows carry the run's provenance: every fold fitted its own model and bands.
    expect(held).toMatchObject({ modelFrom: 'per-fold', bandsFrom: 'per-fold', inSample: false });
    expect(await main(['eval', '--loco', '--corpora', dir, '--held-out', 'tidewater-ops', '--record'])).not.toBe(0);
    expect(io.err).toMatch(/not the evaluation of record, so it takes no --record/);
    expect(await main(['eval', '--loco', '--corpora', dir, '--held-out', 'tidewater'])).not.toBe(0);
    expect(io.err).toMatch(/tidewater is not one with its texts here\. Corpora here: harbor-runbooks, quarry-logistics, tidewater-ops/);
  }, 240_000);

  it('--loco --record refuses a run that left a corpus out for want of its texts: fewer corpora passed off as the headline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loco-'));
    // argocd's texts are rebuilt from SOURCE.json by `npm run corpora`; without them it is left out of the run.
    for (const name of ['harbor-runbooks', 'tidewater-ops', 'argocd']) cpSync(join(corpora, name), join(dir, name), { recursive: true });
    rmSync(join(dir, 'argocd', 'docs'), { recursive: true, force: true });
    const dataDir = mkdtempSync(join(tmpdir(), 'eval-record-'));
    vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
    vi.stubEnv('DATABASE_URL', '');
    try {
      expect(await main(['eval', '--loco', '--corpora', dir, '--record'])).not.toBe(0);
      expect(io.err).toMatch(/argocd.*not the evaluation of record/s);
      expect(io.err).not.toMatch(/recorded evaluation/);
    } finally {
      vi.unstubAllEnvs();
    }
  }, 240_000);

  it('--loco with fewer than two corpora says what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loco-'));
    cpSync(join(corpora, 'harbor-runbooks'), join(dir, 'harbor-runbooks'), { recursive: true });
    expect(await main(['eval', '--loco', '--corpora', dir])).not.toBe(0);
    expect(io.err).toMatch(/at least two corpora/);
  });

  it('--record saves the report with its rows as an eval_run, which GET /v1/eval/latest reads before the committed file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'eval-record-'));
    vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
    vi.stubEnv('DATABASE_URL', '');
    try {
      expect(await main(['eval', '--corpus', join(corpora, 'harbor-runbooks'), '--record', '--json'])).toBe(0);
      const printed = JSON.parse(io.out) as { mode: string; n: number };
      expect(io.err).toMatch(/recorded evaluation [0-9a-f-]{36} \(cross-validated\)/);
      const store = await startStore({ dataDir: join(dataDir, 'pglite') });
      try {
        const latest = await readLatestEvaluation(store.db, join(dataDir, 'no-committed-report.json'), () => {});
        expect(latest?.source).toBe('database');
        expect(latest?.summary).toMatchObject({ mode: printed.mode });
        // S-091: a recorded cross-validated run says its bands were fitted per fold, as --json does.
        expect(latest?.summary).toMatchObject({ mode: 'cross-validated', bandsFrom: 'per-fold' });
        expect(latest?.questions).toHaveLength(printed.n);
      } finally {
        await store.close();
      }
    } finally {
      vi.unstubAllEnvs();
    }
  }, 120_000);

  it("a set scored with this corpus's own bands, fitted by calibrate on that very set, is said to be in-sample (the seed's D-001)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'own-bands-'));
    // A team's library the shipped model never trained on (its folder's name is no development corpus).
    const corpus = join(dir, 'team-library');
    cpSync(join(corpora, 'harbor-runbooks'), corpus, { recursive: true });
    const questions = join(dir, 'team-questions.jsonl');
    cpSync(join(corpus, 'questions.jsonl'), questions);
    // What `sandscope calibrate --corpus … --questions team-questions.jsonl --force` writes: bands chosen on those questions.
    const thresholds = { insufficientBelow: 0.2, sufficientAbove: 0.6, fittedOn: questions, fittedAt: '2026-12-01T00:00:00.000Z', questions: 16 };
    writeFileSync(join(corpus, 'thresholds.json'), JSON.stringify(thresholds));
    expect(await main(['eval', '--corpus', corpus, '--questions', questions, '--json'])).toBe(0);
    expect((JSON.parse(io.out) as { inSample: boolean }).inSample).toBe(true);
    io.out = '';
    expect(await main(['eval', '--corpus', corpus, '--questions', questions])).toBe(0);
    expect(io.out).toMatch(/IN-SAMPLE/);
    expect(io.out).not.toMatch(/nothing was tuned on these questions/);
    // Bands fitted on another set of the same library: these questions are still held out from them.
    io.out = '';
    writeFileSync(join(corpus, 'thresholds.json'), JSON.stringify({ ...thresholds, fittedOn: join(dir, 'other.jsonl') }));
    expect(await main(['eval', '--corpus', corpus, '--questions', questions, '--json'])).toBe(0);
    expect((JSON.parse(io.out) as { inSample: boolean }).inSample).toBe(false);
  });

  it('--model scores a set with a model written elsewhere (a held-out one), says it is not in-sample, and names a bad file in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-'));
    const shipped = shippedModel();
    // A model that never learned from harbor-runbooks, and whose bands answer everything: the figures must be its.
    const file = join(dir, 'model.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...shipped,
        bands: { insufficientBelow: 0, sufficientAbove: 0 },
        trainedOn: shipped.trainedOn.filter((t: { corpus: string }) => t.corpus !== 'harbor-runbooks'),
      }),
    );
    const harbor = join(corpora, 'harbor-runbooks');
    const questions = join(harbor, 'questions.jsonl');
    type Figures = { falseRefusalRate: number; falseAnswerRate: number; inSample: boolean };
    expect(await main(['eval', '--corpus', harbor, '--questions', questions, '--json'])).toBe(0);
    const withShipped = JSON.parse(io.out) as Figures;
    io.out = '';
    expect(await main(['eval', '--corpus', harbor, '--questions', questions, '--model', file, '--json'])).toBe(0);
    const r = JSON.parse(io.out) as Figures;
    // More unanswerable questions are answered, and no more answerable ones refused.
    expect(r.falseAnswerRate).toBeGreaterThan(withShipped.falseAnswerRate);
    expect(r.falseRefusalRate).toBeLessThanOrEqual(withShipped.falseRefusalRate);
    expect([withShipped.inSample, r.inSample]).toEqual([true, false]);

    writeFileSync(join(dir, 'bad.json'), '{"version": 2}');
    expect(await main(['eval', '--corpus', harbor, '--questions', questions, '--model', join(dir, 'bad.json')])).toBe(2);
    expect(io.err).toMatch(/--model .*bad\.json: answerability model: /);
    expect(await main(['eval', '--corpus', harbor, '--questions', questions, '--model', join(dir, 'none.json')])).toBe(2);
    expect(io.err).toMatch(/no such file\. Write one with npm run train -- --exclude a,b --out/);
    expect(await main(['eval', '--loco', '--model', file])).toBe(2);
    expect(io.err).toMatch(/--loco trains its own/);
  });

  it("--model FILE is scored with FILE's own bands, not the corpus's thresholds.json, and says so (S-085)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-bands-'));
    const shipped = shippedModel();
    // A held-out model whose bands answer everything, and a library whose calibrated bands refuse everything.
    const file = join(dir, 'model.json');
    const own = { insufficientBelow: 0, sufficientAbove: 0 };
    writeFileSync(file, JSON.stringify({ ...shipped, bands: own }));
    const corpus = join(dir, 'team-library');
    cpSync(join(corpora, 'harbor-runbooks'), corpus, { recursive: true });
    const questions = join(corpus, 'questions.jsonl');
    type Figures = { bands: unknown; bandsFrom: string; falseAnswerRate: number; falseRefusalRate: number; inSample: boolean };
    expect(await main(['eval', '--corpus', corpus, '--questions', questions, '--model', file, '--json'])).toBe(0);
    const alone = JSON.parse(io.out) as Figures;
    io.out = '';
    writeFileSync(join(corpus, 'thresholds.json'), JSON.stringify({ insufficientBelow: 1, sufficientAbove: 1, fittedOn: questions, questions: 16 }));
    expect(await main(['eval', '--corpus', corpus, '--questions', questions, '--model', file, '--json'])).toBe(0);
    const r = JSON.parse(io.out) as Figures;
    expect(r.bands).toEqual(own);
    expect(r.bandsFrom).toBe('model');
    expect([r.falseAnswerRate, r.falseRefusalRate]).toEqual([alone.falseAnswerRate, alone.falseRefusalRate]);
    // Calibrate fitted those bands on these questions, but they were not used: the figures are not in-sample by them.
    expect(r.inSample).toBe(false);
    io.out = '';
    expect(await main(['eval', '--corpus', corpus, '--questions', questions, '--model', file])).toBe(0);
    expect(io.out).toMatch(/Scored with the model in .*model\.json and its own bands \(this corpus's thresholds\.json not used/);
    expect(io.out).not.toMatch(/Scored with the shipped model/);
    expect(io.out).toMatch(/Bands in force: refuse below 0\.000, answer from 0\.000/);
  });
});

describe('sandscope eval names where its questions, bands and model came from (S-088)', () => {
  const harbor = join(corpora, 'harbor-runbooks');
  const questions = join(harbor, 'questions.jsonl');
  const provenance = (printed: string) => {
    const { questionsFrom, bandsFrom, inSample, modelFrom } = JSON.parse(printed) as Record<string, unknown>;
    return { questionsFrom, bandsFrom, inSample, modelFrom };
  };
  /** A model held out of harbor-runbooks, written where `npm run train -- --exclude harbor-runbooks --out FILE` would. */
  const heldOutModel = () => {
    const shipped = shippedModel();
    const file = join(mkdtempSync(join(tmpdir(), 'model-')), 'model.json');
    writeFileSync(file, JSON.stringify({ ...shipped, trainedOn: shipped.trainedOn.filter((t: { corpus: string }) => t.corpus !== 'harbor-runbooks') }));
    return file;
  };

  it('a set scored with the shipped model says so: modelFrom is "shipped"', async () => {
    expect(await main(['eval', '--corpus', harbor, '--questions', questions, '--json'])).toBe(0);
    expect(provenance(io.out)).toEqual({ questionsFrom: questions, bandsFrom: 'shipped', inSample: true, modelFrom: 'shipped' });
  });

  it('--json --rows carries the same provenance as --json, with the shipped model or with --model FILE', async () => {
    const file = heldOutModel();
    for (const model of [[], ['--model', file]]) {
      io.out = '';
      expect(await main(['eval', '--corpus', harbor, '--questions', questions, ...model, '--json'])).toBe(0);
      const summary = provenance(io.out);
      io.out = '';
      expect(await main(['eval', '--corpus', harbor, '--questions', questions, ...model, '--json', '--rows'])).toBe(0);
      const rows = JSON.parse(io.out) as { questions: unknown[] };
      expect(rows.questions.length).toBeGreaterThan(0);
      expect(provenance(io.out)).toEqual(summary);
      expect(summary.modelFrom).toBe(model.length ? file : 'shipped');
    }
    // The corpus's own set, cross-validated: no one model scored it, each fold was scored by one fitted on the others.
    io.out = '';
    expect(await main(['eval', '--corpus', harbor, '--json', '--rows'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ mode: 'cross-validated', questionsFrom: questions, modelFrom: 'per-fold' });
  });

  it('a cross-validated run says its bands were fitted per fold, in --json, --json --rows and the human output (S-091)', async () => {
    // harbor-runbooks' own questions, and an external file with --cv: both go through crossValidateSet, whose folds were
    // each scored with bands fitted on the other folds (0.998–0.999 here, against the shipped model's 0.845).
    for (const run of [
      ['--corpus', harbor],
      ['--corpus', harbor, '--questions', questions, '--cv'],
    ]) {
      for (const json of [['--json'], ['--json', '--rows']]) {
        io.out = '';
        expect(await main(['eval', ...run, ...json])).toBe(0);
        const r = JSON.parse(io.out) as { mode: string; bandsFrom: string; bands: unknown; corpora: { bands: unknown }[] };
        expect(r.mode).toBe('cross-validated');
        expect(r.bandsFrom, `${run.join(' ')} ${json.join(' ')}`).toBe('per-fold');
        // The report's own pair is the one refitted on the whole set, as docs/evaluation.json's `generated` holds it:
        // not the shipped model's, which no fold was scored with either.
        expect(r.bands).not.toEqual(shippedModel().bands);
      }
      io.out = '';
      expect(await main(['eval', ...run])).toBe(0);
      expect(io.out).not.toMatch(/bands in force/i);
      expect(io.out).toMatch(/^Bands: fitted per fold/m);
      expect(io.out).toMatch(/refitted on the whole set, not used in these figures: refuse below 0\.99\d, answer from 0\.99\d/);
    }
  });

  it('--rows without --json is a user error saying to add --json (it printed the summary and dropped the rows)', async () => {
    expect(await main(['eval', '--corpus', harbor, '--rows'])).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toMatch(/^sandscope: --rows .*add --json.*\n$/);
    expect(io.err).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it('--model on a cross-validated run, which fits its own model per fold and would not use it, is a user error', async () => {
    const file = heldOutModel();
    for (const run of [
      ['--corpus', harbor, '--questions', questions, '--cv'],
      // The corpus's own questions (or a generated set) are cross-validated too.
      ['--corpus', harbor],
    ]) {
      io.out = '';
      io.err = '';
      expect(await main(['eval', ...run, '--model', file, '--json'])).toBe(2);
      expect(io.out).toBe('');
      expect(io.err).toMatch(/^sandscope: --model .*cross-validated.*per fold.*\n$/);
    }
  });
});
