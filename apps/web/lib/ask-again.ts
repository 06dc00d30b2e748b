import { askAgainQuestions, type NearMiss, type NodeEvent, nearMissSchema, type Workload } from '@sandscope/api';

/**
 * The questions a run's refusal offers to ask again (S-180): the question as asked, each slip it left as typed replaced
 * by the library's word — the engine's own `askAgainQuestions`, over the slips assess_evidence kept on its span
 * (`nearMisses`; the span keeps no question text, T-16). Shown only beside a refusal; empty for a run recorded before
 * S-180, or a question with no such slip.
 */
export function askAgainOf(question: string, events: readonly NodeEvent[]): string[] {
  const data = events.find((e) => e.node === 'assess_evidence' && e.kind === 'end')?.data;
  const kept = Array.isArray(data?.nearMisses) ? data.nearMisses : [];
  const nearMisses = kept.flatMap((n): NearMiss[] => {
    const parsed = nearMissSchema.safeParse(n);
    return parsed.success ? [parsed.data] : [];
  });
  return askAgainQuestions(question, nearMisses);
}

/** The console with a question filled in, not asked: the person reads it and asks (a preset, or a question offered again). */
export const consoleHref = (question: string, workload: Workload) => `/?${new URLSearchParams({ q: question, workload }).toString()}`;
