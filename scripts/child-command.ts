import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { UserError } from 'sandscope/user-error';

const run = promisify(execFile);

/**
 * A script's child command (`train`, `eval`, the replay), run to completion for its output. A child that refused its
 * input has already said what to do, and said it with UserError's exit code: that stays a person's error here, with
 * the child's own words, instead of being reported as a bug with the whole command line (S-104: `reader:replay` with a
 * corpus's texts missing printed the child's advice and then "internal error … This is a bug").
 */
export async function runChild(file: string, args: readonly string[], options: { cwd: string }): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(file, [...args], { ...options, maxBuffer: 1 << 26 });
  } catch (error) {
    const failed = error as { code?: unknown; stderr?: unknown };
    if (failed.code === new UserError('').exitCode && typeof failed.stderr === 'string' && failed.stderr.trim())
      throw new UserError(failed.stderr.trim().split('\n').at(-1)!);
    throw error;
  }
}
