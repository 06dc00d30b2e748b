import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm run corpora -- DIR` run for real: a real git repository as the snapshot, the script spawned from the repo
// root. DIR is read relative to the repo root, so the corpora are written under a scratch folder here, removed after.
const root = join(import.meta.dirname, '..');
const tag = randomBytes(6).toString('hex');
const scratch = `.corpora-build-test-${tag}`;
const repository = `corpora-build-test/fixture-${tag}`;
const absentRepository = `corpora-build-test/absent-${tag}`;
// Git and the script see neither a GIT_* variable of whoever runs the tests (a hook's GIT_DIR) nor SANDSCOPE_DEBUG.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_') && k !== 'SANDSCOPE_DEBUG'));

// At the commit SOURCE.json names: one plain file, one non-ASCII (name and text, CRLF lines) at a nested path.
const guide = Buffer.from('# Guide\n\nRestart the worker.\n');
const nested = Buffer.from('# Café — ünïcode ✓ 日本語\r\n\r\nÉtape 1: vérifier.\r\n');
const nestedFrom = 'runbooks/deep/nested/café — ünïcode.md';
const files = [
  { from: 'guide.md', to: 'docs/guide.md' },
  { from: nestedFrom, to: 'docs/runbooks/café.md' },
];

let tmp: string;
let mirror: string;
let commit: string;
let cases = 0;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false', ...args], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: 'pipe',
  }).trim();

function write(path: string, bytes: Buffer | string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'corpora-build-'));
  const work = join(tmp, 'work');
  mkdirSync(work);
  git(work, 'init', '-q');
  write(join(work, 'guide.md'), guide);
  write(join(work, nestedFrom), nested);
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'first');
  commit = git(work, 'rev-parse', 'HEAD');
  // A later commit and an uncommitted edit: neither is what SOURCE.json names.
  write(join(work, 'guide.md'), '# Guide, second version\n');
  write(join(work, nestedFrom), '# second version\n');
  git(work, 'commit', '-q', '-am', 'second');
  write(join(work, 'guide.md'), '# Guide, not committed\n');
  mirror = join(tmp, 'mirror');
  git(tmp, 'clone', '-q', '--bare', work, join(mirror, repository.replace('/', '+'), 'repo'));
});

afterAll(() => {
  rmSync(join(root, scratch), { recursive: true, force: true });
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** A fresh folder of corpora (DIR, relative to the repo root), one SOURCE.json (object or raw text) per corpus. */
function corpora(sources: Record<string, unknown>): string {
  const dir = `${scratch}/case-${++cases}`;
  for (const [name, source] of Object.entries(sources))
    write(join(root, dir, name, 'SOURCE.json'), typeof source === 'string' ? source : JSON.stringify(source, null, 2));
  return dir;
}

const source = (extra: Record<string, unknown> = {}) => ({ repository, commit, licence: 'CC-BY-4.0', files, ...extra });

function build(dir: string, mirrorDir = mirror) {
  const r = spawnSync(join(root, 'node_modules/.bin/tsx'), ['scripts/corpora-build.ts', dir], {
    cwd: root,
    env: { ...env, SANDSCOPE_MIRROR_DIR: mirrorDir },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const text = (dir: string, name: string, to: string) => readFileSync(join(root, dir, name, to));

/** One line naming what to fix, a failing exit, and never a stack trace. */
function expectOneLineError(r: ReturnType<typeof build>, message: RegExp) {
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^ {4}at /m);
}

describe('npm run corpora — rebuilding each corpus’s texts from its SOURCE.json', () => {
  it('writes every named file byte for byte as at the named commit — not a later one — and says how many and under what licence', () => {
    const dir = corpora({ alpha: source() });
    const r = build(dir);
    expect(r).toMatchObject({ status: 0, stderr: '' });
    expect(r.stdout).toBe(`alpha: 2 files from ${repository}@${commit.slice(0, 12)} (CC-BY-4.0)\n`);
    expect(text(dir, 'alpha', 'docs/guide.md').equals(guide)).toBe(true);
    expect(text(dir, 'alpha', 'docs/runbooks/café.md').equals(nested)).toBe(true);
  });

  it('says "texts present" on a second run and rewrites nothing, so a file edited in docs/ stays as edited', () => {
    const dir = corpora({ alpha: source() });
    expect(build(dir).status).toBe(0);
    writeFileSync(join(root, dir, 'alpha', 'docs/guide.md'), 'edited here\n');
    const again = build(dir);
    expect(again).toMatchObject({ status: 0, stdout: 'alpha: texts present\n', stderr: '' });
    expect(text(dir, 'alpha', 'docs/guide.md').toString()).toBe('edited here\n');
  });

  it('rebuilds the files a build cut short left out, though docs/ is there', () => {
    const dir = corpora({ alpha: source() });
    expect(build(dir).status).toBe(0);
    rmSync(join(root, dir, 'alpha', 'docs/runbooks/café.md'));
    const again = build(dir);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('alpha: 2 files from');
    expect(text(dir, 'alpha', 'docs/runbooks/café.md').equals(nested)).toBe(true);
  });

  it('names a repository with no snapshot here and says to fetch it, builds the rest, counts what it could not rebuild, and exits 0', () => {
    const dir = corpora({ absent: source({ repository: absentRepository }), present: source() });
    const r = build(dir);
    expect(r).toMatchObject({ status: 0, stderr: '' });
    expect(r.stdout).toContain(`absent: no snapshot of ${absentRepository} here — fetch it (github:${absentRepository}) and run this again`);
    expect(r.stdout).toContain('present: 2 files from');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('1 corpus(es) could not be rebuilt here.');
    expect(existsSync(join(root, dir, 'absent', 'docs'))).toBe(false);
  });

  it('stops with one line naming a SOURCE.json that is not JSON — never a stack trace', () => {
    const dir = corpora({ broken: '{\n  "repository": "a/b",\n  "commit": "' });
    expectOneLineError(build(dir), /^corpora: \S*broken\/SOURCE\.json is not valid JSON \(.*\)\. Fix it/);
  });

  it('stops with one line naming the SOURCE.json and the field that is wrong — a commit not 40 hex digits, a text outside docs/', () => {
    expectOneLineError(build(corpora({ short: source({ commit: 'main' }) })), /^corpora: \S*short\/SOURCE\.json: commit: .*Fix the field/);
    const outside = source({ files: [{ from: 'guide.md', to: 'guide.md' }] });
    expectOneLineError(build(corpora({ outside })), /^corpora: \S*outside\/SOURCE\.json: files\.0\.to: .*Fix the field/);
  });

  it('refuses a text that climbs out of docs/ with "..", and writes nothing outside the corpus', () => {
    const climbing = source({ files: [{ from: 'guide.md', to: 'docs/../../escaped.md' }] });
    const dir = corpora({ climbing });
    expectOneLineError(build(dir), /^corpora: \S*climbing\/SOURCE\.json: files\.0\.to: .*inside docs\/.*Fix the field/);
    expect(existsSync(join(root, dir, 'escaped.md'))).toBe(false);
  });

  it('stops with one line naming the file a snapshot lacks at the named commit — not a bug report with git’s error twice', () => {
    const lacking = source({ files: [...files, { from: 'not-there.md', to: 'docs/not-there.md' }] });
    expectOneLineError(build(corpora({ lacking })), /^corpora: \S*lacking\/SOURCE\.json: .*not-there\.md.* not at .*Fix files\[\]\.from/);
  });

  it('keeps the message one line when the parser quotes a short SOURCE.json back, and names an array as the whole file', () => {
    expectOneLineError(build(corpora({ prose: 'not json\n' })), /^corpora: \S*prose\/SOURCE\.json is not valid JSON/);
    expectOneLineError(build(corpora({ list: '[]' })), /^corpora: \S*list\/SOURCE\.json: \(the whole file\): .*Fix the field/);
  });

  it('stops with one line saying to name a folder of corpora when DIR does not exist', () => {
    expectOneLineError(build(`${scratch}/nowhere`), /^corpora: \S*nowhere: no such folder here\. Name a folder of corpora/);
  });
});
