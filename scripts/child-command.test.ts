import { describe, expect, it } from 'vitest';
import { UserError } from 'sandscope/user-error';
import { runChild } from './child-command.ts';

const node = process.execPath;
const cwd = process.cwd();

describe('runChild', () => {
  it('returns what the child printed', async () => {
    await expect(runChild(node, ['-e', 'process.stdout.write("{}")'], { cwd })).resolves.toMatchObject({ stdout: '{}' });
  });

  it("keeps a child's refusal a person's error, in the child's own words (S-104)", async () => {
    const child = 'console.error("progress…"); console.error("train: corpus x: its texts are not here: run `npm run corpora`"); process.exit(2)';
    const failure = await runChild(node, ['-e', child], { cwd }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UserError);
    expect((failure as UserError).message).toBe('train: corpus x: its texts are not here: run `npm run corpora`');
  });

  it('leaves a crash a bug', async () => {
    const failure = await runChild(node, ['-e', 'throw new Error("boom")'], { cwd }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(UserError);
  });
});
