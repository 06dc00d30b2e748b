import { describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { checkDraft, feedbackFor, numbersIn } from './citation-check.ts';

const pool: Chunk = {
  id: 'architecture-order-path#orders-db-connection-pool-ceiling',
  doc: 'architecture-order-path.md',
  docTitle: 'The Order Path',
  heading: 'orders-db connection pool ceiling',
  text: '`orders-db` accepts at most 100 connections through its pooler. Requests time out after 2,500 ms. Two regions serve traffic; restart with `svcctl restart checkout-api --max-unavailable 1`.',
};
const other: Chunk = { id: 'x#y', doc: 'x.md', docTitle: 'X', heading: 'Y', text: 'events-bus has 48 partitions.' };

describe('checkDraft (the verifier’s rule)', () => {
  it('passes claims whose numbers and identifiers stand in the passage they cite', () => {
    const v = checkDraft(
      [
        { text: 'orders-db accepts at most 100 connections.', citations: [pool.id] },
        { text: 'Requests time out after 2500 ms in 2 regions.', citations: [pool.id] },
        { text: 'Use svcctl restart checkout-api --max-unavailable 1.', citations: [pool.id] },
      ],
      [pool, other],
    );
    expect(v).toEqual({ ok: true, failures: [] });
  });

  it('fails "ceiling 200" citing a passage that says 100, and says why', () => {
    const v = checkDraft([{ text: 'The orders-db connection pool ceiling is 200.', citations: [pool.id] }], [pool]);
    expect(v.ok).toBe(false);
    expect(v.failures[0]!.claim).toBe(1);
    expect(v.failures[0]!.reasons[0]).toMatch(/states 200, which .*orders-db-connection-pool-ceiling does not state \(the numbers there: 100,/);
    expect(feedbackFor(v)[0]).toMatch(/^Claim 1 "The orders-db connection pool ceiling is 200\.": it states 200/);
  });

  it('fails a claim with no citation, and one citing a passage not given in this run', () => {
    const v = checkDraft(
      [
        { text: 'orders-db accepts 100 connections.', citations: [] },
        { text: 'orders-db accepts 100 connections.', citations: ['made-up#passage'] },
      ],
      [pool],
    );
    expect(v.failures.map((f) => f.claim)).toEqual([1, 2]);
    expect(v.failures[0]!.reasons).toEqual(['it cites no passage']);
    expect(v.failures[1]!.reasons[0]).toMatch(/cites "made-up#passage", which is not one of the passages given in this run/);
  });

  it('fails a real number about the wrong subject: an identifier the cited passage never names', () => {
    const v = checkDraft([{ text: 'events-bus accepts at most 100 connections.', citations: [pool.id] }], [pool, other]);
    expect(v.ok).toBe(false);
    expect(v.failures[0]!.reasons).toEqual([expect.stringMatching(/names events-bus, which .* never mentions/)]);
  });

  it('fails a claim that says the opposite of the sentence it restates, and passes one that agrees or quotes (S-125)', () => {
    const ceiling: Chunk = {
      ...pool,
      text: "`orders-db` accepts at most 100 connections through its pooler. The ceiling is sized to the primary's memory and is not raised during incidents. A client that needs more throughput must shorten its transactions instead.",
    };
    const reversed = checkDraft(
      [
        { text: 'The ceiling is raised during incidents to give clients more throughput.', citations: [ceiling.id] },
        { text: 'orders-db accepts at most 100 connections; the ceiling is raised during incidents.', citations: [ceiling.id] },
      ],
      [ceiling],
    );
    expect(reversed.failures.map((f) => f.claim)).toEqual([1, 2]);
    expect(reversed.failures[0]!.reasons.join(' ')).toMatch(
      /says the opposite of what .* says: “The ceiling is sized to the primary's memory and is not raised/,
    );
    const denied: Chunk = { ...pool, text: 'Restarting orders-db during an incident clears the pool.' };
    expect(checkDraft([{ text: 'Restarting orders-db during an incident never clears the pool.', citations: [denied.id] }], [denied]).ok).toBe(false);
    // Agreeing in other words, and quoting, pass.
    const agrees = checkDraft(
      [
        { text: 'The orders-db ceiling is not raised during an incident.', citations: [ceiling.id] },
        { text: 'A client that needs more throughput must shorten its transactions instead.', citations: [ceiling.id] },
        { text: 'orders-db accepts at most 100 connections.', citations: [ceiling.id] },
      ],
      [ceiling],
    );
    expect(agrees).toEqual({ ok: true, failures: [] });
  });

  it('fails an empty draft and a reply that is not a draft', () => {
    expect(checkDraft([], [pool]).ok).toBe(false);
    expect(checkDraft(null, [pool]).failures[0]!.reasons[0]).toMatch(/not a draft/);
  });

  it('reads numbers the way prose writes them', () => {
    expect(numbersIn('2,500 ms, 99.95%, 1.50 GiB, SEV1, p99, 3x, eu-west-1')).toEqual(['2500', '99.95', '1.5', '3']);
    expect(numbersIn('two regions', { words: true })).toEqual(['2']);
  });
});
