import { clipText } from './clip-text.ts';
import { shapeOf } from './line-shape.ts';
import { lineTime } from './log-time.ts';
import type { TurnClaim } from './planner.ts';
import { type NumberedLine, readWhole } from './read-whole.ts';
import { singularForms } from './singular.ts';
import { inWindow, type TimeWindow } from './time-window.ts';
import type { WorkspaceToolbox } from './tools.ts';
import { reportsTrouble } from './trouble.ts';

/**
 * The most claims a window's answer quotes: each is a line of the answer with its citation, and about ten is what a
 * person reads as one timeline without scrolling; a burst of one error is one claim however long. Past it, the rest
 * are counted (S-236), not dropped without a word.
 */
const MAX_WINDOW_CLAIMS = 10;

export interface WindowFindings {
  readonly claims: readonly TurnClaim[];
  /** Matching lines no claim cites (S-236). */
  readonly more: number;
  readonly unknown: readonly string[];
}

/**
 * S-234: the lines stamped inside the time a question asks about, read from the files (the ones it names, else every
 * one) — not the lines that hold the question's times as text, which left out every 03:12 line of "between 03:11 and
 * 03:13". Lines holding the question's other terms only, where it has any; lines reporting trouble only, where it asks
 * about errors; otherwise trouble first, since that is what an incident's window is asked for. Each group in the order
 * the lines were written, across the files (log-time.ts), a burst of one message cited as one range.
 */
export async function windowClaims(p: {
  readonly toolbox: WorkspaceToolbox;
  readonly paths: readonly string[];
  readonly window: TimeWindow;
  /** Terms a line must hold one of (errors asked for are not among them: `troubleOnly` says that). */
  readonly terms: readonly string[];
  readonly troubleOnly: boolean;
  readonly outputs: string[];
}): Promise<WindowFindings> {
  const byFile = new Map<string, readonly NumberedLine[]>();
  const pool: { line: NumberedLine; key: number; trouble: boolean }[] = [];
  const undated: string[] = [];
  const needles = p.terms.map((t) => [t.toLowerCase(), ...singularForms(t)]);
  for (const path of p.paths) {
    const lines = (await readWhole(p.toolbox, path, p.outputs)) ?? [];
    byFile.set(path, lines);
    let dated = false;
    for (const line of lines) {
      const time = lineTime(line.text);
      if (time === null) continue;
      dated = true;
      if (!inWindow(p.window, time.clock)) continue;
      const lowered = line.text.toLowerCase();
      if (needles.length > 0 && !needles.some((forms) => forms.some((f) => lowered.includes(f)))) continue;
      const trouble = reportsTrouble(line.text);
      if (p.troubleOnly && !trouble) continue;
      // A line with a date by its time; one with a clock only (syslog) by its clock, before the dated ones.
      pool.push({ line, key: time.at ?? time.clock * 1000, trouble });
    }
    if (!dated && lines.length > 0) undated.push(path);
  }
  pool.sort(
    (a, b) =>
      Number(b.trouble) - Number(a.trouble) || a.key - b.key || (a.line.path === b.line.path ? a.line.line - b.line.line : a.line.path < b.line.path ? -1 : 1),
  );
  const inPool = new Set(pool.map((e) => `${e.line.path}\u0000${e.line.line}`));
  const cited: { path: string; start: number; end: number }[] = [];
  const claims: TurnClaim[] = [];
  for (const { line } of pool) {
    if (claims.length >= MAX_WINDOW_CLAIMS) break;
    if (cited.some((c) => c.path === line.path && line.line >= c.start && line.line <= c.end)) continue;
    const lines = byFile.get(line.path) ?? [];
    const shape = shapeOf(line.text);
    let end = line.line;
    while (inPool.has(`${line.path}\u0000${end + 1}`) && shapeOf(lines[end]?.text ?? '') === shape) end++;
    cited.push({ path: line.path, start: line.line, end });
    const more = end - line.line;
    claims.push({
      text: `${line.path} line ${line.line}: "${clipText(line.text.trim(), 300)}"${more > 0 ? `, and ${more} more line${more === 1 ? '' : 's'} like it to line ${end}` : ''}`,
      citations: [{ kind: 'file', path: line.path, startLine: line.line, endLine: end }],
    });
  }
  const shown = cited.reduce((n, c) => n + c.end - c.start + 1, 0);
  const unknown: string[] = [];
  const what = [p.terms.length > 0 ? `mentions ${p.terms.map((t) => `"${t}"`).join(', ')}` : '', p.troubleOnly ? 'reports trouble' : '']
    .filter(Boolean)
    .join(' and ');
  if (claims.length === 0) unknown.push(`No line of ${p.paths.join(', ')} stamped ${p.window.said}${what ? ` ${what}` : ' was found'}.`);
  // Said, not passed over: a file whose lines state no time that can be read cannot be placed in the window at all.
  if (undated.length > 0) {
    unknown.push(`No line of ${undated.join(', ')} states a time that could be read, so whether any of its lines belongs ${p.window.said} is unknown.`);
  }
  return { claims, more: pool.length - shown, unknown };
}
