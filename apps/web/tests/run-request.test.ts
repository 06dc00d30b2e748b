import { describe, expect, it } from 'vitest';
import { isWorkload } from '@sandscope/api';
import { parseRunRequest } from '../lib/run-request';

/* The console's fields, checked before the agent sees them (lib/run-request.ts). */

describe('parseRunRequest', () => {
  it('trims the question and defaults the workload to triage', () => {
    expect(parseRunRequest({ question: '  what is the orders-db pool ceiling?  ' })).toEqual({
      ok: true,
      request: { question: 'what is the orders-db pool ceiling?', workload: 'triage' },
    });
    expect(parseRunRequest({ question: 'q', workload: '' })).toMatchObject({ ok: true, request: { workload: 'triage' } });
  });

  it('refuses an empty question, an absurd one, and an unknown workload, naming the field', () => {
    expect(parseRunRequest({ question: '   ' })).toEqual({ ok: false, code: 'invalid_request', message: 'question: type a question first.' });
    expect(parseRunRequest({ question: 42 })).toEqual({ ok: false, code: 'invalid_request', message: 'question: type a question first.' });
    expect(parseRunRequest({ question: 'q', workload: 'deploy' })).toEqual({
      ok: false,
      code: 'invalid_request',
      message: 'workload: must be one of triage, change, postmortem.',
    });
  });

  it('an absurdly long question is question_too_long, with its length and the limit — not “type a question”', () => {
    expect(parseRunRequest({ question: 'x'.repeat(8001) })).toEqual({
      ok: false,
      code: 'question_too_long',
      message: 'question: 8001 characters; the console sends at most 8000.',
    });
  });

  it('keeps provider names that could be names, once each, at most 16', () => {
    const parsed = parseRunRequest({ question: 'q', workload: 'change', failProviders: ['groq', 'groq', 'gemini', '../etc', 7, ''] });
    expect(parsed).toEqual({ ok: true, request: { question: 'q', workload: 'change', failProviders: ['groq', 'gemini'] } });
    expect(parseRunRequest({ question: 'q', failProviders: 'mistral' })).toMatchObject({ request: { failProviders: ['mistral'] } });
    const many = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const capped = parseRunRequest({ question: 'q', failProviders: many });
    expect(capped.ok && capped.request.failProviders).toHaveLength(16);
    expect(parseRunRequest({ question: 'q', failProviders: ['<b>'] })).toEqual({ ok: true, request: { question: 'q', workload: 'triage' } });
  });

  it('knows the three workloads', () => {
    expect(['triage', 'change', 'postmortem'].every(isWorkload)).toBe(true);
    expect(isWorkload('Triage')).toBe(false);
  });

  it('reads a workload as the CLI and the agent do: any case, spaces around it ignored (S-140)', () => {
    expect(parseRunRequest({ question: 'q', workload: ' Change ' })).toMatchObject({ ok: true, request: { workload: 'change' } });
    expect(parseRunRequest({ question: 'q', workload: 7 })).toMatchObject({ ok: false, code: 'invalid_request' });
  });
});
