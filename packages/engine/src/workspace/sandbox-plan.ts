import { clipText } from './clip-text.ts';
import { filesNamed } from './named-files.ts';
import type { TurnCitation, TurnClaim } from './planner.ts';
import { FAILURE } from './trouble.ts';
import type { WorkspaceFileInfo } from './workspace-files.ts';
import type { WorkspaceToolbox } from './tools.ts';

/** A file at least this large is a log worth summarising before reading around hits. */
export const LARGE_LOG_BYTES = 64 * 1024;
/** The most settings of a named JSON file one turn quotes. */
const MAX_JSON_CLAIMS = 4;

/**
 * Every scalar of a JSON document as `dotted.path = value`, one per line: jq
 * flattens nesting the literal search cannot see (the `max` under
 * `orders-db.pool`, not any `max`). Starts with a letter: jq 1.6 would read a
 * leading "-" as an option (tool-declarations.ts).
 */
export const JSON_LEAVES_FILTER = 'paths(scalars) as $p | "\\($p | map(tostring) | join(".")) = \\(getpath($p) | tojson)"';

export interface SandboxFindings {
  readonly claims: readonly TurnClaim[];
  /** What the tools printed: part of what the turn read (its prompt-token estimate). */
  readonly outputs: readonly string[];
  /**
   * S-243: said beside the answer, one per sandboxed tool that failed: which, on what, why, and what to do. A failed
   * call was only `ok: false` on the card, and the answer read as if the tool had found nothing.
   */
  readonly notes: readonly string[];
}

/**
 * Trouble asked about in the logs as a whole: the planner's failure words (FAILURE), and the words people use for
 * trouble that are not a failure's ("any problems?", "what went wrong?", "any exceptions or warnings?").
 */
const LOG_TROUBLE = /\b(?:trouble\w*|problems?|issues?|incidents?|exceptions?|warn(?:ings?|s)?|errs?)\b/i;

/**
 * S-242: the large logs worth a log_summary for this question. A log the question names; or, where it names no file,
 * every large log when it asks about errors or trouble. A question that names another file ("what is the db
 * timeout_ms in config.json?") or asks for a setting's value names no trouble, and is not answered with a summary of
 * mid.log: each large log's summary was appended to every answer whatever was asked.
 */
export function logsToSummarise(message: string, files: readonly WorkspaceFileInfo[]): WorkspaceFileInfo[] {
  const large = files.filter((f) => f.sizeBytes >= LARGE_LOG_BYTES && !/\.json$/i.test(f.path));
  const named = filesNamed(message, files).paths;
  if (named.length > 0) return large.filter((f) => named.includes(f.path));
  return FAILURE.test(message) || LOG_TROUBLE.test(message) ? large : [];
}

/**
 * What the offline planner asks of the sandboxed tools (seed #21), when the
 * jail is here and the template turned them on; where it is not, nothing is
 * asked and the planner answers as it does without them. `jq` reads a JSON
 * file the question names and the settings that hold the question's terms are
 * quoted, each cited to its line; `log_summary` reads a large log the question
 * is about (logsToSummarise) once and the first and last error lines are cited.
 * Each claim says the tool ran in the sandbox; a tool that fails is a refused
 * call on the card, no claim, and a note saying so (S-243).
 */
export async function consultSandbox(p: {
  readonly toolbox: WorkspaceToolbox;
  readonly files: readonly WorkspaceFileInfo[];
  readonly message: string;
  readonly terms: readonly string[];
}): Promise<SandboxFindings> {
  const claims: TurnClaim[] = [];
  const outputs: string[] = [];
  const notes: string[] = [];
  const lowered = p.message.toLowerCase();
  if (p.toolbox.offers('jq')) {
    for (const file of p.files.filter((f) => /\.json$/i.test(f.path) && lowered.includes(baseName(f.path).toLowerCase()))) {
      const out = await p.toolbox.call('jq', { filter: JSON_LEAVES_FILTER, path: file.path, raw: true });
      outputs.push(out.text);
      if (!out.ok) {
        notes.push(failedNote('jq', file.path, out.text));
        continue;
      }
      claims.push(...(await jsonClaims(p.toolbox, file.path, out.text, p.terms)));
    }
  }
  if (p.toolbox.offers('log_summary')) {
    for (const file of logsToSummarise(p.message, p.files)) {
      const out = await p.toolbox.call('log_summary', { path: file.path });
      outputs.push(out.text);
      if (!out.ok) {
        notes.push(failedNote('log_summary', file.path, out.text));
        continue;
      }
      const claim = summaryClaim(file.path, out.text);
      if (claim) claims.push(claim);
    }
  }
  return { claims, outputs, notes };
}

/**
 * S-243: a sandboxed tool that failed, said: which, over what, its own words (clipped), and the remedy. The provider
 * loop says the same of a tool none of whose calls in the turn ran (S-244).
 */
export function failedNote(tool: string, path: string | undefined, refusal: string): string {
  const why = clipText(refusal.replace(/\s+/g, ' ').trim(), 200).replace(/\.$/, '');
  return (
    `The sandboxed tool ${tool} failed${path ? ` over ${path}` : ''} (${why}); nothing it would have found is in this answer. ` +
    'If its package is missing or broken, run `npx sandscope tools build` again (`npx sandscope tools list` shows what is built).'
  );
}

/** The settings whose path or value holds a term (the file's own name is not a term here), each cited to its line. */
async function jsonClaims(toolbox: WorkspaceToolbox, path: string, printed: string, terms: readonly string[]): Promise<TurnClaim[]> {
  const name = baseName(path).toLowerCase();
  const own = terms.map((t) => t.toLowerCase()).filter((t) => !name.includes(t) && !t.includes(name));
  const leaves = printed
    .split('\n')
    .map((line) => /^(?<key>.+?) = (?<value>.*)$/.exec(line)?.groups)
    .filter((g): g is { key: string; value: string } => g !== undefined);
  const wanted = own.length === 0 ? leaves : leaves.filter((l) => own.some((t) => `${l.key} ${l.value}`.toLowerCase().includes(t)));
  if (wanted.length === 0) return [];
  const read = await toolbox.call('read_file', { path });
  if (!read.ok || read.tool !== 'read_file') return [];
  const lines = read.window.lines;
  const claims: TurnClaim[] = [];
  for (const leaf of wanted.slice(0, MAX_JSON_CLAIMS)) {
    const line = leafLine(lines, leaf.key, leaf.value);
    if (line === null) continue;
    const citation: TurnCitation = { kind: 'file', path, startLine: read.window.startLine + line, endLine: read.window.startLine + line };
    claims.push({ text: `${path} sets ${leaf.key} = ${leaf.value} (read with jq, run in the sandbox)`, citations: [citation] });
  }
  return claims;
}

/**
 * The line (0-based in `lines`) that holds a leaf: each key of its path found
 * in turn at or after its parent's line, the last with the value beside it —
 * so `orders-db.pool.max` is the `"max"` under `"pool"`, not the first `"max"`.
 */
function leafLine(lines: readonly string[], dotted: string, value: string): number | null {
  const keys = dotted.split('.').filter((k) => !/^\d+$/.test(k));
  let at = 0;
  for (const [i, key] of keys.entries()) {
    const quoted = JSON.stringify(key);
    const last = i === keys.length - 1;
    let found = -1;
    for (let n = at; n < lines.length; n++) {
      if (lines[n]!.includes(quoted) && (!last || lines[n]!.includes(value))) {
        found = n;
        break;
      }
    }
    if (found < 0) return null;
    at = found;
  }
  if (keys.length === 0) {
    const n = lines.findIndex((l) => l.includes(value));
    return n < 0 ? null : n;
  }
  return at;
}

/**
 * log_summary's counts and its first and last error, cited to those lines; null when the log has no error.
 * Each is read from its fixed line of the format (header, levels, first error, last error), never from any
 * line that matches: the Top messages quote the log, and a message holding "First error: … (line 7)" forged
 * the claim and its citation.
 */
function summaryClaim(path: string, printed: string): TurnClaim | null {
  const [header = '', byLevel = '', firstLine = '', lastLine = ''] = printed.split('\n');
  const first = /^First error: (?<time>.*) \(line (?<line>\d+)\)$/.exec(firstLine)?.groups;
  const last = /^Last error: (?<time>.*) \(line (?<line>\d+)\)$/.exec(lastLine)?.groups;
  if (!first || !last) return null;
  const total = /: (\d+) lines \(\d+ JSON, \d+ text\)$/.exec(header)?.[1];
  const levels = /^By level: (.*)$/.exec(byLevel)?.[1];
  const a = Number(first.line);
  const b = Number(last.line);
  const citations: TurnCitation[] = [{ kind: 'file', path, startLine: a, endLine: a }];
  if (b !== a) citations.push({ kind: 'file', path, startLine: b, endLine: b });
  const span = a === b ? `its only error is line ${a} (${first.time})` : `its first error is line ${a} (${first.time}) and its last line ${b} (${last.time})`;
  return {
    text: `log_summary (run in the sandbox) over ${path}${total ? `, ${total} lines` : ''}${levels ? ` (${levels})` : ''}: ${span}`,
    citations,
  };
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
