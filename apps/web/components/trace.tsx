import type { ReactNode } from 'react';
import type { NodeEvent, ProviderEvent, ProviderEventKind, Spend } from '@sandscope/api';
import { ms, score as fmtScore, tokens as fmtTokens, usd, when } from '@/lib/format';

/** One node's run: its start and end events paired. */
export interface NodeStep {
  readonly key: string;
  readonly node: string;
  readonly seq: number;
  readonly startedAt: string | null;
  readonly ended: boolean;
  readonly durationMs: number | null;
  readonly data: Record<string, unknown>;
}

/** Pair start/end events per node in order; an end without a start still shows. */
export function stepsOf(events: readonly NodeEvent[]): NodeStep[] {
  const steps: (NodeStep & { data: Record<string, unknown> })[] = [];
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  for (const e of ordered) {
    const data = e.data && typeof e.data === 'object' ? e.data : {};
    if (e.kind === 'start') {
      steps.push({ key: `${e.seq}`, node: e.node, seq: e.seq, startedAt: e.at, ended: false, durationMs: null, data: { ...data } });
      continue;
    }
    let open = -1;
    for (let i = steps.length - 1; i >= 0; i--)
      if (steps[i]!.node === e.node && !steps[i]!.ended) {
        open = i;
        break;
      }
    if (open < 0) {
      steps.push({ key: `${e.seq}`, node: e.node, seq: e.seq, startedAt: e.at, ended: true, durationMs: e.durationMs ?? null, data: { ...data } });
    } else {
      const s = steps[open]!;
      steps[open] = { ...s, ended: true, durationMs: e.durationMs ?? null, data: { ...s.data, ...data } };
    }
  }
  return steps;
}

const LABELS: Record<string, string> = {
  band: 'band',
  score: 'score',
  // the evidence gate's, which a later terminal can overrule: the run's outcome is the banner above
  verdict: 'gate verdict',
  terminal: 'terminal',
  provider: 'provider',
  model: 'model',
  tokensIn: 'tokens in',
  tokensOut: 'tokens out',
  costUsd: 'cost',
  coverage: 'term coverage',
  attempt: 'attempt',
  degraded: 'degraded',
  workload: 'workload',
  cached: 'cache',
};

function primitive(key: string, value: unknown): ReactNode {
  if (typeof value === 'number') {
    if (/usd$/i.test(key) || key === 'cost') return usd(value);
    if (/Ms$/.test(key)) return ms(value);
    if (/^tokens/i.test(key)) return fmtTokens(value);
    return fmtScore(value);
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (key === 'band' || key === 'verdict') return <b className={`band band-${String(value)} tag-${String(value)}`}>{String(value)}</b>;
  // A sha-256 (the semantic cache's entry, S-132) is 64 characters no one reads: its head, the whole in the tooltip.
  if (key === 'cacheKey' && typeof value === 'string' && value.length > 12) return <span title={value}>{value.slice(0, 12)}…</span>;
  return String(value);
}

/** `tokensIn` → `tokens in`: a readable label for a field the agent may add later. */
function labelOf(key: string): string {
  return (
    LABELS[key] ??
    key
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/[_-]+/g, ' ')
      .toLowerCase()
  );
}

const isPrimitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * The facts a node reported: scalars as a compact list (known ones first, in a
 * fixed order), reasons as a list, anything structured behind a disclosure.
 */
export function NodeFacts({ data }: { data: Record<string, unknown> }) {
  const entries = Object.entries(data).filter(([, v]) => v !== null && v !== undefined && v !== '');
  if (entries.length === 0) return null;
  const order = Object.keys(LABELS);
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  const scalars = entries.filter(([, v]) => isPrimitive(v)).sort((a, b) => rank(a[0]) - rank(b[0]));
  const lists = entries.filter(([, v]) => Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length > 0) as [string, string[]][];
  const rest = entries.filter(([k, v]) => !isPrimitive(v) && !lists.some(([lk]) => lk === k) && !(Array.isArray(v) && v.length === 0));
  return (
    <div className="facts">
      {scalars.length > 0 ? (
        <dl className="facts-known">
          {scalars.map(([k, v]) => (
            <div key={k}>
              <dt>{labelOf(k)}</dt>
              <dd>{primitive(k, v)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {lists.map(([k, items]) => (
        <div key={k} className="fact-list">
          {k !== 'reasons' ? <span className="fact-list-label">{labelOf(k)}</span> : null}
          <ul className="reasons">
            {items.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </div>
      ))}
      {rest.length > 0 ? (
        <details className="raw">
          <summary>{rest.map(([k]) => labelOf(k)).join(', ')}</summary>
          <pre>{JSON.stringify(Object.fromEntries(rest), null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}

/** The trace as a timeline, node by node, with what each node decided. */
export function Timeline({ events, live = false }: { events: readonly NodeEvent[]; live?: boolean }) {
  const steps = stepsOf(events);
  if (steps.length === 0) return <p className="muted">{live ? 'Waiting for the first node…' : 'No spans were recorded for this run.'}</p>;
  return (
    <ol className="timeline" aria-label="Trace">
      {steps.map((s) => (
        <li key={s.key} className={`step ${s.ended ? 'step-done' : 'step-running'}`} data-node={s.node}>
          <div className="step-head">
            <code className="step-node">{s.node}</code>
            <span className="step-time">{s.ended ? ms(s.durationMs) : live ? 'running…' : 'did not finish'}</span>
            {s.startedAt ? <span className="step-at">{when(s.startedAt).slice(11)}</span> : null}
          </div>
          <NodeFacts data={s.data} />
        </li>
      ))}
    </ol>
  );
}

/** Every kind the contract has, worded: a new kind is a compile error here until it has words. */
const PROVIDER_KIND: Record<ProviderEventKind, string> = {
  served: 'served',
  failed: 'failed',
  rate_limited: 'rate limited',
  skipped_cooldown: 'skipped (cooling down)',
  outside_reservation: 'skipped (not covered by the spend reservation)',
  injected_failure: 'broken for this run',
};

export function ProviderEvents({ events }: { events: readonly ProviderEvent[] }) {
  if (events.length === 0) return <p className="muted">No model calls: the run stopped before drafting, or its draft came from the cache.</p>;
  const anyStatus = events.some((e) => e.status !== undefined);
  return (
    <div className="table-scroll">
      <table className="provider-events" aria-label="Provider events">
        <thead>
          <tr>
            <th>#</th>
            <th>provider</th>
            <th>outcome</th>
            {anyStatus ? <th>status</th> : null}
            <th className="num">latency</th>
            <th className="num">tokens in / out</th>
            <th className="num">cost</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e, i) => (
            <tr key={i} data-provider={e.provider} data-kind={e.kind}>
              <td className="num">{i + 1}</td>
              <td>
                <code>{e.provider}</code>
              </td>
              <td>
                <span className={`tag tag-provider-${e.kind}`}>{PROVIDER_KIND[e.kind] ?? e.kind}</span>
                {e.message ? <div className="message">{e.message}</div> : null}
              </td>
              {anyStatus ? <td>{e.status ?? '—'}</td> : null}
              <td className="num">{ms(e.latencyMs)}</td>
              <td className="num">
                {e.tokensIn === undefined && e.tokensOut === undefined && e.tokens !== undefined ? (
                  <span title="total; the stored event does not split in and out">{fmtTokens(e.tokens)} total</span>
                ) : (
                  <>
                    {fmtTokens(e.tokensIn)} / {fmtTokens(e.tokensOut)}
                  </>
                )}
              </td>
              <td className="num">{usd(e.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Which provider served, after which failed: the failover in one line. */
export function failoverSummary(events: readonly ProviderEvent[]): string | null {
  const served = events.find((e) => e.kind === 'served');
  const before = events.filter((e) => e.kind !== 'served' && (!served || events.indexOf(e) < events.indexOf(served)));
  if (!served && before.length === 0) return null;
  const skipped = before.map((e) => `${e.provider} (${PROVIDER_KIND[e.kind] ?? e.kind})`).join(', ');
  if (!served) return `No provider served: ${skipped}.`;
  return before.length ? `Served by ${served.provider} after ${skipped}.` : `Served by ${served.provider}.`;
}

export function SpendSummary({ spend }: { spend: Spend | null | undefined }) {
  if (!spend) return <p className="muted">No spend recorded.</p>;
  const share = spend.ceilingUsd > 0 ? Math.min(1, spend.spentUsd / spend.ceilingUsd) : 0;
  return (
    <div className="spend">
      <dl className="facts-known">
        <div>
          <dt>spent</dt>
          <dd>{usd(spend.spentUsd)}</dd>
        </div>
        <div>
          <dt>reserved</dt>
          <dd>{usd(spend.reservedUsd)}</dd>
        </div>
        <div>
          <dt>ceiling</dt>
          <dd>{usd(spend.ceilingUsd)}</dd>
        </div>
      </dl>
      <div className="meter" role="img" aria-label={`Spent ${usd(spend.spentUsd)} of a ${usd(spend.ceilingUsd)} ceiling`}>
        <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      {spend.ledger && spend.ledger.length > 0 ? (
        <details className="raw">
          <summary>
            Ledger ({spend.ledger.length} {spend.ledger.length === 1 ? 'entry' : 'entries'})
          </summary>
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  {Object.keys(spend.ledger[0]!).map((k) => (
                    <th key={k}>{k}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {spend.ledger.map((row, i) => (
                  <tr key={i}>
                    {Object.keys(spend.ledger![0]!).map((k) => (
                      <td key={k}>
                        {typeof row[k] === 'number' && /usd/i.test(k)
                          ? usd(row[k] as number)
                          : typeof row[k] === 'object'
                            ? JSON.stringify(row[k])
                            : String(row[k] ?? '')}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ) : null}
    </div>
  );
}
