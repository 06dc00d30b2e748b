import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

const io = captureOutput();
const corpora = resolve(import.meta.dirname, '../../../../eval-corpora');
const shippedAnswerLine = (): number =>
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../../packages/engine/src/answerability/answerability-model.json'), 'utf8')).bands
    .sufficientAbove;

/** A copy of a small development corpus (16 questions, 6 unanswerable): far too few to certify a line. */
function harborCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'calibrate-')), 'harbor-runbooks');
  cpSync(join(corpora, 'harbor-runbooks'), dir, { recursive: true });
  return dir;
}

type Calibrated = {
  keep: 'refit' | 'shipped';
  forced: boolean;
  thresholdsFile: string | null;
  shipped: { falseAnswerRate: number; falseRefusalRate: number; inSample: boolean };
};

describe('sandscope calibrate', () => {
  it('writes nothing when the refit does no better held out than the shipped bands, and says why; --force writes it anyway', async () => {
    const dir = harborCopy();
    expect(await main(['calibrate', '--corpus', dir])).toBe(0);
    expect(io.out).toMatch(/The shipped bands on the same questions: false answers/);
    expect(io.out).toMatch(/in-sample: the shipped model was trained on this corpus/);
    expect(io.out).toMatch(/fitted on about \d+ unanswerable questions; no line can show the 5\.0% false-answer budget met on fewer than 52/);
    expect(io.out).toMatch(/Kept the shipped bands: .* nothing was written/);
    // The rule that kept them, said as it is: a refit worse on a rate, or better on neither (S-210).
    expect(io.out).toMatch(
      /Kept the shipped bands: on too few unanswerable questions to tell their false answers apart, the refit is worse on one of the two rates or better on neither, nor do these questions show the shipped bands over the 5\.0% false-answer budget \(held out, the refit: false answers .*; the shipped bands: false answers .*\), so nothing was written\./,
    );
    expect(existsSync(join(dir, 'thresholds.json'))).toBe(false);

    io.out = '';
    expect(await main(['calibrate', '--corpus', dir, '--force', '--json'])).toBe(0);
    const forced = JSON.parse(io.out) as Calibrated;
    expect(forced.keep).toBe('shipped');
    expect(forced.forced).toBe(true);
    expect(forced.thresholdsFile).toBe(join(dir, 'thresholds.json'));
    expect(JSON.parse(readFileSync(join(dir, 'thresholds.json'), 'utf8')).questions).toBe(16);
  }, 60_000);

  it("compares with the shipped model's bands, never with an earlier calibration's, and leaves that file as it is", async () => {
    const dir = harborCopy();
    expect(await main(['calibrate', '--corpus', dir, '--json'])).toBe(0);
    const before = JSON.parse(io.out) as Calibrated;
    // An earlier calibration that answers everything: were it taken for the shipped bands, the refit would win.
    const earlier = `${JSON.stringify({ insufficientBelow: 0, sufficientAbove: 0 })}\n`;
    writeFileSync(join(dir, 'thresholds.json'), earlier);
    io.out = '';
    expect(await main(['calibrate', '--corpus', dir, '--json'])).toBe(0);
    const after = JSON.parse(io.out) as Calibrated;
    expect(after.shipped).toEqual(before.shipped);
    expect(after.keep).toBe(before.keep);
    if (after.keep === 'shipped') expect(readFileSync(join(dir, 'thresholds.json'), 'utf8')).toBe(earlier);
  }, 60_000);

  it('keeps the shipped bands where the refit answers more on too few unanswerable questions to show the budget kept (tidewater-ops, 18)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'calibrate-')), 'tidewater-ops');
    cpSync(join(corpora, 'tidewater-ops'), dir, { recursive: true });
    expect(await main(['calibrate', '--corpus', dir, '--json'])).toBe(0);
    const r = JSON.parse(io.out) as Calibrated & { bands: { sufficientAbove: number }; falseRefusalRate: number };
    // Fewer refusals held out and no false answer in 18: what wrote a looser line before. A property of the shipped
    // model, as the fernhill-clinic-it case below is: the refit must answer more here for the test to mean anything.
    expect(r.bands.sufficientAbove, 'the refit must lower the answer line here').toBeLessThan(shippedAnswerLine());
    expect(r.falseRefusalRate).toBeLessThan(r.shipped.falseRefusalRate);
    expect(r.keep).toBe('shipped');
    expect(r.thresholdsFile).toBeNull();
    expect(existsSync(join(dir, 'thresholds.json'))).toBe(false);
    io.out = '';
    expect(await main(['calibrate', '--corpus', dir, '--dry-run'])).toBe(0);
    expect(io.out).toMatch(/the shipped bands would have been kept/);
    io.out = '';
    expect(await main(['calibrate', '--corpus', dir])).toBe(0);
    expect(io.out).toMatch(
      /Kept the shipped bands: the refit answers more \(answer line 0\.\d{3} against 0\.\d{3}\), and too few unanswerable questions can show it keeps/,
    );
    // S-210: --force said "the refit was not the better one held out" of this refit, whose own figures show fewer false
    // refusals than the shipped bands' and the same false answers. It says the rule that kept the shipped bands.
    io.out = '';
    expect(await main(['calibrate', '--corpus', dir, '--force'])).toBe(0);
    expect(io.out).not.toMatch(/not the better one/);
    expect(io.out).toMatch(
      /\nWrote .*thresholds\.json \(--force: calibrate would have kept the shipped bands, as the refit answers more \(answer line 0\.\d{3} against 0\.\d{3}\), and too few unanswerable questions can show it keeps the 5\.0% false-answer budget\); /,
    );
    expect(existsSync(join(dir, 'thresholds.json'))).toBe(true);
  }, 60_000);

  it('--skip-bad --json lists the lines it left out, and why, as eval does (S-210)', async () => {
    const dir = harborCopy();
    const file = join(dir, 'with-bad.jsonl');
    writeFileSync(file, `not json\n${readFileSync(join(dir, 'questions.jsonl'), 'utf8')}{"question":"DNS?","label":"nope"}\n`);
    expect(await main(['calibrate', '--corpus', dir, '--questions', file, '--skip-bad', '--dry-run', '--json'])).toBe(0);
    const r = JSON.parse(io.out) as { n: number; skipped: { line: number; reason: string }[] };
    expect(r.n).toBe(16);
    expect(r.skipped).toEqual([
      { line: 1, reason: expect.stringMatching(/^not JSON/) },
      { line: 18, reason: expect.stringMatching(/^label: /) },
    ]);
  }, 60_000);

  it('refuses --force with --dry-run in one line, before indexing anything', async () => {
    expect(await main(['calibrate', '--corpus', harborCopy(), '--force', '--dry-run'])).toBe(2);
    expect(io.err).toMatch(/^sandscope: .*--force .* or --dry-run .*not both/);
    expect(io.err).not.toMatch(/\n\s+at /);
  });

  it('--dry-run writes nothing even where the refit wins (shipped bands shown to answer too much on too few questions to certify, S-148)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'calibrate-')), 'fernhill-clinic-it');
    cpSync(join(corpora, 'fernhill-clinic-it'), dir, { recursive: true });
    // Every other answerable question relabelled unanswerable: the shipped bands answer many of them, which these
    // 29 unanswerable questions show over the 5% budget (its lower bound above it) — the one case a tighter line is
    // kept on so few.
    const lines = readFileSync(join(dir, 'questions.jsonl'), 'utf8').trim().split('\n');
    let n = 0;
    const relabelled = lines.map((line) => {
      const q = JSON.parse(line) as Record<string, unknown>;
      if (q.label !== 'answerable' || n++ % 2 === 1) return line;
      const { evidence: _e, doc: _d, ...rest } = q;
      return JSON.stringify({ ...rest, label: 'unanswerable' });
    });
    writeFileSync(join(dir, 'questions.jsonl'), `${relabelled.join('\n')}\n`);
    expect(await main(['calibrate', '--corpus', dir, '--dry-run', '--json'])).toBe(0);
    const r = JSON.parse(io.out) as Calibrated;
    expect(r.keep, 'the refit must win here for --dry-run to be tested').toBe('refit');
    expect(r.thresholdsFile).toBeNull();
    expect(existsSync(join(dir, 'thresholds.json'))).toBe(false);
    io.out = '';
    expect(await main(['calibrate', '--corpus', dir, '--json'])).toBe(0);
    expect((JSON.parse(io.out) as Calibrated).thresholdsFile).toBe(join(dir, 'thresholds.json'));
    expect(existsSync(join(dir, 'thresholds.json'))).toBe(true);
  }, 60_000);
});
