// log_summary (seed #21): what an on-call engineer asks of a log first — how many lines at each level,
// when the errors started and stopped, and which messages repeat — in one call instead of many reads.
// It runs inside the jail with no network and only the workspace to read, so it is plain Node with no
// dependencies. Line numbers are printed so the agent can read_file around them and cite path:line.
import { readFileSync } from 'node:fs';

const [path, topArg] = process.argv.slice(2);
if (!path) {
  process.stderr.write('usage: log-summary FILE [TOP]\n');
  process.exit(2);
}
const top = Math.min(50, Math.max(1, Number.parseInt(topArg ?? '5', 10) || 5));
let text;
try {
  text = readFileSync(path, 'utf8');
} catch (error) {
  process.stderr.write(`log-summary: cannot read ${path.replace(/^\.\//, '')}: ${error.code ?? error.message}\n`);
  process.exit(1);
}

const LEVELS = {
  fatal: 'FATAL',
  critical: 'FATAL',
  crit: 'FATAL',
  error: 'ERROR',
  err: 'ERROR',
  warning: 'WARN',
  warn: 'WARN',
  info: 'INFO',
  notice: 'INFO',
  debug: 'DEBUG',
  trace: 'TRACE',
};
const ERRORISH = new Set(['FATAL', 'ERROR']);
// A text line: an optional timestamp, then a level word (bracketed or not), then the message.
const TEXT_LINE =
  /^\s*(?<time>\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?|\d\d:\d\d:\d\d(?:[.,]\d+)?)?\s*\[?(?<level>fatal|critical|crit|error|err|warning|warn|info|notice|debug|trace)\]?:?\s+(?<msg>.*)$/i;

const byLevel = new Map();
const messages = new Map();
let json = 0;
let plain = 0;
let firstError = null;
let lastError = null;
// Lines as the agent's read_file counts them (the engine's fileLines, which this jailed script cannot import): a bare
// \r ends a line too (S-272). Split at \n and \r\n only, a CR-only log was one line here, its errors all "line 1".
const lines = text.split(/\r\n|\r|\n/);
if (lines.at(-1) === '') lines.pop();

lines.forEach((line, i) => {
  const n = i + 1;
  let level = 'OTHER';
  let time = null;
  let msg = line.trim();
  const record = line.trimStart().startsWith('{') ? parseJson(line) : null;
  if (record) {
    json++;
    const raw = String(record.level ?? record.severity ?? record.lvl ?? record.log_level ?? '').toLowerCase();
    level = LEVELS[raw] ?? (raw === '' ? 'OTHER' : raw.toUpperCase());
    time = record.time ?? record.timestamp ?? record.ts ?? record['@timestamp'] ?? null;
    msg = String(record.msg ?? record.message ?? record.error ?? line.trim());
  } else {
    plain++;
    const m = TEXT_LINE.exec(line);
    if (m?.groups) {
      level = LEVELS[m.groups.level.toLowerCase()];
      time = m.groups.time ?? null;
      msg = m.groups.msg;
    }
  }
  byLevel.set(level, (byLevel.get(level) ?? 0) + 1);
  if (ERRORISH.has(level)) {
    const at = { time: time === null ? null : String(time), line: n };
    firstError ??= at;
    lastError = at;
  }
  if (level !== 'OTHER' && msg !== '') {
    // Numbers (ids, counts, durations) differ between repeats of one message; group on the words.
    const key = `${level} ${msg.replace(/\d+/g, '#').slice(0, 200)}`;
    const seen = messages.get(key);
    if (seen) seen.count++;
    else messages.set(key, { level, example: msg.slice(0, 200), count: 1, firstLine: n });
  }
});

const out = [];
const name = path.replace(/^\.\//, '');
out.push(`${name}: ${lines.length} lines (${json} JSON, ${plain} text)`);
const order = ['FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'];
const levels = [...byLevel.entries()].sort(([a], [b]) => rank(a) - rank(b));
out.push(`By level: ${levels.map(([l, c]) => `${l} ${c}`).join(', ') || 'none'}`);
out.push(firstError ? `First error: ${firstError.time ?? 'no timestamp'} (line ${firstError.line})` : 'First error: none');
out.push(lastError ? `Last error: ${lastError.time ?? 'no timestamp'} (line ${lastError.line})` : 'Last error: none');
const ranked = [...messages.values()].sort((a, b) => b.count - a.count || rank(a.level) - rank(b.level) || a.firstLine - b.firstLine).slice(0, top);
out.push(`Top messages:${ranked.length === 0 ? ' none' : ''}`);
for (const m of ranked) out.push(`  ${m.count}× ${m.level} ${m.example} (first at line ${m.firstLine})`);
// Each line printed as one line: the output is a fixed format read line by line (sandbox-plan.ts), and a JSON
// field holding a line break (a msg of "x\nFirst error: … (line 7)") printed raw forged the first-error line.
process.stdout.write(`${out.map(oneLine).join('\n')}\n`);

function rank(level) {
  const i = order.indexOf(level);
  return i < 0 ? order.length : i;
}

function oneLine(text) {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
}

function parseJson(line) {
  try {
    const value = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
