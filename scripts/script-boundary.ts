import { tolerateClosedPipe } from 'sandscope/closed-pipe';
import { UserError } from 'sandscope/user-error';

/**
 * The boundary for `npm run` scripts, as `main` is for the CLI (STYLE rule 7): a
 * UserError prints its one line, anything else a one-line bug report; never a
 * stack trace unless SANDSCOPE_DEBUG asks for it; nor one when its reader stops
 * early (`npm run -s eval:groups | head`: closed-pipe.ts).
 */
export async function runScript(name: string, body: () => Promise<void>): Promise<void> {
  tolerateClosedPipe();
  try {
    await body();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      error instanceof UserError ? `${name}: ${message}\n` : `${name}: internal error: ${message}. This is a bug; rerun with SANDSCOPE_DEBUG=1 for details.\n`,
    );
    if (process.env.SANDSCOPE_DEBUG) console.error(error);
    process.exitCode = error instanceof UserError ? error.exitCode : 1;
  }
}
