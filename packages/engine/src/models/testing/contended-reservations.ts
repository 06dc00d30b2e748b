import type { SpendLedger } from '../spend-ledger.ts';

/** Deterministic PRNG so a failure reproduces. */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Reserve-then-settle `count` calls at once against `ledgers` in turn, each for
 * a random amount up to `maxUsd`, settled at a random fraction of it (some in
 * full). Returns what was granted and what the settlements add up to — summed
 * by the callers, not read from the ledger, so a ledger that loses or
 * double-counts cannot hide it.
 */
export async function contendedReservations(ledgers: readonly SpendLedger[], count: number, maxUsd: number, seed: number) {
  const random = mulberry32(seed);
  let granted = 0;
  let refused = 0;
  let settledUsd = 0;
  const task = async (i: number) => {
    const ledger = ledgers[i % ledgers.length]!;
    const amount = random() * maxUsd;
    const fraction = random() < 0.5 ? 1 : random();
    await new Promise((r) => setTimeout(r, Math.floor(random() * 5)));
    const hold = await ledger.reserve(amount);
    if (!hold) {
      refused++;
      return;
    }
    granted++;
    await new Promise((r) => setTimeout(r, Math.floor(random() * 5)));
    const actual = hold.usd * fraction;
    await ledger.settle(hold, actual);
    settledUsd += Math.ceil(actual * 1e9) / 1e9;
  };
  await Promise.all(Array.from({ length: count }, (_, i) => task(i)));
  return { granted, refused, settledUsd };
}
