import { describe, expect, it, vi } from 'vitest';
import type { Chunk } from '../types.ts';
import { OfflineExtractiveModel } from './offline-model.ts';
import { estimateTokens, promptText } from './pricing.ts';
import { buildDraftPrompt, parseDraft } from './prompt.ts';
import { drainStream } from './text-stream.ts';

// Spy through to the real implementation: the model must hand the feedback on (D-005).
const spy = vi.hoisted(() => ({ calls: [] as unknown[][] }));
vi.mock('../answer/extractive.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../answer/extractive.ts')>();
  return {
    ...real,
    draftExtractive: (...args: Parameters<typeof real.draftExtractive>) => {
      spy.calls.push(args);
      return real.draftExtractive(...args);
    },
  };
});

const passages: Chunk[] = [
  { id: 'runbook-db#pool', doc: 'runbook-db.md', docTitle: 'DB runbook', heading: 'Pool', text: 'The orders-db pool ceiling is 100. Raise it with a change.' },
  {
    id: 'policy-change#approval',
    doc: 'policy-change.md',
    docTitle: 'Change policy',
    heading: 'Approval',
    text: 'Emergency changes are approved by the incident commander.',
  },
];
const prompt = buildDraftPrompt({ system: 'triage', question: 'What is the pool ceiling for orders-db?', passages });

describe('OfflineExtractiveModel', () => {
  const model = new OfflineExtractiveModel();

  it('identifies itself as the offline extractive model', () => {
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual(['v3', 'offline', 'extractive-v1']);
    expect(OfflineExtractiveModel.pricing).toEqual({ inputUsdPerToken: 0, outputUsdPerToken: 0 });
  });

  it('drafts JSON claims cited to the given passages', async () => {
    const result = await model.doGenerate({ prompt });
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    const claims = parseDraft(text);
    expect(claims).not.toBeNull();
    expect(claims!.length).toBeGreaterThan(0);
    for (const claim of claims!) {
      expect(claim.citations.length).toBeGreaterThan(0);
      for (const id of claim.citations) expect(passages.map((p) => p.id)).toContain(id);
    }
  });

  it('is deterministic, streamed or not', async () => {
    const a = await model.doGenerate({ prompt });
    const b = await model.doGenerate({ prompt });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const s1 = await drainStream((await model.doStream({ prompt })).stream);
    const s2 = await drainStream((await model.doStream({ prompt })).stream);
    expect(s1.parts).toEqual(s2.parts);
    expect(s1.error).toBeUndefined();
    expect(s1.text).toBe(a.content[0]?.type === 'text' ? a.content[0].text : null);
    expect(s1.parts.filter((p) => p.type === 'text-delta').length).toBeGreaterThan(1);
    expect(s1.parts.at(-1)).toMatchObject({ type: 'finish', usage: a.usage });
  });

  it('counts usage as characters / 4 and costs nothing', async () => {
    const result = await model.doGenerate({ prompt });
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    expect(result.usage.inputTokens.total).toBe(estimateTokens(promptText(prompt)));
    expect(result.usage.outputTokens.total).toBe(Math.ceil(text.length / 4));
  });

  it('passes the verifier feedback to the drafter (D-005)', async () => {
    spy.calls.length = 0;
    const feedback = ['Claim "x" cites nothing'];
    await model.doGenerate({ prompt: buildDraftPrompt({ system: 'triage', question: 'q?', passages, feedback }) });
    expect(spy.calls).toHaveLength(1);
    expect(spy.calls[0]).toEqual(['q?', passages, { feedback }]);
  });

  it('refuses a prompt that is not a draft prompt', async () => {
    await expect(model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).rejects.toThrow(/draft prompts/);
  });
});
