import type { NodeEvent } from '@sandscope/api';

/**
 * The passage a run's decision named as the closest (assess_evidence's span keeps its id), or null. A refusal's reasons
 * name it in words; offline, most false refusals name the passage that answers (S-106's count), so the page links it.
 */
export function closestPassage(events: readonly NodeEvent[]): string | null {
  const id = events.find((e) => e.node === 'assess_evidence' && e.kind === 'end')?.data?.closest;
  return typeof id === 'string' && id !== '' ? id : null;
}
