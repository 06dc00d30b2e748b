import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/*
 * S-262 (the provider-router audit, 2026-12-07): a misconfigured provider fell back to the offline model silently.
 * GROQ_BASE_URL without /v1, or naming the endpoint, or a key the provider refuses: plain `ask` printed ANSWERED with
 * no word that groq had failed; only --trace showed "HTTP 404 not_found". A stub that serves only /v1, as a provider
 * does, on 127.0.0.1.
 */

const io = captureOutput();
const QUESTION = 'What is the connection pool ceiling for orders-db?';

let stub: StubOpenAIServer;
let dataDir: string;
beforeAll(async () => {
  stub = await startStubOpenAIServer({ strictPaths: true });
  dataDir = mkdtempSync(join(tmpdir(), 'ask-note-'));
});
afterAll(async () => {
  await stub.close();
  rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => vi.unstubAllEnvs());

async function askWith(baseURL: string, key = 'test-key-0123456789'): Promise<string> {
  vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
  vi.stubEnv('GROQ_API_KEY', key);
  vi.stubEnv('GROQ_BASE_URL', baseURL);
  const from = io.out.length;
  expect(await main(['ask', QUESTION])).toBe(0);
  return io.out.slice(from);
}

const noteOf = (out: string) => out.split('\n').filter((l) => l.startsWith('Note:'));

describe('plain sandscope ask, when a configured provider fails', () => {
  it('says in one line that groq failed, asks whether GROQ_BASE_URL is missing /v1, and names the model that answered', async () => {
    const root = stub.baseURL.replace(/\/v1$/, '');
    const out = await askWith(root);
    expect(out).toMatch(/^ANSWERED/);
    expect(noteOf(out)).toEqual([
      `Note: groq failed (HTTP 404 not_found: "Unknown request URL: POST /chat/completions. Please check the URL for typos."; is GROQ_BASE_URL missing /v1? Calls went to ${root}/chat/completions (it is used as given; only OLLAMA_BASE_URL has /v1 added)); the offline model answered instead.`,
    ]);
  });

  it('says to set the base URL, not the endpoint', async () => {
    const [note] = noteOf(await askWith(`${stub.baseURL}/chat/completions`));
    expect(note).toMatch(
      /^Note: groq failed \(HTTP 404 not_found: .*; GROQ_BASE_URL names the endpoint: set the base URL, not the endpoint \(http:\/\/127\.0\.0\.1:\d+\/v1\)\); the offline model answered instead\.$/,
    );
  });

  it('names a key the provider refused, without the key', async () => {
    stub.script({ kind: 'echo-key', status: 401 });
    const [note] = noteOf(await askWith(stub.baseURL, 'gsk_refused0123456789abcdef'));
    expect(note).toBe('Note: groq failed (HTTP 401 authentication: "Incorrect API key provided: [redacted]"); the offline model answered instead.');
  });

  it('says nothing when the configured provider answered', async () => {
    const before = stub.requests.length;
    const out = await askWith(stub.baseURL);
    expect(stub.requests.length).toBeGreaterThan(before);
    expect(noteOf(out)).toEqual([]);
  });
});
