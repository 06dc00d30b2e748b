import { type NodeEvent, OUTCOME_WORDS, outcomeHasAnswer, outcomeWords, type RunEvent, type RunResult } from '@sandscope/engine/orchestrator';
import { OFFLINE_PROVIDER } from '@sandscope/engine/models';
import { passagesBeside } from '@sandscope/engine/passages-beside';

/** The outcome's headline as the CLI prints it: the name upper-cased, the explanation after the dash as written. */
function headline(title: string): string {
  const dash = title.indexOf(' — ');
  return dash < 0 ? title.toUpperCase() : `${title.slice(0, dash).toUpperCase()}${title.slice(dash)}`;
}

/** The passage a refusal names as the closest, as a source line names one. */
export interface ClosestPassage {
  readonly chunkId: string;
  readonly doc: string;
  readonly heading: string;
}

/**
 * The passages the run's decision named as the closest, best first (assess_evidence keeps their ids: `closest`, S-107,
 * then `nextClosest`, S-172); empty when it named none.
 */
export function closestPassagesOf(r: RunResult, chunkOf: (id: string) => Omit<ClosestPassage, 'chunkId'> | undefined): ClosestPassage[] {
  const end = r.trace.find((e): e is NodeEvent => e.type === 'node' && e.node === 'assess_evidence' && e.kind === 'end');
  const first = end?.data.closest;
  if (typeof first !== 'string' || first === '') return [];
  const next = Array.isArray(end?.data.nextClosest) ? end.data.nextClosest : [];
  return [first, ...next].flatMap((id) => {
    const c = typeof id === 'string' ? chunkOf(id) : undefined;
    return c ? [{ chunkId: id as string, doc: c.doc, heading: c.heading }] : [];
  });
}

const usd = (n: number) => `$${n.toFixed(6)}`;

/**
 * S-262: a configured provider that failed — a base URL missing /v1 (404), a key refused (401) — and the offline model
 * answered in its place: plain `ask` printed ANSWERED and nothing else, and only `--trace` showed "HTTP 404 not_found".
 * One line naming each provider that failed, with its first failure (and, where the settings are the likely cause, what
 * to check: provider-error.ts), and which model answered instead. Null when no configured provider failed.
 */
function providerFailureNote(r: RunResult): string | null {
  const failed = new Map<string, string>();
  for (const e of r.providers) {
    if (e.provider === OFFLINE_PROVIDER.name || failed.has(e.provider)) continue;
    if (e.kind === 'failed') failed.set(e.provider, `${e.provider} failed (${e.message ?? `HTTP ${e.status ?? '?'}`})`);
    else if (e.kind === 'rate_limited') failed.set(e.provider, `${e.provider} was rate-limited (${e.message ?? 'HTTP 429'})`);
  }
  if (failed.size === 0) return null;
  const served = [...new Set(r.providers.filter((e) => e.kind === 'served').map((e) => e.provider))];
  const named = served.map((p) => (p === OFFLINE_PROVIDER.name ? 'the offline model' : p));
  const instead = named.length === 0 ? 'no model answered' : `${named.join(' and ')} answered${served.some((p) => failed.has(p)) ? '' : ' instead'}`;
  return `Note: ${[...failed.values()].join('; ')}; ${instead}.`;
}

/**
 * A whole run, led by its outcome — one headline, never a verdict line and a
 * terminal line that can disagree (issue 13: an escalated run printed
 * ESCALATED then ANSWERED). Then the evidence, the answer with its footnotes
 * and sources (only when there is a verified answer), why, the proposed
 * action and its risk, and optionally the trace.
 */
export function formatRunResult(r: RunResult, options: { trace?: boolean; closest?: readonly ClosestPassage[] } = {}): string {
  const words = outcomeWords(r.outcome, r.refusal);
  const lines: string[] = [`${headline(words.title)}  [workload ${r.workload}, run ${r.runId}]`];
  // A held draft keeps the gate's flag: say it is partial, in the partial outcome's own words.
  if (r.outcome === 'awaiting_approval' && r.verdict === 'partial') lines.push(headline(OUTCOME_WORDS.partial.title));
  const score = r.score === null ? 'unscored' : `score ${r.score}`;
  lines.push(words.detail, `Evidence: band ${r.band}, ${score}${r.degraded ? ', DEGRADED: lexical only' : ''}`);
  const note = providerFailureNote(r);
  if (note) lines.push(note);
  lines.push('');
  if (outcomeHasAnswer(r.outcome)) {
    lines.push(r.answer, '', 'Sources:');
    r.sources.forEach((s, i) => lines.push(`  [${i + 1}] ${s.doc} › ${s.heading}  (${s.chunkId})`));
    lines.push('');
    // S-190: the closest passages the answer does not cite, to check it against: offline about one answer in five
    // cites a passage other than the one that answers, and looked as sure as the rest.
    const beside = new Set(
      passagesBeside(
        (options.closest ?? []).map((c) => c.chunkId),
        r.sources.map((s) => s.chunkId),
      ),
    );
    const named = (options.closest ?? []).filter((c) => beside.has(c.chunkId));
    if (named.length) {
      lines.push(`Also close to the question, not cited (if the answer is not about what you asked, read ${named.length > 1 ? 'these' : 'this'}):`);
      for (const c of named) lines.push(`  ${c.doc} › ${c.heading}  (${c.chunkId})`);
      lines.push('');
    }
  } else if (r.outcome === 'escalated') {
    lines.push(r.answer, '');
  }
  lines.push('Why:');
  for (const reason of r.reasons) lines.push(`  - ${reason}`);
  // S-152: an unsure refusal says to read the closest passage, and named it only by heading and title; the website links
  // it (S-107), the terminal gave no file to open. Named as a source is, and never as an answer; with the next most
  // likely after it (S-172), as the website lists them.
  if (r.outcome === 'refused' && r.refusal === 'unsure' && options.closest?.length) {
    const many = options.closest.length > 1;
    lines.push(
      '',
      `Read before concluding the library is silent (the closest ${many ? 'passages, most likely first; not answers' : 'passage, not an answer'}):`,
    );
    for (const c of options.closest) lines.push(`  ${c.doc} › ${c.heading}  (${c.chunkId})`);
  }
  // S-180: the question again with the library's word for each slip left as typed, to copy rather than retype.
  if (r.outcome === 'refused' && r.askAgain?.length) {
    lines.push(
      '',
      `Ask again with the library’s word (only the slip changed; ${r.askAgain.length > 1 ? 'choose the one you meant' : 'if it is what you meant'}):`,
    );
    for (const q of r.askAgain) lines.push(`  ${q}`);
  }
  if (r.outcome === 'escalated') {
    const last = r.attempts[r.attempts.length - 1];
    if (last && last.failures.length > 0) {
      lines.push('', `Last draft (attempt ${last.attempt}) failed verification:`);
      for (const f of last.failures) lines.push(`  - ${f.claim === 0 ? 'the draft' : `claim ${f.claim}`}: ${f.reasons.join('; ')}`);
    }
  }
  if (r.action) {
    lines.push('', r.outcome === 'awaiting_approval' ? 'Proposed action (NOT emitted — awaiting approval):' : 'Proposed action:');
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
    const detail =
      c.kind === 'hit'
        ? ` ${c.match} (similarity ${c.similarity.toFixed(3)})`
        : c.kind === 'bypass'
          ? c.reason === 'injected_failure'
            ? ' — providers broken for this run, so the router is met, not the cache (T-6)'
            : c.reason === 'judgement'
              ? ' — a reader’s judgement, never served from the cache'
              : ' — correction retry, never served from the cache (D-006)'
          : '';
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
    `Path: ${r.trace
      .filter((e): e is NodeEvent => e.type === 'node' && e.kind === 'end')
      .map((e) => e.node)
      .join(' → ')}`,
    `Model calls: ${r.attempts.length} (served by ${providers}) · tokens ${tokensIn} in / ${tokensOut} out · spent ${usd(r.spend.spentUsd)}${ceiling}`,
  );
  return lines.join('\n');
}
