import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { withSandscopeOptions } from './call-options.ts';
import { perMillionTokens } from './pricing.ts';
import { ProviderHealth } from './provider-health.ts';
import { AllProvidersFailedError, RouterModel, type ProviderEvent, type RouterCandidate } from './router.ts';
import { manualClock, rateLimitError, ScriptedModel, serverError, type ScriptStep } from './testing/scripted-model.ts';
import { drainStream } from './text-stream.ts';

const call: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] };
const price = perMillionTokens(1, 2);

function candidate(name: string, ...steps: ScriptStep[]): RouterCandidate & { model: ScriptedModel } {
  return { name, model: new ScriptedModel(name, steps.length ? steps : [{ kind: 'text', text: `from ${name}` }]), pricing: price };
}

function setup(candidates: RouterCandidate[], failProviders?: Set<string>) {
  const clock = manualClock();
  const health = new ProviderHealth({ clock: clock.now });
  const events: ProviderEvent[] = [];
  const router = new RouterModel({ candidates, health, ...(failProviders ? { failProviders } : {}), onEvent: (e) => events.push(e) });
  return { clock, health, events, router };
}

function textOf(result: Awaited<ReturnType<RouterModel['doGenerate']>>): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('RouterModel.doGenerate', () => {
  it('fails over on a 429 to the second provider, and the trace says so', async () => {
    const groq = candidate('groq', { kind: 'error', error: rateLimitError({ 'retry-after': '12' }) });
    const gemini = candidate('gemini');
    const { router, events, health } = setup([groq, gemini]);
    const result = await router.doGenerate(call);
    expect(textOf(result)).toBe('from gemini');
    expect(router.lastServedBy).toBe('gemini');
    expect(result.providerMetadata?.['sandscope']).toEqual({ servedBy: 'gemini' });
    expect(events.map((e) => [e.provider, e.kind, e.status])).toEqual([
      ['groq', 'rate_limited', 429],
      ['gemini', 'served', undefined],
    ]);
    expect(events[0]!.message).toMatch(/12 s/);
    expect(events[1]).toMatchObject({ usage: { inputTokens: { total: 10 }, outputTokens: { total: 5 } }, costUsd: 10e-6 + 5 * 2e-6 });
    expect(health.isCoolingDown('groq')).toBe(true);
  });

  it('honours Retry-After: skips the provider until the clock passes it, then tries it again', async () => {
    const groq = candidate('groq', { kind: 'error', error: rateLimitError({ 'retry-after': '10' }) }, { kind: 'text', text: 'groq is back' });
    const gemini = candidate('gemini');
    const { router, events, clock } = setup([groq, gemini]);
    await router.doGenerate(call);
    events.length = 0;
    clock.advance(9_999);
    expect(textOf(await router.doGenerate(call))).toBe('from gemini');
    expect(events.map((e) => [e.provider, e.kind])).toEqual([
      ['groq', 'skipped_cooldown'],
      ['gemini', 'served'],
    ]);
    expect(groq.model.calls).toHaveLength(1);
    clock.advance(1);
    expect(textOf(await router.doGenerate(call))).toBe('groq is back');
    expect(router.lastServedBy).toBe('groq');
  });

  it('caps Retry-After at 60 s by default', async () => {
    const groq = candidate('groq', { kind: 'error', error: rateLimitError({ 'retry-after': '3600' }) }, { kind: 'text', text: 'groq is back' });
    const { router, clock, events } = setup([groq, candidate('gemini')]);
    await router.doGenerate(call);
    expect(events[0]!.message).toBe('rate-limited; disabled for 60 s (it asked 3600 s; capped at 60 s, then tried again)');
    clock.advance(59_999);
    expect(textOf(await router.doGenerate(call))).toBe('from gemini');
    clock.advance(1);
    expect(textOf(await router.doGenerate(call))).toBe('groq is back');
  });

  it('cools down for 30 s when a 429 has no Retry-After', async () => {
    const groq = candidate('groq', { kind: 'error', error: rateLimitError() }, { kind: 'text', text: 'groq is back' });
    const { router, clock } = setup([groq, candidate('gemini')]);
    await router.doGenerate(call);
    clock.advance(29_999);
    expect(textOf(await router.doGenerate(call))).toBe('from gemini');
    clock.advance(1);
    expect(textOf(await router.doGenerate(call))).toBe('groq is back');
  });

  it('fails over on a 500 without disabling the provider for later calls', async () => {
    const groq = candidate('groq', { kind: 'error', error: serverError(500) }, { kind: 'text', text: 'groq ok' });
    const { router, events, health } = setup([groq, candidate('gemini')]);
    expect(textOf(await router.doGenerate(call))).toBe('from gemini');
    expect(events[0]).toMatchObject({ provider: 'groq', kind: 'failed', status: 500 });
    expect(health.isCoolingDown('groq')).toBe(false);
    expect(textOf(await router.doGenerate(call))).toBe('groq ok');
  });

  it('treats an injected failure as a provider error for this router only, never touching ProviderHealth (T-6)', async () => {
    const groq = candidate('groq');
    const { router, events, health } = setup([groq, candidate('gemini')], new Set(['groq']));
    expect(textOf(await router.doGenerate(call))).toBe('from gemini');
    expect(groq.model.calls).toHaveLength(0);
    expect(events.map((e) => [e.provider, e.kind])).toEqual([
      ['groq', 'injected_failure'],
      ['gemini', 'served'],
    ]);
    expect(health.isCoolingDown('groq')).toBe(false);
  });

  it('runs concurrently with separate routers: A injects failure of provider 1, B is still served by provider 1 (T-6)', async () => {
    const health = new ProviderHealth();
    const shared = [
      { name: 'groq', model: new ScriptedModel('groq', [{ kind: 'text', text: 'from groq', delayMs: 20 }]), pricing: price },
      { name: 'gemini', model: new ScriptedModel('gemini', [{ kind: 'text', text: 'from gemini', delayMs: 20 }]), pricing: price },
    ];
    const eventsA: ProviderEvent[] = [];
    const eventsB: ProviderEvent[] = [];
    const runA = new RouterModel({ candidates: shared, health, failProviders: new Set(['groq']), onEvent: (e) => eventsA.push(e) });
    const runB = new RouterModel({ candidates: shared, health, onEvent: (e) => eventsB.push(e) });
    const [a, b] = await Promise.all([runA.doGenerate(call), runB.doGenerate(call), runA.doGenerate(call), runB.doGenerate(call)]);
    expect(textOf(a!)).toBe('from gemini');
    expect(textOf(b!)).toBe('from groq');
    expect(runA.lastServedBy).toBe('gemini');
    expect(runB.lastServedBy).toBe('groq');
    expect(eventsB.map((e) => e.kind)).toEqual(['served', 'served']);
    expect(eventsA.filter((e) => e.kind === 'injected_failure')).toHaveLength(2);
    expect(health.isCoolingDown('groq')).toBe(false);
  });

  it('throws AllProvidersFailedError listing each failure when every candidate fails', async () => {
    const { router, health } = setup(
      [candidate('groq', { kind: 'error', error: rateLimitError() }), candidate('gemini', { kind: 'error', error: serverError(503) }), candidate('mistral')],
      new Set(['mistral']),
    );
    const error = await router.doGenerate(call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AllProvidersFailedError);
    const failures = (error as AllProvidersFailedError).failures;
    expect(failures.map((f) => [f.provider, f.kind, f.status])).toEqual([
      ['groq', 'rate_limited', 429],
      ['gemini', 'failed', 503],
      ['mistral', 'injected_failure', undefined],
    ]);
    expect((error as Error).message).toMatch(/groq rate_limited 429.*gemini failed 503.*mistral injected_failure/);
    // The next call finds groq cooling down: a skip is listed too.
    const again = (await router.doGenerate(call).catch((e: unknown) => e)) as AllProvidersFailedError;
    expect(again.failures[0]).toMatchObject({ provider: 'groq', kind: 'skipped_cooldown' });
    expect(health.isCoolingDown('gemini')).toBe(false);
  });

  it('does not fail over when the caller aborted', async () => {
    const controller = new AbortController();
    const abortError = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const groq = candidate('groq', { kind: 'error', error: abortError });
    const gemini = candidate('gemini');
    const { router } = setup([groq, gemini]);
    controller.abort();
    await expect(router.doGenerate({ ...call, abortSignal: controller.signal })).rejects.toBe(abortError);
    expect(gemini.model.calls).toHaveLength(0);
  });

  it('serves only from the providers a spend reservation covers', async () => {
    const groq = candidate('groq');
    const gemini = candidate('gemini');
    const { router, events } = setup([groq, gemini]);
    expect(textOf(await router.doGenerate(withSandscopeOptions(call, { eligible: ['gemini'] })))).toBe('from gemini');
    expect(groq.model.calls).toHaveLength(0);
    // Its own kind, not a cooldown: a reader of the trace must not look for a 429 that never happened (issue 13, item 8).
    expect(events[0]).toMatchObject({ provider: 'groq', kind: 'outside_reservation', message: "not covered by this call's spend reservation" });
    expect(gemini.model.calls[0]!.providerOptions).not.toHaveProperty('sandscope');
  });

  it('reports servable candidates: not injected, not cooling down', async () => {
    const { router } = setup([candidate('groq', { kind: 'error', error: rateLimitError() }), candidate('gemini'), candidate('mistral')], new Set(['mistral']));
    expect(router.servable().map((c) => c.name)).toEqual(['groq', 'gemini']);
    await router.doGenerate(call);
    expect(router.servable().map((c) => c.name)).toEqual(['gemini']);
  });
});

describe('RouterModel.doStream', () => {
  it('fails over when a stream errors before its first content part', async () => {
    const groq = candidate('groq', { kind: 'error-before-content', error: serverError(502) });
    const gemini = candidate('gemini');
    const { router, events } = setup([groq, gemini]);
    const { text, error, parts } = await drainStream((await router.doStream(call)).stream);
    expect(error).toBeUndefined();
    expect(text).toBe('from gemini');
    expect(router.lastServedBy).toBe('gemini');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', providerMetadata: { sandscope: { servedBy: 'gemini' } } });
    expect(events.map((e) => [e.provider, e.kind])).toEqual([
      ['groq', 'failed'],
      ['gemini', 'served'],
    ]);
  });

  it('fails over when doStream itself throws (429)', async () => {
    const { router, events } = setup([candidate('groq', { kind: 'error', error: rateLimitError({ 'retry-after': '5' }) }), candidate('gemini')]);
    expect((await drainStream((await router.doStream(call)).stream)).text).toBe('from gemini');
    expect(events[0]).toMatchObject({ provider: 'groq', kind: 'rate_limited', status: 429 });
  });

  it('does NOT fail over once the stream has produced content: the error propagates and the second provider is never called', async () => {
    const boom = new Error('connection reset mid-stream');
    const groq = candidate('groq', { kind: 'stream-then-error', deltas: ['The pool ceiling '], error: boom });
    const gemini = candidate('gemini');
    const { router, events } = setup([groq, gemini]);
    const { text, error } = await drainStream((await router.doStream(call)).stream);
    expect(text).toBe('The pool ceiling ');
    expect(error).toBe(boom);
    expect(gemini.model.calls).toHaveLength(0);
    expect(router.lastServedBy).toBe('groq');
    expect(events.map((e) => [e.provider, e.kind])).toEqual([['groq', 'failed']]);
    expect(events[0]!.message).toMatch(/after the stream started/);
  });

  it('throws AllProvidersFailedError when no stream can start', async () => {
    const { router } = setup([candidate('groq', { kind: 'error-before-content', error: serverError(500) })], new Set());
    await expect(router.doStream(call)).rejects.toBeInstanceOf(AllProvidersFailedError);
  });
});
