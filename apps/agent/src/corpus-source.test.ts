import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnowledgeBase, shippedAnswerabilityModel } from '@sandscope/engine';
import { resolveEvidence } from '@sandscope/eval';
import { describe, expect, it } from 'vitest';
import { loadCorpusSource } from './corpus-source.ts';

describe('which bands a corpus is scored with', () => {
  it("a corpus never calibrated uses the shipped model's bands (trained, validated leave-one-corpus-out), and says so", async () => {
    const source = loadCorpusSource(join(import.meta.dirname, '../../../eval-corpora/harbor-runbooks'));
    expect(source.thresholdsFrom).toBe('shipped');
    expect(source.thresholds).toBeNull();
    const kb = await KnowledgeBase.build({ documents: source.documents, ...(source.thresholds ? { bands: source.thresholds } : {}) });
    expect(kb.bands).toEqual(shippedAnswerabilityModel().bands);
    expect(source.thresholdsPath).toBe(join(source.root, 'thresholds.json'));
  });
  it('a calibrated corpus uses its own bands; a thresholds.json of the old product-score kind is refused with what to do', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bands-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(dir, 'thresholds.json'), JSON.stringify({ insufficientBelow: 0.2, sufficientAbove: 0.7 }));
    expect(loadCorpusSource(dir)).toMatchObject({ thresholdsFrom: 'corpus', thresholds: { insufficientBelow: 0.2, sufficientAbove: 0.7 } });
    writeFileSync(join(dir, 'thresholds.json'), JSON.stringify({ insufficientBelow: 1, sufficientAbove: 8, minTermCoverage: 0.3 }));
    expect(() => loadCorpusSource(dir)).toThrow(/probability from 0 to 1.*calibrate/);
  });
});

describe('a corpus folder whose path has a space', () => {
  it('the command the refusal suggests can be pasted as it is: the path is quoted', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'spaced-')), "on call's runbooks");
    mkdirSync(dir);
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(dir, 'thresholds.json'), JSON.stringify({ insufficientBelow: 1, sufficientAbove: 8 }));
    expect(() => loadCorpusSource(dir)).toThrow(`Re-run \`npx sandscope calibrate --corpus '${dir.replace("'", "'\\''")}'\``);
  });
});

describe('a file named .md that is not text (issue 12, defect 10)', () => {
  it('is skipped with a warning naming it and why; every text document is still indexed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'binary-md-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(dir, 'unicode.md'), '# Café\n\nThe naïve résumé 🙂 survives.\n');
    // A PNG renamed .md: NUL bytes from its header on.
    writeFileSync(join(dir, 'diagram.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    // Latin-1 text: no NUL, but 0xE9 is not UTF-8.
    writeFileSync(join(dir, 'latin1.md'), Buffer.from('# Caf\xe9\n\nThe pool ceiling is 50.\n', 'latin1'));
    // UTF-16 with its byte-order mark: a NUL after every ASCII letter.
    writeFileSync(join(dir, 'utf16.md'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Queue\n\nThe queue depth alarm is 500.\n', 'utf16le')]));

    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => d.doc)).toEqual(['runbook.md', 'unicode.md']);
    expect(source.documents[1]!.text).toContain('naïve résumé 🙂');
    expect(source.skipped.map((s) => s.doc)).toEqual(['diagram.md', 'latin1.md', 'utf16.md']);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toBe(
      `corpus: skipped ${join(dir, 'diagram.md')}: it is binary, not text (a NUL byte at offset 8). Remove it from the corpus or give it an extension other than .md.`,
    );
    expect(warnings[1]).toBe(`corpus: skipped ${join(dir, 'latin1.md')}: it is not valid UTF-8 (the byte at offset 5). Save it as UTF-8 to have it indexed.`);
    expect(warnings[2]).toBe(`corpus: skipped ${join(dir, 'utf16.md')}: it is UTF-16 text. Save it as UTF-8 to have it indexed.`);
  });

  it('a Git LFS pointer (the repository cloned without `git lfs pull`) is skipped, naming it and what to run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfs-md-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(
      join(dir, 'failover.md'),
      'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n',
    );
    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => d.doc)).toEqual(['runbook.md']);
    expect(warnings).toEqual([
      `corpus: skipped ${join(dir, 'failover.md')}: it is a Git LFS pointer, not the document. Run \`git lfs pull\` in its repository to fetch it.`,
    ]);
  });

  it('an empty file (a failed sync, an unsaved stub) is left out with a warning naming it, not silently', () => {
    const dir = mkdtempSync(join(tmpdir(), 'empty-md-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(dir, 'failover.md'), '');
    writeFileSync(join(dir, 'blank.md'), ' \r\n\n');
    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => d.doc)).toEqual(['runbook.md']);
    expect(source.skipped.map((s) => s.doc)).toEqual(['blank.md', 'failover.md']);
    expect(warnings).toEqual([
      `corpus: skipped ${join(dir, 'blank.md')}: it is empty. Write the document or remove the file.`,
      `corpus: skipped ${join(dir, 'failover.md')}: it is empty. Write the document or remove the file.`,
    ]);
    // Nothing but empty files is still the one line it was.
    const none = mkdtempSync(join(tmpdir(), 'all-empty-md-'));
    writeFileSync(join(none, 'a.md'), '');
    expect(() => loadCorpusSource(none, { warn: () => {} })).toThrow(/every markdown file in .* is empty; there is nothing to answer from/);
  });

  it('a corpus of nothing but such files is refused, naming each', () => {
    const dir = mkdtempSync(join(tmpdir(), 'only-binary-'));
    writeFileSync(join(dir, 'blob.md'), Buffer.from([0x00, 0x01, 0x02]));
    expect(() => loadCorpusSource(dir, { warn: () => {} })).toThrow(/no markdown file in .* could be indexed: .*blob\.md: it is binary, not text/);
  });
});

describe('a corpus folder that links in another folder', () => {
  it('indexes the documents of a linked sub-folder, and reads a link back to an ancestor only once', () => {
    // A team's runbooks linked into the shared corpus (`ln -s ../payments/runbooks payments`) were silently left out.
    const base = mkdtempSync(join(tmpdir(), 'linked-'));
    const dir = join(base, 'corpus');
    mkdirSync(join(base, 'payments'), { recursive: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'disk.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(base, 'payments', 'refunds.md'), '# Refunds\n\nA refund over 500 EUR needs a second approver.\n');
    symlinkSync(join(base, 'payments'), join(dir, 'payments'));
    symlinkSync(dir, join(dir, 'loop'));
    const source = loadCorpusSource(dir, { warn: () => {} });
    expect(source.documents.map((d) => d.doc)).toEqual(['disk.md', 'payments/refunds.md']);
  });
});

describe('a file over the 2 MB limit', () => {
  it('is skipped with a warning naming it, the limit and what to do; every other document is still indexed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'big-md-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(dir, 'export.md'), `# Export\n\n${'All of the wiki in one page. '.repeat(72_000)}`);
    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => d.doc)).toEqual(['runbook.md']);
    expect(source.skipped.map((s) => s.doc)).toEqual(['export.md']);
    expect(warnings).toEqual([
      `corpus: skipped ${join(dir, 'export.md')}: it is 2,088,010 bytes, over the 2 MB (2,000,000 bytes) limit for one document. Split it into smaller documents to have it indexed.`,
    ]);
    // Nothing else to index is still one line, naming the file and why.
    const alone = mkdtempSync(join(tmpdir(), 'only-big-md-'));
    writeFileSync(join(alone, 'export.md'), 'x'.repeat(2_000_001));
    expect(() => loadCorpusSource(alone, { warn: () => {} })).toThrow(
      /no markdown file in .* could be indexed: .*export\.md: it is 2,000,001 bytes, over the 2 MB/,
    );
  });
});

describe('README.md and GAPS.md', () => {
  it("a sub-folder's README.md is a document (a runbook per service folder); the corpus folder's own README.md and GAPS.md are not", () => {
    // GitLab's runbooks are docs/<service>/README.md: pointed at that folder, every one was silently left out.
    const dir = mkdtempSync(join(tmpdir(), 'readme-'));
    writeFileSync(join(dir, 'README.md'), '# About this corpus\n\nStatus: unseen.\n');
    writeFileSync(join(dir, 'GAPS.md'), '# Gaps\n');
    writeFileSync(join(dir, 'disk.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    mkdirSync(join(dir, 'pgbouncer'));
    writeFileSync(join(dir, 'pgbouncer', 'README.md'), '# PgBouncer\n\nWhen the pool saturates, raise max_client_conn to 2000.\n');
    mkdirSync(join(dir, 'redis'));
    writeFileSync(join(dir, 'redis', 'gaps.md'), '# Redis gaps\n\nEviction is documented nowhere else.\n');
    expect(loadCorpusSource(dir, { warn: () => {} }).documents.map((d) => d.doc)).toEqual(['disk.md', 'pgbouncer/README.md', 'redis/gaps.md']);
  });

  it("in the repository's layout the notes sit beside docs/, so docs/README.md is a document (S-105)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-docs-'));
    writeFileSync(join(dir, 'README.md'), '# About this corpus\n\nStatus: unseen.\n');
    writeFileSync(join(dir, 'GAPS.md'), '# Gaps\n');
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'README.md'), '# Stolon\n\nA keeper manages one PostgreSQL instance.\n');
    writeFileSync(join(dir, 'docs', 'faq.md'), '# FAQ\n\nThe sentinel elects the master.\n');
    expect(loadCorpusSource(dir, { warn: () => {} }).documents.map((d) => d.doc)).toEqual(['faq.md', 'README.md']);
  });
});

describe('a file name in decomposed Unicode (NFD, as macOS writes "café.md")', () => {
  const NFD = 'cafe\u0301.md';
  const NFC = 'caf\u00e9.md';
  it('is one document id, the composed form: a question naming the file as typed finds it, and its passages cite it so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nfd-'));
    writeFileSync(join(dir, NFD), '# Café\n\nThe espresso machine alarm fires when the boiler passes 130 degrees.\n');
    writeFileSync(join(dir, 'disk.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    const source = loadCorpusSource(dir, { warn: () => {} });
    expect(source.documents.map((d) => d.doc)).toEqual([NFC, 'disk.md']);
    const kb = await KnowledgeBase.build({ documents: source.documents });
    expect(kb.chunks.filter((c) => c.doc === NFC).map((c) => c.id)).toEqual(['caf\u00e9#cafe']);
    const { errors } = resolveEvidence(
      [{ id: 'q1', question: 'When does the espresso alarm fire?', label: 'answerable', mechanism: 'hand', doc: NFC, evidence: 'passes 130 degrees' }],
      kb.chunks,
    );
    expect(errors).toEqual([]);
  });
  it('two files whose names differ only in Unicode form are not two documents of the same name: the second is skipped, naming both', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nfd-twice-'));
    writeFileSync(join(dir, NFC), '# Café\n\nThe espresso machine alarm fires at 130 degrees.\n');
    writeFileSync(join(dir, NFD), '# Café\n\nThe espresso machine alarm fires at 120 degrees.\n');
    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => d.doc)).toEqual([NFC]);
    expect(source.skipped.map((s) => s.doc)).toEqual([NFC]);
    // The two compare equal when listed, so which is kept is the file system's order; the warning names both.
    const [first, second] = source.documents[0]!.text.includes('120') ? [NFD, NFC] : [NFC, NFD];
    expect(warnings).toEqual([
      `corpus: skipped ${join(dir, second)}: it has the same name as ${join(dir, first)} in another Unicode form (composed or decomposed accents), so the two would be one document. Rename or remove one of them.`,
    ]);
  });
});

describe('documents in another format beside the markdown (S-147)', () => {
  it('are named in one line, not left out without a word', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdx-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    for (const name of ['alerts.mdx', 'notes.txt', 'setup.rst', 'upgrade.adoc']) writeFileSync(join(dir, name), '# Page\n\nText.\n');
    writeFileSync(join(dir, 'logo.png'), 'not a document');
    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => d.doc)).toEqual(['runbook.md']);
    expect(warnings).toEqual([
      `corpus: 5 file(s) not read, as only ${READ} are: alerts.mdx, logo.png, notes.txt and 2 more. Save any that are documents as .md to have them indexed.`,
    ]);
  });
});

/** The extensions the warning says are read. */
const READ = '.md, .markdown, .mdown, .mkd, .mkdn and .markdn';

describe('the other markdown extensions, and every other file beside the markdown (S-209)', () => {
  it('reads .mdown, .mkd, .mkdn and .markdn as markdown, a document without a heading titled by its name without the extension', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdown-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(dir, 'failover.mdown'), 'Fail over the primary with pg_ctl promote.\n');
    writeFileSync(join(dir, 'rollback.MKD'), '# Rollback\n\nRoll back with helm rollback.\n');
    writeFileSync(join(dir, 'restore.mkdn'), '# Restore\n\nRestore from the nightly snapshot.\n');
    writeFileSync(join(dir, 'scaling.markdn'), '# Scaling\n\nScale the workers to six.\n');
    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => [d.doc, d.title])).toEqual([
      ['failover.mdown', 'failover'],
      ['restore.mkdn', 'Restore'],
      ['rollback.MKD', 'Rollback'],
      ['runbook.md', 'Disk'],
      ['scaling.markdn', 'Scaling'],
    ]);
    expect(warnings).toEqual([]);
  });

  it("names every other file, whatever its extension or none; hidden files and the corpus folder's own files go unnamed", () => {
    const dir = mkdtempSync(join(tmpdir(), 'unnamed-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    // The audit's folder: the answer sat in README and on-call.text, and the gate said the library does not answer it.
    for (const name of ['README', 'Makefile', 'on-call.text', 'page.html', 'logo.png']) writeFileSync(join(dir, name), 'Fail over with pg_ctl promote.\n');
    mkdirSync(join(dir, 'ledger'));
    writeFileSync(join(dir, 'ledger', 'NOTES'), 'Restart the ledger with systemctl.\n');
    // Hidden files and folders (a checkout's .git, an editor's swap file) are no one's documents.
    writeFileSync(join(dir, '.env'), 'TOKEN=x\n');
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'config'), '[core]\n');
    // What sandscope itself reads and writes in the corpus folder is not a document left out.
    writeFileSync(join(dir, 'questions.jsonl'), '');
    writeFileSync(join(dir, 'thresholds.json'), JSON.stringify({ insufficientBelow: 0.2, sufficientAbove: 0.7 }));
    const warnings: string[] = [];
    const source = loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(source.documents.map((d) => d.doc)).toEqual(['runbook.md']);
    expect(warnings).toEqual([
      `corpus: 6 file(s) not read, as only ${READ} are: ledger/NOTES, logo.png, Makefile and 3 more. Save any that are documents as .md to have them indexed.`,
    ]);
  });

  it('a folder of many such files is one line: three names, then how many more', () => {
    const dir = mkdtempSync(join(tmpdir(), 'many-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    for (let i = 0; i < 40; i += 1) writeFileSync(join(dir, `NOTE-${String(i).padStart(2, '0')}`), 'x\n');
    const warnings: string[] = [];
    loadCorpusSource(dir, { warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([
      `corpus: 40 file(s) not read, as only ${READ} are: NOTE-00, NOTE-01, NOTE-02 and 37 more. Save any that are documents as .md to have them indexed.`,
    ]);
  });
});
