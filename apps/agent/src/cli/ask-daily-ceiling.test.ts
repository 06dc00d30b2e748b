import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.ts';
import { startAgentService } from '../service/compose.ts';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/*
 * S-260 (the provider-router audit, 2026-12-07): `ask` built its models with no spend ledger, so its priced calls were
 * booked nowhere. Under DAILY_SPEND_CEILING_USD=0.02, four `ask` runs at $0.007 a call were all served ($0.028), and a
 * `serve` started afterwards on the same data directory still had the whole $0.02. A real stub provider on 127.0.0.1,
 * configured as an operator would (GROQ_API_KEY, GROQ_BASE_URL, its prices), answers each draft.
 */

const io = captureOutput();
const QUESTION = 'What is the connection pool ceiling for orders-db?';
/** $4 per million tokens in and out: a draft's reservation is about $0.011, and what the stub bills ($0.007) settles it. */
const PRICE = '4';
const BILLED = { promptTokens: 1_650, completionTokens: 100 };

let stub: StubOpenAIServer | undefined;
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ask-ceiling-'));
});
afterAll(async () => {
  await stub?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A provider that sends the offline model's verified draft as its own: one call per run, no correction. */
async function draftingStub(): Promise<StubOpenAIServer> {
  const from = io.out.length;
  expect(await main(['ask', '--json', QUESTION])).toBe(0);
  const { claims } = JSON.parse(io.out.slice(from)) as { claims: unknown[] };
  return startStubOpenAIServer({ fallback: { kind: 'json', text: JSON.stringify({ claims }), usage: BILLED } });
}

const env = (provider: StubOpenAIServer) => ({
  SANDSCOPE_DATA_DIR: dataDir,
  GROQ_API_KEY: 'test-key',
  GROQ_BASE_URL: provider.baseURL,
  GROQ_INPUT_USD_PER_MTOK: PRICE,
  GROQ_OUTPUT_USD_PER_MTOK: PRICE,
  DAILY_SPEND_CEILING_USD: '0.02',
});

interface Run {
  outcome: string;
  spend: { spentUsd: number };
  providers: { provider: string; kind: string }[];
  trace: { type: string; event?: { kind: string; reason?: string } }[];
}

describe('sandscope ask with a priced provider', () => {
  it('books each priced call on the daily ceiling serve books on: a call the day cannot afford is not made', async () => {
    const provider = (stub = await draftingStub());
    for (const [name, value] of Object.entries(env(provider))) vi.stubEnv(name, value);
    const runs: Run[] = [];
    for (let i = 0; i < 4; i++) {
      const from = io.out.length;
      expect(await main(['ask', '--json', QUESTION])).toBe(0);
      runs.push(JSON.parse(io.out.slice(from)) as Run);
    }
    // Two drafts at $0.007 fit under $0.02; the third's reservation would not, so it is refused and never sent.
    expect(runs.map((r) => r.outcome)).toEqual(['answered', 'answered', 'escalated', 'escalated']);
    expect(runs.map((r) => r.spend.spentUsd)).toEqual([0.007, 0.007, 0, 0]);
    expect(provider.requests).toHaveLength(2);
    for (const r of runs.slice(2)) {
      expect(r.providers).toEqual([]);
      expect(r.trace.filter((e) => e.type === 'spend').map((e) => e.event)).toContainEqual(expect.objectContaining({ kind: 'refused', reason: 'daily' }));
    }
    vi.unstubAllEnvs();

    // `serve` on the same data directory starts with what `ask` spent on its books.
    const parsed = loadConfig(
      { ...env(provider), AGENT_TOKEN: 'ask-ceiling-token-0123456789', IP_SALT: 'ask-ceiling-salt-0123456789' },
      { requireToken: true },
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const agent = await startAgentService({ config: parsed.config, log: () => {} });
    try {
      const usage = await agent.spendLedger.usage();
      expect(usage.spentUsd).toBeCloseTo(0.014, 9);
      expect(usage.reservedUsd).toBe(0);
    } finally {
      await agent.close();
    }
  }, 120_000);

  it('while a running agent holds the embedded database, leaves its priced providers out and says so', async () => {
    const held = mkdtempSync(join(tmpdir(), 'ask-held-'));
    try {
      // A live process other than this one holds the folder, as `npm start` does (pglite-owner.ts).
      writeFileSync(join(held, 'pglite.owner'), String(process.ppid));
      const provider = (stub ??= await draftingStub());
      const before = provider.requests.length;
      for (const [name, value] of Object.entries({ ...env(provider), SANDSCOPE_DATA_DIR: held })) vi.stubEnv(name, value);
      const from = io.out.length;
      expect(await main(['ask', QUESTION])).toBe(0);
      expect(io.out.slice(from)).toMatch(/^ANSWERED/);
      expect(provider.requests.length).toBe(before);
      expect(io.err).toContain(
        `sandscope: note: groq not called: the daily spend ceiling (DAILY_SPEND_CEILING_USD) is booked in the database at ${join(held, 'pglite')}, which another process holds (pid ${process.ppid}: is \`npm start\` or \`npx sandscope serve\` running?), and a priced call is booked there before it is made. The offline model answers; ask on the website, or stop it and ask again.\n`,
      );
    } finally {
      vi.unstubAllEnvs();
      rmSync(held, { recursive: true, force: true });
    }
  }, 60_000);
});
