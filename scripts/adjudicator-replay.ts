// `npm run -s eval:replayed -- JUDGEMENTS.jsonl [--prompts OUT.jsonl] EVAL_ARGS…`: `sandscope eval EVAL_ARGS…
// --adjudicator model` with recorded judgements for a provider. A stub OpenAI-compatible server on 127.0.0.1 (the
// tests' stub, the only provider the run is given) answers each judgement prompt with the reply recorded for it in
// JUDGEMENTS.jsonl (`{"key", "reply"}` lines, the key a hash of the prompt), and with no judgement where none was
// recorded — so the product's own code (judgeByModel, settled, the router) acts on the replies, and the figures are
// the command's. `--prompts OUT.jsonl` writes the prompts no reply was recorded for (`{"key", "system", "user"}`),
// for someone — or something — to judge. ADR-0013 says the next gain needs a reader; with no provider reachable
// here, this is how a reader's judgement is measured and kept: the replies are data in the repo, replayed by a command.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_PROVIDERS } from '@sandscope/engine/models';
import { type StubRequest, startStubOpenAIServer } from '@sandscope/engine/testing';
import { z } from 'zod';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

const Recorded = z.object({ key: z.string(), reply: z.string() });

type Message = { role?: string; content?: string | { type?: string; text?: string }[] };
const textOf = (m: Message | undefined) =>
  typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');

/** A line's JSON, or null when it is none (a line cut short is a message naming it, not a bug report). */
function parseOrNull(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** A judgement prompt's two texts and their key; null for any other request (the evaluation makes none). */
function promptOf(body: StubRequest['body']): { key: string; system: string; user: string } | null {
  const messages = (body.messages ?? []) as Message[];
  const system = textOf(messages.find((m) => m.role === 'system'));
  const user = textOf(messages.find((m) => m.role === 'user'));
  if (!user.includes('<candidates>')) return null;
  return { key: createHash('sha256').update(`${system}\n\u0000\n${user}`).digest('hex').slice(0, 24), system, user };
}

await runScript('eval:replayed', async () => {
  const args = process.argv.slice(2);
  const file = args.shift();
  const promptsAt = args.indexOf('--prompts');
  const promptsFile = promptsAt >= 0 ? args.splice(promptsAt, 2)[1] : undefined;
  if (!file || file.startsWith('-') || (promptsAt >= 0 && !promptsFile))
    throw new UserError('usage: npm run -s eval:replayed -- JUDGEMENTS.jsonl [--prompts OUT.jsonl] --corpus DIR --questions FILE [--json]');
  if (!existsSync(file) && !promptsFile) throw new UserError(`${file}: no such file. Record prompts first with --prompts OUT.jsonl`);
  const replies = new Map<string, string>();
  if (existsSync(file))
    for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
      if (!line.trim()) continue;
      const parsed = Recorded.safeParse(parseOrNull(line));
      if (!parsed.success) throw new UserError(`${file}:${i + 1}: not a {"key","reply"} line`);
      replies.set(parsed.data.key, parsed.data.reply);
    }
  if (promptsFile) writeFileSync(promptsFile, '');
  let replayed = 0;
  let missing = 0;
  const stub = await startStubOpenAIServer({
    fallback: (body) => {
      const prompt = promptOf(body);
      if (!prompt) return { kind: 'status', status: 400, body: 'the replay answers judgement prompts only' };
      const reply = replies.get(prompt.key);
      if (reply !== undefined) {
        replayed++;
        return { kind: 'json', text: reply };
      }
      missing++;
      if (promptsFile) appendFileSync(promptsFile, `${JSON.stringify(prompt)}\n`);
      return { kind: 'json', text: 'no judgement was recorded for this prompt' };
    },
  });
  try {
    // The stub is the run's only provider: every other provider's settings are dropped from the child's environment.
    const env: NodeJS.ProcessEnv = { ...process.env, OLLAMA_BASE_URL: stub.baseURL, OLLAMA_MODEL: 'replayed' };
    for (const { name } of KNOWN_PROVIDERS) {
      if (name === 'ollama') continue;
      for (const suffix of ['API_KEY', 'BASE_URL', 'MODEL']) delete env[`${name.toUpperCase()}_${suffix}`];
    }
    const bin = join(import.meta.dirname, '..', 'apps/agent/bin/sandscope.js');
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [bin, 'eval', ...args, '--adjudicator', 'model'], { env, stdio: 'inherit' });
      child.on('exit', (c) => resolve(c ?? 1));
    });
    process.stderr.write(
      `eval:replayed: ${replayed} judgements replayed, ${missing} prompts with none recorded${promptsFile ? ` (written to ${promptsFile})` : ''}\n`,
    );
    process.exitCode = code;
  } finally {
    await stub.close();
  }
});
