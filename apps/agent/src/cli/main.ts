import { UserError } from '../user-error.ts';
import { askCommand } from './ask-command.ts';

const HELP = `sandscope — an evidence-gated, cited on-call assistant

Usage:
  npx sandscope ask [--corpus DIR] [--json] "question"   answer from the library, or refuse
  npx sandscope help                                     this text
`;

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  ask: askCommand,
  help: async () => {
    process.stdout.write(HELP);
    return 0;
  },
};

/**
 * The CLI boundary: unknown errors are converted once, here (STYLE rule 7).
 * A UserError prints its one line; anything else prints a one-line bug report.
 */
export async function main(argv: string[]): Promise<number> {
  const [name = 'help', ...rest] = argv;
  const command = COMMANDS[name === '--help' || name === '-h' ? 'help' : name];
  try {
    if (!command) throw new UserError(`unknown command "${name}". Run \`npx sandscope help\` for the commands.`);
    return await command(rest);
  } catch (error) {
    if (error instanceof UserError) {
      process.stderr.write(`sandscope: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`sandscope: internal error: ${message}. This is a bug; rerun with SANDSCOPE_DEBUG=1 for details.\n`);
    if (process.env.SANDSCOPE_DEBUG) console.error(error);
    return 1;
  }
}
