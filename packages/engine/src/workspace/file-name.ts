import { resolveWorkspacePath, type WorkspacePath } from './workspace-path.ts';

/**
 * A file's name as a person sent it — kept exactly as sent, or refused with
 * the part to change. resolveWorkspacePath is lenient on purpose: the agent's
 * tools may say `./logs//app.log` or `~/app.log` and mean `logs/app.log`. A
 * name that is stored is another matter (S-213): `a//c.log`, `./d.log`,
 * `e.log/`, ` sp.log` and `~/t.log` were stored as `a/c.log`, `d.log`,
 * `e.log`, `sp.log` and `t.log` — another file's name, which an upload then
 * replaced without a word. And a name is read by people in a file list: a
 * bidi control (U+202E) made a file kept as `\u202Egol.exe` show as `exe.log`,
 * and an invisible character (U+200B) made two names that look the same two files.
 * The same words on every door that names a file to store, read or remove.
 */
export function exactFileName(name: string): WorkspacePath {
  // First, so that no refusal quotes a bidi control back unescaped (its own text would be shown reordered).
  for (const char of name) {
    const hidden = hiddenCharacter(char);
    if (hidden) return refuse(`the path ${shown(name)} contains ${hidden}; send the name without it`);
  }
  // Then its refusals (leaves the workspace, a URL, a backslash, too long), in its words: one rule for leaving.
  const resolved = resolveWorkspacePath(name);
  if (!resolved.ok) return resolved;
  // The rest resolveWorkspacePath would rewrite: said, with the name it would have kept, never done silently.
  const kept = shown(resolved.path);
  if (name !== name.trim()) return refuse(`the path ${shown(name)} begins or ends with a space; send ${kept}`);
  const segments = name.split('/');
  if (segments[0] === '') return refuse(`the path ${shown(name)} begins with "/"; name the file from the workspace's top: send ${kept}`);
  if (segments.at(-1) === '') return refuse(`the path ${shown(name)} ends with "/", which names a folder, not a file; send ${kept}`);
  if (segments.includes('')) return refuse(`the path ${shown(name)} has an empty folder name ("//"); send ${kept}`);
  if (segments.includes('.')) return refuse(`the path ${shown(name)} has a "." segment (the folder it is in); send ${kept}`);
  // `~/`, the sandbox's name for the workspace's top, is what is left.
  const tilde = name.startsWith('~/') ? ' ("~/" is the workspace\'s top)' : '';
  if (resolved.path !== name) return refuse(`the path ${shown(name)} would be kept as ${kept}${tilde}; send ${kept}`);
  return resolved;
}

/** Bidi controls: they reorder how the text around them is shown (Trojan Source, CVE-2021-42574). */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * The zero-width non-joiner and joiner are format characters too, but they are how Persian, Hindi and emoji sequences
 * are spelled: refusing them would refuse a person's ordinary file name, so they are kept.
 */
const JOINER = /[\u200c\u200d]/u;

/** Why a character cannot be in a name, or undefined. Controls, format characters (Cf) and line breaks are not seen. */
function hiddenCharacter(char: string): string | undefined {
  if (JOINER.test(char)) return undefined;
  const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (/\p{Cc}/u.test(char)) return `a control character (${code})`;
  if (BIDI_CONTROL.test(char)) return `a bidi control (${code}), which shows the name in another order than it is stored`;
  if (/[\p{Zl}\p{Zp}]/u.test(char)) return `a line break (${code})`;
  if (/\p{Cf}/u.test(char)) return `an invisible character (${code}), so two names that look the same would be two files`;
  return undefined;
}

/**
 * A name as typed, for the start of a message: itself, unless it holds a character that cannot be seen, then quoted as
 * `shown` quotes it. The CLI's refusal began with the name as typed, so a bidi control reordered the line that refused it.
 */
export function printableName(name: string): string {
  return /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name) ? shown(name) : name;
}

/** The name quoted with what cannot be seen written out (`\u202e`), so the refusal itself is not shown reordered. */
function shown(name: string): string {
  const chars = [...name];
  const clipped = chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : name;
  return JSON.stringify(clipped).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

function refuse(reason: string): WorkspacePath {
  return { ok: false, reason };
}
