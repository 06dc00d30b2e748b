import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

const io = captureOutput();
const corpora = resolve(import.meta.dirname, '../../../../eval-corpora');

describe('eval: the options of --loco are refused without it (S-193)', () => {
  it('--held-out, --exclude and --corpora without --loco exit 2 saying to add --loco, scoring nothing', async () => {
    for (const [argv, said] of [
      [['eval', '--held-out', 'argocd'], '--held-out chooses'],
      [['eval', '--exclude', 'argocd'], '--exclude chooses'],
      [['eval', '--corpora', corpora], '--corpora chooses'],
      [['eval', '--exclude', 'argocd', '--held-out', 'flux', '--json'], '--exclude and --held-out choose'],
    ] as const) {
      io.out = '';
      io.err = '';
      expect(await main([...argv]), argv.join(' ')).toBe(2);
      expect(io.out, argv.join(' ')).toBe('');
      expect(io.err, argv.join(' ')).toMatch(new RegExp(`^sandscope: ${said} the development corpora of a leave-one-corpus-out run.*Add --loco`));
      expect(io.err.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });

  it('--loco --exclude with a name that is no corpus here is refused, listing the corpora, before anything is measured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loco-exclude-'));
    for (const name of ['harbor-runbooks', 'tidewater-ops']) cpSync(join(corpora, name), join(dir, name), { recursive: true });
    expect(await main(['eval', '--loco', '--corpora', dir, '--exclude', 'nope'])).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toBe('sandscope: --exclude names corpora to leave out; nope is not one here. Corpora here: harbor-runbooks, tidewater-ops.\n');
  }, 120_000);
});

describe('eval: a set with one label says which rate it cannot measure, as the report prints it (S-195)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'one-label-'));
  const file = (name: string, label: string, questions: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, questions.map((question) => JSON.stringify({ question, label })).join('\n'));
    return path;
  };

  it('only answerable questions: false answers cannot be measured, and the report shows them n/a', async () => {
    const path = file('answerable.jsonl', 'answerable', ['What is the connection pool ceiling for orders-db?', 'How do I restart orders-db?']);
    expect(await main(['eval', '--questions', path])).toBe(0);
    expect(io.out).toMatch(/\n {2}false answers {6}n\/a /);
    expect(io.err).toContain(
      'sandscope: note: the set has only answerable questions, so false answers cannot be measured on it: shown as n/a (null in --json).',
    );
    expect(io.err).not.toMatch(/reported as 0/);
    // S-281: --json said 0, a measured perfect score, where the text said n/a.
    io.out = '';
    expect(await main(['eval', '--questions', path, '--json'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ falseAnswerRate: null, unanswerable: 0, corpora: [{ falseAnswerRate: null }] });
  });

  it('only unanswerable questions: false refusals and right source cannot be measured, and the report shows both n/a', async () => {
    const path = file('unanswerable.jsonl', 'unanswerable', ['How do we rotate DNS records?', 'What is the ceiling for events-bus?']);
    expect(await main(['eval', '--questions', path])).toBe(0);
    expect(io.out).toMatch(/\n {2}false refusals {5}n\/a /);
    expect(io.out).toMatch(/\n {2}right source {7}n\/a /);
    expect(io.err).toContain(
      'sandscope: note: the set has only unanswerable questions, so false refusals and right source cannot be measured on it: shown as n/a (null in --json).',
    );
    io.out = '';
    expect(await main(['eval', '--questions', path, '--json'])).toBe(0);
    // S-281: every rate with no answerable question under it is null, pooled and on the set's line alike, not 0.
    const none = { falseRefusalRate: null, rightSourceRate: null, stepsCoveredRate: null, mrr: null, recallAt6: null };
    expect(JSON.parse(io.out)).toMatchObject({ ...none, answerable: 0, corpora: [none] });
  });
});
