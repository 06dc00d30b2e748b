import { parseArgs, type ParseArgsConfig } from 'node:util';
import { charCount } from '../char-count.ts';
import { UserError } from '../user-error.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Where a command's own usage is printed: `<command> --help` (main), named in every parse error. */
const helpFor = (command: string) => `\`npx sandscope ${command} --help\` lists its options.`;

/**
 * node:util parseArgs, with its TypeError turned into a one-line UserError naming the command's help. Said as
 * "`npx sandscope questions --help` lists its options": "for questions's options" misspelt every command ending in s.
 */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T) {
  try {
    return parseArgs({ args: negativeValuesJoined(argv, options), options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UserError(`${parseErrorWords((error as Error).message, argv)}. ${helpFor(command)}`);
  }
}

/**
 * `--folds -3`: parseArgs takes a value starting with a dash for a forgotten value and printed three lines ending
 * "use '--folds=-XYZ'..", never saying what --folds takes. A negative number is no option of any command, so it is
 * passed as the value (as `--folds=-3`, `-w-3`) and the option's own check says what it takes.
 */
function negativeValuesJoined(argv: string[], options: Options): string[] {
  const takesValue = (token: string) =>
    Object.entries(options).some(([name, o]) => o.type === 'string' && (token === `--${name}` || (o.short !== undefined && token === `-${o.short}`)));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (takesValue(token) && next !== undefined && next !== '--') {
      out.push(...(/^-\d/.test(next) ? [token.startsWith('--') ? `${token}=${next}` : `${token}${next}`] : [token, next]));
      i++;
      continue;
    }
    out.push(token);
  }
  return out;
}

/** parseArgs's message as one line, without its closing period (the caller adds a sentence). */
function parseErrorWords(message: string, argv: string[]): string {
  const ambiguous = /^Option '(-[^' ]+)' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const option = ambiguous[1]!;
    const long = /use '(--[^=']+)=-XYZ'/.exec(message)?.[1] ?? option;
    return `${option} needs a value, and is followed by "${argv[argv.indexOf(option) + 1]}", not a value. Give ${option} its value (${long}=VALUE for one starting with a dash)`;
  }
  const missing = /^Option '(?:-(\w), )?(--[^' ]+) <value>' argument missing/.exec(message);
  if (missing) return `${missing[2]}${missing[1] ? ` (-${missing[1]})` : ''} needs a value`;
  return message
    .split('\n')[0]!
    .replace(/\. To specify.*$/, '')
    .replace(/\.+$/, '');
}

/**
 * parseCommandArgs for a command that takes no positional argument. One was ignored without a word:
 * `questions out.jsonl` overwrote the corpus's own questions.jsonl, `eval mine.jsonl` scored another set,
 * `serve 8080` listened on 7860.
 */
export function parseCommandOptions<T extends Options>(command: string, argv: string[], options: T) {
  const parsed = parseCommandArgs(command, argv, options);
  const [stray] = parsed.positionals;
  if (stray !== undefined) throw new UserError(`${command} takes options only, not "${stray}". ${helpFor(command)}`);
  return parsed;
}

/**
 * Every argument as typed, or one line saying it is not: Node decodes argv as UTF-8 and puts U+FFFD for each byte
 * that is not, so `ask "caf\xe9 latency"` (a Latin-1 terminal) was asked as "caf� latency" and refused as "the library
 * never mentions “caf”" — altered without a word, where the HTTP API refuses the same bytes (400, not valid UTF-8).
 * The bytes themselves are gone by then, so a U+FFFD is taken as their mark.
 */
export function refuseUndecodedArguments(argv: readonly string[]): void {
  const bad = argv.find((a) => a.includes('\uFFFD'));
  if (bad === undefined) return;
  const shown = bad.length > 60 ? `${bad.slice(0, 60)}…` : bad;
  throw new UserError(
    `the text "${shown}" is not valid UTF-8 (each � marks bytes that could not be read), so it would be taken altered. Check that the terminal's encoding is UTF-8 (e.g. LANG=C.UTF-8) and retype it.`,
  );
}

export const MAX_QUESTION_CHARS = 1000;

/**
 * What is wrong with the length of a (trimmed) question `ask` would be asked, or null: the one rule `ask` refuses by
 * and `eval --questions` reads each line's question by (a 900,000-character line was scored, and counted as a false
 * answer, where `ask` refused it). Counted in characters (code points) as the API counts them (charCount, S-288).
 */
export function questionLengthProblem(question: string): string | null {
  const length = charCount(question);
  return length > MAX_QUESTION_CHARS ? `the question is ${length} characters; the limit is ${MAX_QUESTION_CHARS}` : null;
}

/** A question is one non-empty line of reasonable length; anything else is a clear error. */
export function questionFrom(positionals: string[]): string {
  const question = positionals.join(' ').trim();
  if (!question) throw new UserError('the question is empty. Usage: npx sandscope ask "What is the connection pool ceiling for orders-db?"');
  const tooLong = questionLengthProblem(question);
  if (tooLong) throw new UserError(`${tooLong}. Ask one specific question.`);
  return question;
}
