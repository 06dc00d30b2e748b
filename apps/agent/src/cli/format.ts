import type { AskResult } from '@sandscope/engine';
import type { NodeEvent, RunEvent, RunResult } from '@sandscope/engine/orchestrator/index';

const VERDICT_LINE: Record<AskResult['verdict'], string> = {
  answered: 'ANSWERED',
  partial: 'PARTIAL — adjudicated from ambiguous evidence; confirm before acting',
  refused: 'REFUSED — the library does not answer this',
};

const TERMINAL_LINE: Record<RunResult['terminal'], string> = {
  emit: 'EMIT — verified; risk at or below the line',
  await_approval: 'AWAITING APPROVAL — the proposed action is above the risk line; a person must approve it (a new run)',
  escalate: 'ESCALATED — no draft could be verified against the passages; a person takes over',
  refuse: 'REFUSED — no draft was requested',
};

/** The human rendering of an ask result: answer with footnotes, sources, verdict, band and score. */
export function formatAskResult(r: AskResult): string {
  const lines: string[] = [];
  const score = r.score === null ? 'unscored' : `score ${r.score}`;
  lines.push(`${VERDICT_LINE[r.verdict]}  (band ${r.band}, ${score}${r.degraded ? ', DEGRADED: lexical only' : ''})`, '');
  if (r.verdict === 'refused') {
    lines.push('Why:');
    for (const reason of r.reasons) lines.push(`  - ${reason}`);
  } else {
    lines.push(r.answer, '', 'Sources:');
    r.sources.forEach((s, i) => lines.push(`  [${i + 1}] ${s.doc} › ${s.heading}  (${s.chunkId})`));
    lines.push('', 'Why:');
    for (const reason of r.reasons) lines.push(`  - ${reason}`);
  }
  return lines.join('\n');
}

const usd = (n: number) => `$${n.toFixed(6)}`;

/** A whole run: terminal, the ask rendering, the proposed action and its risk, and optionally the trace. */
export function formatRunResult(r: RunResult, options: { trace?: boolean } = {}): string {
  const lines: string[] = [`${TERMINAL_LINE[r.terminal]}  [workload ${r.workload}, run ${r.runId}]`];
  if (r.terminal === 'escalate') {
    const score = r.score === null ? 'unscored' : `score ${r.score}`;
    lines.push(`${VERDICT_LINE[r.verdict]}  (band ${r.band}, ${score})`, '', r.answer, '', 'Why:');
    for (const reason of r.reasons) lines.push(`  - ${reason}`);
    const last = r.attempts[r.attempts.length - 1];
    if (last && last.failures.length > 0) {
      lines.push('', `Last draft (attempt ${last.attempt}) failed verification:`);
      for (const f of last.failures) lines.push(`  - ${f.claim === 0 ? 'the draft' : `claim ${f.claim}`}: ${f.reasons.join('; ')}`);
    }
  } else {
    lines.push(formatAskResult(r));
  }
  if (r.action) {
    lines.push('', r.terminal === 'await_approval' ? 'Proposed action (NOT emitted — awaiting approval):' : 'Proposed action:');
    for (const l of r.action.split('\n')) lines.push(`  ${l}`);
  }
  if (r.risk) {
    const gated = r.risk.score > r.risk.threshold;
    lines.push('', `Risk ${r.risk.score} ${gated ? '>' : '≤'} ${r.risk.threshold}${r.risk.service ? ` (${r.risk.service})` : ''}:`);
    for (const f of r.risk.factors) lines.push(`  - ${f}`);
  }
  if (options.trace) lines.push('', formatTrace(r));
  return lines.join('\n');
}

function nodeSummary(e: NodeEvent): string {
  const d = e.data as Record<string, unknown>;
  switch (e.node) {
    case 'classify':
      return `workload ${String(d.workload)} · entities ${list(d.entities)} · services ${list(d.services)}`;
    case 'retrieve': {
      const top = (d.top as { chunkId: string; bm25: number; dense: number | null }[] | undefined) ?? [];
      const first = top[0];
      const context = (d.context as string[] | undefined) ?? [];
      return `${top.length} passages${first ? `, best ${first.chunkId} (bm25 ${first.bm25}, dense ${first.dense ?? 'n/a'})` : ''}${context.length ? ` · +${context.length} workload context` : ''}${d.degraded ? ' · DEGRADED' : ''}`;
    }
    case 'assess_evidence':
      return `band ${String(d.band)} · score ${d.score ?? 'unscored'} · coverage ${String(d.coverage)}`;
    case 'adjudicate':
      return `${String(d.decision)}${d.carrier ? ` · carrier ${String(d.carrier)}` : ''}`;
    case 'hypothesise':
      return d.error
        ? `attempt ${String(d.attempt)} · FAILED ${(d.error as { code: string }).code}`
        : `attempt ${String(d.attempt)}${d.correction ? ' (correction)' : ''} · ${String(d.provider)} · ${String(d.tokensIn)} in / ${String(d.tokensOut)} out tokens · ${usd(Number(d.costUsd ?? 0))} · cache ${d.cache ?? 'none'} · ${d.claims ?? 'no'} claims`;
    case 'verify': {
      const failing = (d.failing as { claim: number }[] | undefined) ?? [];
      return d.ok ? 'ok' : `FAILED: ${failing.map((f) => (f.claim === 0 ? 'the draft' : `claim ${f.claim}`)).join(', ')}`;
    }
    case 'propose_action':
      return `${String(d.kind)} action`;
    case 'risk_gate':
      return `risk ${String(d.score)} vs ${String(d.threshold)} → ${d.gated ? 'await_approval' : 'emit'}`;
    default:
      return `terminal ${String(d.terminal)} · verdict ${String(d.verdict)}`;
  }
}

function list(value: unknown): string {
  return Array.isArray(value) && value.length ? value.join(', ') : '—';
}

function eventLine(e: RunEvent): string | null {
  if (e.type === 'node') {
    if (e.kind === 'start') return null;
    return `${String(e.seq).padStart(3)}  ${e.node.padEnd(15)} ${`${(e.durationMs ?? 0).toFixed(1)} ms`.padStart(9)}  ${nodeSummary(e)}`;
  }
  if (e.type === 'provider') {
    const tokens = e.tokensIn !== undefined ? ` · ${e.tokensIn} in / ${e.tokensOut ?? 0} out` : '';
    const cost = e.costUsd !== undefined ? ` · ${usd(e.costUsd)}` : '';
    return `${String(e.seq).padStart(3)}    └ provider ${e.provider} ${e.kind}${e.status ? ` ${e.status}` : ''} · ${e.latencyMs} ms${tokens}${cost}${e.message ? ` · ${e.message}` : ''}`;
  }
  if (e.type === 'cache') {
    const c = e.event;
    if (c.kind === 'stored') return null;
    const detail = c.kind === 'hit' ? ` ${c.match} (similarity ${c.similarity.toFixed(3)})` : c.kind === 'bypass' ? ' — correction retry, never served from the cache (D-006)' : '';
    return `${String(e.seq).padStart(3)}    └ cache ${c.kind}${detail}`;
  }
  return null;
}

/** `--trace`: the nodes visited in order, the provider that served each model call, tokens and cost. */
export function formatTrace(r: RunResult): string {
  const lines = [`Trace (run ${r.runId}):`];
  for (const e of r.trace) {
    const line = eventLine(e);
    if (line) lines.push(line);
  }
  const served = r.attempts.filter((a) => a.provider !== null);
  const tokensIn = served.reduce((n, a) => n + a.tokensIn, 0);
  const tokensOut = served.reduce((n, a) => n + a.tokensOut, 0);
  const by = new Map<string, number>();
  for (const a of served) by.set(a.provider!, (by.get(a.provider!) ?? 0) + 1);
  const providers = [...by].map(([p, n]) => `${p} ×${n}`).join(', ') || 'none';
  const ceiling = r.spend.ceilingUsd === null ? '' : ` of ${usd(r.spend.ceilingUsd)} ceiling`;
  lines.push(
    `Path: ${r.trace.filter((e): e is NodeEvent => e.type === 'node' && e.kind === 'end').map((e) => e.node).join(' → ')}`,
    `Model calls: ${r.attempts.length} (served by ${providers}) · tokens ${tokensIn} in / ${tokensOut} out · spent ${usd(r.spend.spentUsd)}${ceiling}`,
  );
  return lines.join('\n');
}
