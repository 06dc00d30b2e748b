import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../user-error.ts';

/** node:util parseArgs, with its TypeError turned into a one-line UserError naming the command's help. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(command: string, argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UserError(`${(error as Error).message.replace(/\. To specify.*$/s, '')}. Run \`npx sandscope help\` for ${command}'s options.`);
  }
}

/**
 * parseCommandArgs for a command that takes no positional argument. One was ignored without a word:
 * `questions out.jsonl` overwrote the corpus's own questions.jsonl, `eval mine.jsonl` scored another set,
 * `serve 8080` listened on 7860.
 */
export function parseCommandOptions<T extends NonNullable<ParseArgsConfig['options']>>(command: string, argv: string[], options: T) {
  const parsed = parseCommandArgs(command, argv, options);
  const [stray] = parsed.positionals;
  if (stray !== undefined) throw new UserError(`${command} takes options only, not "${stray}". Run \`npx sandscope help\` for ${command}'s options.`);
  return parsed;
}

export const MAX_QUESTION_CHARS = 1000;

/** A question is one non-empty line of reasonable length; anything else is a clear error. */
export function questionFrom(positionals: string[]): string {
  const question = positionals.join(' ').trim();
  if (!question) throw new UserError('the question is empty. Usage: npx sandscope ask "What is the connection pool ceiling for orders-db?"');
  if (question.length > MAX_QUESTION_CHARS) {
    throw new UserError(`the question is ${question.length} characters; the limit is ${MAX_QUESTION_CHARS}. Ask one specific question.`);
  }
  return question;
}
