/**
 * Secret scan of the tree AND the history (issue 12, the pipeline). A key that
 * was committed once and deleted later is still in every clone, so the history
 * is scanned as well as the files: every line a commit added (`git log -p`)
 * and every file `git ls-files` lists, untracked-but-not-ignored ones included
 * (a key pasted into a new file is caught before it is committed).
 *
 * Only key SHAPES are looked for — provider keys, private keys, AWS keys,
 * bearer tokens. The configured-secret scrubber in the engine knows the values
 * a deployment runs with; this scan knows none, so it can only recognise what
 * looks like a credential. Test fixtures that are fake by design are listed in
 * `secret-allowlist.txt` by the SHA-256 of the matched text and the path, never
 * by the text itself (the allowlist would otherwise be the next finding), and a
 * real key later pasted into the same fixture file still fails.
 *
 *   tsx security/secret-scan.ts [--root DIR] [--no-history]
 *
 * Prints its counts; exits 1 on any finding that is not allowlisted, 2 when it
 * cannot scan (not a git repository).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** One shape a credential takes. `pattern` must be global; the whole match is the secret. */
export interface SecretRule {
  readonly id: string;
  readonly pattern: RegExp;
}

/**
 * The shapes, from the providers this project supports (providers.ts) and the
 * usual suspects. Each is anchored on a fixed prefix and a minimum length so an
 * identifier like `sk-learn` or a type name does not trip it.
 */
export const SECRET_RULES: readonly SecretRule[] = [
  { id: 'private-key', pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----/g },
  { id: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[0-9A-Z]{16}\b/g },
  { id: 'aws-secret-access-key', pattern: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b/gi },
  { id: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { id: 'openrouter-key', pattern: /\bsk-or-v1-[a-f0-9]{32,}/g },
  // OpenAI and compatible: sk-…, sk-proj-…; after the two above so those are named for what they are.
  { id: 'openai-key', pattern: /\bsk-(?!ant-|or-v1-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g },
  { id: 'groq-key', pattern: /\bgsk_[A-Za-z0-9]{20,}/g },
  { id: 'cerebras-key', pattern: /\bcsk-[A-Za-z0-9]{20,}/g },
  { id: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { id: 'slack-token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { id: 'stripe-key', pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/g },
  // A literal token after `Bearer` (not `${TOKEN}`, not `<AGENT_TOKEN>`): long enough to be a credential.
  { id: 'bearer-token', pattern: /\bBearer[ \t]+[A-Za-z0-9._~+/-]{20,}=*/g },
];

export interface Finding {
  readonly rule: string;
  /** `sha256:` and the first 16 hex digits of the matched text: what the allowlist names. */
  readonly fingerprint: string;
  readonly path: string;
  readonly line: number;
  /** The commit that added the line, for a history finding. */
  readonly commit?: string;
  /** The match with all but its first six characters hidden: enough to find it, not enough to use it. */
  readonly masked: string;
}

export function fingerprintOf(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 16)}`;
}

function masked(secret: string): string {
  return `${secret.slice(0, 6)}…(${secret.length} chars)`;
}

/** Every rule's matches in one line. */
export function scanLine(text: string, at: { path: string; line: number; commit?: string }): Finding[] {
  const found: Finding[] = [];
  // A cheap filter first: most lines hold none of the prefixes, and the history is megabytes of them.
  if (!/BEGIN|AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|secret|sk-|gsk_|csk-|AIza|gh[pousr]_|github_pat_|xox|_live_|Bearer/i.test(text)) return found;
  const seen = new Set<string>();
  for (const rule of SECRET_RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      const secret = match[0];
      // One span is one finding, named by the first (most specific) rule that matched it.
      const span = `${match.index}:${secret.length}`;
      if ([...seen].some((s) => overlaps(s, span))) continue;
      seen.add(span);
      found.push({
        rule: rule.id,
        fingerprint: fingerprintOf(secret),
        path: at.path,
        line: at.line,
        ...(at.commit ? { commit: at.commit } : {}),
        masked: masked(secret),
      });
    }
  }
  return found;
}

function overlaps(a: string, b: string): boolean {
  const [as, al] = a.split(':').map(Number) as [number, number];
  const [bs, bl] = b.split(':').map(Number) as [number, number];
  return as < bs + bl && bs < as + al;
}

/** One allowlist line: `<fingerprint> <path or *> <rule>  # why it is fake`. */
export interface AllowEntry {
  readonly fingerprint: string;
  readonly path: string;
  readonly rule: string;
  readonly why: string;
  readonly lineNo: number;
}

/**
 * Reads the allowlist. A line without a reason is refused: an entry nobody can
 * explain is how a real key gets waved through.
 */
export function parseAllowlist(text: string, source: string): AllowEntry[] {
  const entries: AllowEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(sha256:[0-9a-f]{16})\s+(\S+)\s+(\S+)\s+#\s*(\S.*)$/.exec(line);
    if (!m) throw new Error(`${source}:${i + 1}: expected "<sha256:16 hex> <path|*> <rule> # why it is fake", got: ${line}`);
    entries.push({ fingerprint: m[1]!, path: m[2]!, rule: m[3]!, why: m[4]!, lineNo: i + 1 });
  });
  return entries;
}

function allowedBy(finding: Finding, allow: readonly AllowEntry[]): AllowEntry | undefined {
  return allow.find((e) => e.fingerprint === finding.fingerprint && e.rule === finding.rule && (e.path === '*' || e.path === finding.path));
}

function git(root: string, args: string[]): string {
  const out = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${out.stderr.trim()}`);
  return out.stdout;
}

/** Files larger than this are data, not source: read only their first part. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface TreeScan {
  readonly files: number;
  readonly skippedBinary: number;
  readonly lines: number;
  readonly findings: Finding[];
}

export function scanTree(root: string): TreeScan {
  const paths = git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']).split('\0').filter(Boolean);
  let files = 0;
  let skippedBinary = 0;
  let lines = 0;
  const findings: Finding[] = [];
  for (const path of new Set(paths)) {
    const full = join(root, path);
    let bytes: Buffer;
    try {
      if (!statSync(full).isFile()) continue;
      bytes = readFileSync(full);
    } catch {
      continue; // listed by the index but deleted in the working tree
    }
    if (bytes.subarray(0, 8000).includes(0)) {
      skippedBinary += 1;
      continue;
    }
    files += 1;
    const text = bytes.subarray(0, MAX_FILE_BYTES).toString('utf8');
    const fileLines = text.split('\n');
    lines += fileLines.length;
    fileLines.forEach((line, i) => findings.push(...scanLine(line, { path, line: i + 1 })));
  }
  return { files, skippedBinary, lines, findings };
}

export interface HistoryScan {
  readonly commits: number;
  readonly addedLines: number;
  readonly findings: Finding[];
}

/**
 * Every line added by every commit reachable from HEAD. Only `+` lines: a
 * removed line was added by an earlier commit, where it is found. Merges show
 * no diff of their own; what they bring in was added by commits that are scanned.
 */
export async function scanHistory(root: string): Promise<HistoryScan> {
  const child = spawn('git', ['-C', root, 'log', '-p', '--no-color', '--no-ext-diff', '--unified=0', '--format=commit %H', 'HEAD'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  let commits = 0;
  let addedLines = 0;
  let commit = '';
  let path = '';
  let line = 0;
  const findings: Finding[] = [];
  for await (const text of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (text.startsWith('commit ') && /^commit [0-9a-f]{40}$/.test(text)) {
      commits += 1;
      commit = text.slice(7);
      continue;
    }
    if (text.startsWith('+++ ')) {
      path = text === '+++ /dev/null' ? '' : text.replace(/^\+\+\+ b\//, '');
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      line = Number(hunk[1]);
      continue;
    }
    if (text.startsWith('+') && path) {
      addedLines += 1;
      findings.push(...scanLine(text.slice(1), { path, line, commit }));
      line += 1;
    }
  }
  const code = await exited;
  if (code !== 0) throw new Error(`git log failed (${code}): ${stderr.trim()}`);
  return { commits, addedLines, findings };
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { root: { type: 'string' }, 'no-history': { type: 'boolean' }, allowlist: { type: 'string' } } });
  const root = resolve(values.root ?? git(process.cwd(), ['rev-parse', '--show-toplevel']).trim());
  const allowPath = values.allowlist ?? resolve(import.meta.dirname, 'secret-allowlist.txt');
  const allow = parseAllowlist(readFileSync(allowPath, 'utf8'), allowPath);

  const tree = scanTree(root);
  const history = values['no-history'] ? undefined : await scanHistory(root);
  const all = [...tree.findings, ...(history?.findings ?? [])];
  const used = new Set<AllowEntry>();
  const real: Finding[] = [];
  for (const finding of all) {
    const entry = allowedBy(finding, allow);
    if (entry) used.add(entry);
    else real.push(finding);
  }

  console.log(`secret scan: tree ${tree.files} files (${tree.skippedBinary} binary skipped), ${tree.lines} lines: ${tree.findings.length} matches`);
  if (history) console.log(`secret scan: history ${history.commits} commits, ${history.addedLines} added lines: ${history.findings.length} matches`);
  else console.log('secret scan: history NOT scanned (--no-history)');
  console.log(
    `secret scan: ${all.length - real.length} allowlisted (fake by design, ${used.size} of ${allow.length} allowlist entries used), ${real.length} findings`,
  );
  // An entry that matches nothing any more is dead weight that could one day match a real key; say so.
  for (const entry of allow)
    if (!used.has(entry)) console.log(`secret scan: allowlist line ${entry.lineNo} (${entry.fingerprint} ${entry.path}) matched nothing — remove it`);
  const shown = new Set<string>();
  for (const f of real) {
    const where = f.commit ? `${f.commit.slice(0, 10)}:${f.path}:${f.line}` : `${f.path}:${f.line}`;
    const key = `${f.fingerprint} ${where}`;
    if (shown.has(key)) continue;
    shown.add(key);
    console.log(`FINDING ${f.rule} ${where} ${f.masked} ${f.fingerprint}`);
  }
  if (real.length > 0) {
    console.log(
      'secret scan: FAILED. Revoke any real key (it is in the history now), remove it; if the value is a fake fixture, add ' +
        '"<fingerprint> <path> <rule> # why it is fake" to security/secret-allowlist.txt.',
    );
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`secret scan: cannot scan: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(2);
    },
  );
}
