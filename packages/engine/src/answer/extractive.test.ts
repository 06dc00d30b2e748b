import { describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { draftExtractive } from './extractive.ts';

const passage: Chunk = {
  id: 'runbook#confirm',
  doc: 'runbook.md',
  docTitle: 'Runbook',
  heading: 'Confirm the pool is saturated',
  text: 'The pool ceiling is 100 connections. Check pool wait time on the client dashboards. Saturation means every connection is busy.',
};

describe('extractive answerer', () => {
  it('cites every claim to the passage it was taken from, verbatim', () => {
    const claims = draftExtractive('What is the pool ceiling?', [passage]);
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) {
      expect(c.citations).toEqual(['runbook#confirm']);
      expect(passage.text).toContain(c.text);
    }
    expect(claims[0]!.text).toBe('The pool ceiling is 100 connections.');
  });

  it('drops a claim named in verifier feedback, in the verifier’s own format (D-005)', () => {
    const feedback = ['Claim 1 "The pool ceiling is 100 connections.": the number 100 does not stand in the cited passage. Fix it from the passage or drop it.'];
    const claims = draftExtractive('What is the pool ceiling?', [passage], { feedback });
    expect(claims.map((c) => c.text)).not.toContain('The pool ceiling is 100 connections.');
  });
});
