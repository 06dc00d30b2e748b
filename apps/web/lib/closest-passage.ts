import type { NodeEvent } from '@sandscope/api';

/**
 * The passages a run's decision named as the closest, best first (assess_evidence's span keeps their ids: `closest`,
 * then `nextClosest`), or none. A refusal's reasons name the first in words; offline, most false refusals name the
 * passage that answers among these (S-106, S-172), so the page links them. A run recorded before S-172 has the first.
 */
export function closestPassages(events: readonly NodeEvent[]): string[] {
  const data = events.find((e) => e.node === 'assess_evidence' && e.kind === 'end')?.data;
  const first = data?.closest;
  if (typeof first !== 'string' || first === '') return [];
  const next = Array.isArray(data?.nextClosest) ? data.nextClosest : [];
  return [first, ...next.filter((id): id is string => typeof id === 'string' && id !== '' && id !== first)];
}
