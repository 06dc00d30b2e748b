import { type NodeEvent, type RefusalClaim, refusalClaimSchema } from '@sandscope/api';

/**
 * What a run's refusal claims (S-108), as the node that refused recorded it on its span: assess_evidence, or
 * adjudicate after it. The last one counts, since adjudication settles what assess_evidence left open. Null when no
 * node recorded one (not refused, or a run stored before S-108, which keeps its old headline).
 */
export function refusalClaim(events: readonly NodeEvent[]): RefusalClaim | null {
  let claim: RefusalClaim | null = null;
  for (const e of events) {
    if (e.kind !== 'end' || (e.node !== 'assess_evidence' && e.node !== 'adjudicate')) continue;
    const parsed = refusalClaimSchema.safeParse(e.data?.refusal);
    if (parsed.success) claim = parsed.data;
  }
  return claim;
}
