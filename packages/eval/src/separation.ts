/**
 * Held-out separation: the chance that an answerable question is rated above an unanswerable one (the AUC,
 * ties counting half; Mann–Whitney). It does not depend on where the bands lie, so an experiment on the
 * decision's features is judged by it before any band is fitted (`npm run eval:groups`). A question with no
 * rating (degraded, nothing retrieved) counts as rated 0: it is refused.
 */
export function separation(rows: readonly { readonly label: string; readonly answerability: number | null }[]): number {
  const ranked = rows.map((r) => ({ answerable: r.label !== 'unanswerable', p: r.answerability ?? 0 })).sort((a, b) => a.p - b.p);
  let positives = 0;
  let rankSum = 0;
  for (let i = 0; i < ranked.length; ) {
    let j = i;
    while (j < ranked.length && ranked[j]!.p === ranked[i]!.p) j++;
    for (let k = i; k < j; k++) {
      if (ranked[k]!.answerable) {
        positives++;
        rankSum += (i + j + 1) / 2;
      }
    }
    i = j;
  }
  const negatives = ranked.length - positives;
  return positives && negatives ? (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives) : Number.NaN;
}

/** The rating at or below which a question is refused when `share` of the unanswerable questions rate above it. */
export function cutAt(rows: readonly { readonly label: string; readonly answerability: number | null }[], share: number): number {
  const negatives = rows
    .filter((r) => r.label === 'unanswerable')
    .map((r) => r.answerability ?? 0)
    .sort((a, b) => b - a);
  return negatives[Math.floor(negatives.length * share)] ?? -1;
}

/**
 * False refusals at the cut where `share` of the unanswerable questions rate above it: what a line that lets
 * that share of them through would refuse of the answerable ones (FR@FA5 at 0.05). Band-free, like `separation`.
 */
export function refusalsAt(rows: readonly { readonly label: string; readonly answerability: number | null }[], share: number): number {
  const cut = cutAt(rows, share);
  const positives = rows.filter((r) => r.label !== 'unanswerable');
  return positives.filter((r) => (r.answerability ?? 0) <= cut).length / positives.length;
}

/** AUC, FR@FA5 and FR@FA10 of a set of rated rows, as the development scripts print them. */
export function separationFigures(rows: readonly { readonly label: string; readonly answerability: number | null }[]): string {
  return `AUC ${separation(rows).toFixed(4)}, FR@FA5 ${refusalsAt(rows, 0.05).toFixed(3)}, FR@FA10 ${refusalsAt(rows, 0.1).toFixed(3)}`;
}

/**
 * False refusals pooled over corpora when each corpus has its own cut letting `share` of ITS unanswerable questions
 * through — a line chosen with the held-out corpus's labels, which no deployment has. Against `refusalsAt` over the
 * same rows (one line for all) it bounds what any per-corpus recalibration of the rating could gain: if the two are
 * close, the errors are inside each corpus, not in a shift between corpora.
 */
export function refusalsAtEachCorpusCut(
  rows: readonly { readonly corpus: string; readonly label: string; readonly answerability: number | null }[],
  share: number,
): number {
  const corpora = new Map<string, (typeof rows)[number][]>();
  for (const r of rows) corpora.set(r.corpus, [...(corpora.get(r.corpus) ?? []), r]);
  let refused = 0;
  let answerable = 0;
  for (const own of corpora.values()) {
    const n = own.filter((r) => r.label !== 'unanswerable').length;
    refused += refusalsAt(own, share) * n;
    answerable += n;
  }
  return answerable ? refused / answerable : Number.NaN;
}
