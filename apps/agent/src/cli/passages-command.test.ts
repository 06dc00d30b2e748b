import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * S-215: a question file may name its answering passage by id, and no command listed a library's ids. A writer made
 * one from a heading they could see; a short section's heading, merged into its neighbour's passage, has none, and the
 * id was refused as a typo naming another passage.
 */
const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-passages-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const long = (s: string) => `${s} ${'The processor settles each card payment within two seconds of checkout. '.repeat(3)}`;
/** A library of one page whose short Symptoms merges into the Overview before it and short Rollback into the Mitigation. */
function library(): string {
  const dir = mkdtempSync(join(tmp, 'lib-'));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(
    join(dir, 'docs', 'payments.md'),
    `# Payments runbook\n\n## Overview\n\nPayments takes card payments.\n\n## Symptoms\n\n${long('Checkout returns 502.')}\n\n## Alerts\n\n${long('Two alerts page.')}\n\n### PaymentsDown\n\n${long('Fires when no replica answers.')}\n\n## Mitigation\n\n${long('Fail over to the standby processor.')}\n\n### Rollback\n\nFail back to the primary processor.\n`,
  );
  return dir;
}

describe('sandscope passages', () => {
  it('lists each passage id under its document, with the headings above it and the merged headings it holds', async () => {
    const dir = library();
    expect(await main(['passages', '--corpus', dir]), io.err).toBe(0);
    expect(io.err).toBe('');
    expect(io.out).toBe(
      [
        'payments.md (Payments runbook)',
        '  payments#overview      Overview; merged into it: Symptoms',
        '  payments#alerts        Alerts',
        '  payments#paymentsdown  Alerts › PaymentsDown',
        '  payments#mitigation    Mitigation; merged into it: Rollback',
        '',
        `4 passages in 1 document of ${dir}. A heading after "merged into it" has no id of its own (a section under 200 characters is merged into its neighbour): in a question file's "evidence", name the passage's id or quote its text.`,
        '',
      ].join('\n'),
    );
  });

  it('--json: the library and each passage with its document, heading, the headings above it and those merged into it', async () => {
    const dir = library();
    expect(await main(['passages', '--corpus', dir, '--json']), io.err).toBe(0);
    const listed = JSON.parse(io.out) as { library: string; passages: unknown[] };
    expect(listed.library).toBe(dir);
    const passage = (id: string, heading: string, path: string[], merged: string[]) => ({
      id,
      doc: 'payments.md',
      docTitle: 'Payments runbook',
      heading,
      path,
      merged,
    });
    expect(listed.passages).toEqual([
      passage('payments#overview', 'Overview', [], ['Symptoms']),
      passage('payments#alerts', 'Alerts', [], []),
      passage('payments#paymentsdown', 'PaymentsDown', ['Alerts'], []),
      passage('payments#mitigation', 'Mitigation', [], ['Rollback']),
    ]);
  });

  it('the ids it lists are the ones eval takes, and an id made from a merged heading is refused naming its passage', async () => {
    const dir = library();
    const file = join(dir, 'q.jsonl');
    // Two questions, not one asked twice: the same question twice is refused as counted twice (S-284).
    const asked = (id: string, question: string, evidence: string) => JSON.stringify({ id, question, label: 'answerable', evidence });
    writeFileSync(
      file,
      `${[asked('listed', 'how do I fail back to the primary processor?', 'payments#mitigation'), asked('merged', 'how do I roll back a payments change?', 'payments#rollback')].join('\n')}\n`,
    );
    expect(await main(['eval', '--corpus', dir, '--questions', file, '--json']), io.err).toBe(0);
    const report = JSON.parse(io.out) as { n: number; evidenceErrors: { id: string; message: string }[] };
    expect(report.n).toBe(1);
    expect(report.evidenceErrors).toEqual([
      {
        corpus: file,
        id: 'merged',
        message:
          'payments#rollback is a heading inside passage payments#mitigation (short sections are merged); name payments#mitigation, or quote the evidence text',
      },
    ]);
  }, 60_000);

  it('takes options only: a folder given without --corpus is one line naming its help, exit 2', async () => {
    expect(await main(['passages', library()])).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toMatch(/^sandscope: passages takes options only, not ".*"\. `npx sandscope passages --help` lists its options\.\n$/);
  });
});
