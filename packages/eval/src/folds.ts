import { seededRandom, shuffle } from './rng.ts';

/** Stratified by mechanism, grouped by source item (near-duplicate wordings of one fact never straddle folds), seeded. */
export function assignFolds(items: readonly { id: string; mechanism: string; group?: string }[], k: number, seed: number): Map<string, number> {
  const random = seededRandom(seed);
  const groupFold = new Map<string, number>();
  const sizes = new Array<number>(k).fill(0);
  const byMechanism = new Map<string, Map<string, number>>();
  for (const q of items) {
    const g = q.group ?? q.id;
    const groups = byMechanism.get(q.mechanism) ?? new Map<string, number>();
    groups.set(g, (groups.get(g) ?? 0) + 1);
    byMechanism.set(q.mechanism, groups);
  }
  for (const mechanism of [...byMechanism.keys()].sort()) {
    const perFold = new Array<number>(k).fill(0);
    for (const [g, n] of shuffle([...byMechanism.get(mechanism)!.entries()].sort(), random)) {
      if (groupFold.has(g)) {
        perFold[groupFold.get(g)!]! += n;
        continue;
      }
      // The fold with the fewest of this mechanism (then fewest overall) takes the group.
      let f = 0;
      for (let i = 1; i < k; i++) if (perFold[i]! < perFold[f]! || (perFold[i] === perFold[f] && sizes[i]! < sizes[f]!)) f = i;
      groupFold.set(g, f);
      perFold[f]! += n;
      sizes[f]! += n;
    }
  }
  return new Map(items.map((q) => [q.id, groupFold.get(q.group ?? q.id)!]));
}
