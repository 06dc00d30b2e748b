'use client';

import { nodeEventSchema, providerEventSchema, runResultSchema } from '@sandscope/api';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { NodeEvent, ProviderEvent, RunResult, Workload } from '@sandscope/api';
import type { Provider } from '@sandscope/api/providers';
import { claimsFromResult } from '@/components/answer';
import { ProblemPanel } from '@/components/problem';
import { ApproveForm, RunOutcome } from '@/components/run-outcome';
import { failoverSummary, ProviderEvents, SpendSummary, Timeline } from '@/components/trace';
import { closestPassages } from '@/lib/closest-passage';
import { refusalClaim } from '@/lib/refusal-claim';
import { askAgainOf } from '@/lib/ask-again';
import { usd } from '@/lib/format';
import { type Problem, problemFromBody, problemFromStreamEvent } from '@/lib/problems';
import { consoleAddress } from '@/lib/run-address';
import { readSse, type SseMessage } from '@/lib/sse';
import { PRESETS, presetHref } from './presets';

const WORKLOAD_HELP: Record<Workload, string> = {
  triage: 'Incident triage — what is wrong and what the runbook says',
  change: 'Change review — is this change safe; risky actions stop for approval',
  postmortem: 'Postmortem — what happened before, and what was learned',
};

export interface LiveRun {
  /** The question as sent (trimmed, as /api/runs reads it): what a refusal's slips are placed in (S-180). */
  readonly asked: string;
  readonly runId: string | null;
  readonly nodes: readonly NodeEvent[];
  readonly providers: readonly ProviderEvent[];
  readonly result: RunResult | null;
  readonly problem: Problem | null;
  readonly done: boolean;
  /** The problem is the stream's `event: error`: the run failed while streaming, after the BFF answered 200. */
  readonly midStream?: boolean;
}

const EMPTY: LiveRun = { asked: '', runId: null, nodes: [], providers: [], result: null, problem: null, done: false };

/**
 * The run as one more message of its stream leaves it (the same run when the message changes nothing). Each event is
 * checked against the shared contract: a node or provider event that does not match is skipped (the trace is a view),
 * a result that does not match is a problem, never a guessed outcome. Apart from the form, and exported, so a test
 * can read a stream into it (apps/web/tests/runs-route.test.ts).
 */
export function withMessage(state: LiveRun, m: SseMessage): LiveRun {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(m.data) as Record<string, unknown>;
  } catch {
    return state;
  }
  const runId = typeof data.runId === 'string' ? data.runId : state.runId;
  if (m.event === 'node') {
    const node = nodeEventSchema.safeParse(data);
    return node.success ? { ...state, runId, nodes: [...state.nodes, node.data] } : state;
  }
  if (m.event === 'provider') {
    const provider = providerEventSchema.safeParse(data);
    return provider.success ? { ...state, runId, providers: [...state.providers, provider.data] } : state;
  }
  if (m.event === 'result') {
    const result = runResultSchema.safeParse(data);
    return result.success
      ? { ...state, runId, result: result.data }
      : { ...state, runId, problem: { code: 'bad_gateway', status: 502, detail: 'The agent’s result does not match the contract.' } };
  }
  if (m.event === 'error') {
    // Already the website's Problem, its message ending with the website's remedy: said on the server
    // (app/api/runs/route.ts, forPage), since the words that do it hold the API's remedies (T-12). Its label is the
    // Problem's own status, or none: this was problemOf(data, 500), "HTTP 500" for every failure, whatever the agent
    // said had happened — a database outage (503), a run another instance interrupted (409) (S-207).
    return { ...state, runId, problem: problemFromStreamEvent(data), midStream: true };
  }
  return state;
}

/** What the console posts to /api/runs. */
export interface RunAsk {
  readonly question: string;
  readonly workload: Workload;
  readonly failProviders: readonly string[];
}

const aborted = (error: unknown) => (error as Error | null)?.name === 'AbortError';

/**
 * One question asked through the BFF and streamed, each state of the run handed to `show` as it arrives; resolves
 * with the last. Apart from the form, and exported, so a test can run it against a stubbed fetch.
 *
 * S-241: a fetch that got no response at all (a TypeError: the website down, the connection gone) was said as
 * stream_broken "· HTTP 502", "The question was not run" beside "the run record may still be complete". The request
 * and the stream are now told apart: no response is `website_unreachable`, with no status since none came; a stream
 * that ends or breaks after the website answered is `stream_broken`, with no status either (the response was a 200,
 * and the 502 was this code's own invention).
 */
export async function streamRun(ask: RunAsk, signal: AbortSignal, show: (live: LiveRun) => void): Promise<LiveRun> {
  let state: LiveRun = { ...EMPTY, asked: ask.question.trim() };
  show(state);
  const update = (next: Partial<LiveRun>) => {
    state = { ...state, ...next };
    show(state);
  };
  let res: Response;
  try {
    res = await fetch('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(ask),
      signal,
    });
  } catch (error) {
    if (!aborted(error)) update({ problem: { code: 'website_unreachable', status: 0 }, done: true });
    return state;
  }
  try {
    if (!res.ok || !res.body) {
      let body: unknown = null;
      try {
        body = await res.json();
      } catch {
        /* not JSON: described by status */
      }
      update({ problem: problemFromBody(body, res.status), done: true });
      return state;
    }
    await readSse(res.body, (m) => {
      const next = withMessage(state, m);
      if (next !== state) update(next);
    });
    update({ done: true, ...(state.result || state.problem ? {} : { problem: { code: 'stream_broken', status: 0 } }) });
  } catch (error) {
    if (!aborted(error)) update({ problem: { code: 'stream_broken', status: 0 }, done: true });
  }
  return state;
}

/**
 * The console form. Without JavaScript it is a plain form post to /api/runs, which
 * runs the question server-side and redirects to the finished run. With
 * JavaScript, the same form streams the run here, node by node, through the BFF —
 * the browser never talks to the agent.
 */
export function ConsoleForm({
  providers,
  initialQuestion,
  initialWorkload,
  presets,
  shown,
}: {
  providers: readonly Provider[];
  initialQuestion: string;
  initialWorkload: Workload;
  /** The presets ask about the bundled library's services; another library has none of them (S-149). */
  presets: boolean;
  /** The run the address names (`/?run=<id>`), as the server read it back (S-239): shown until another is asked. */
  shown?: ReactNode;
}) {
  const [question, setQuestion] = useState(initialQuestion);
  const [workload, setWorkload] = useState<Workload>(initialWorkload);
  const [broken, setBroken] = useState<readonly string[]>([]);
  const [live, setLive] = useState<LiveRun | null>(null);
  const [running, setRunning] = useState(false);
  const [enhanced, setEnhanced] = useState(false);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => {
    setEnhanced(true);
    return () => abort.current?.abort();
  }, []);

  // S-239: the address names the run on the page once its id is known, and no other run while a new one has none yet.
  const runId = live ? live.runId : undefined;
  useEffect(() => {
    if (runId === undefined) return;
    window.history.replaceState(null, '', consoleAddress(window.location.href, runId));
  }, [runId]);

  async function ask(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // A question of spaces goes to /api/runs like any other (S-226): it was dropped here without a word, while the
    // same question without JavaScript, and the Investigations form, say "question: type a question first.".
    if (running) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    try {
      await streamRun({ question, workload, failProviders: broken }, controller.signal, setLive);
    } finally {
      setRunning(false);
    }
  }

  const toggle = (name: string) => setBroken((b) => (b.includes(name) ? b.filter((x) => x !== name) : [...b, name]));

  return (
    <>
      <form method="post" action="/api/runs" className="console-form" onSubmit={ask} data-enhanced={enhanced ? 'true' : 'false'} aria-busy={running}>
        {presets ? (
          <div className="presets">
            <span className="presets-label">Presets</span>
            {PRESETS.map((p) => (
              <a
                key={p.id}
                href={presetHref(p)}
                className="preset"
                data-preset={p.id}
                onClick={(e) => {
                  e.preventDefault();
                  setQuestion(p.question);
                  setWorkload(p.workload);
                }}
              >
                <span className="preset-label">{p.label}</span>
                <span className="preset-expect">{p.expect}</span>
              </a>
            ))}
          </div>
        ) : null}

        <label htmlFor="question" className="field-label">
          Question
        </label>
        <textarea
          id="question"
          name="question"
          // Typed right to left or left to right, the box follows the question's own direction (S-240).
          dir="auto"
          required
          rows={3}
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          // The example names the bundled library's alert; another library has no such alert (S-158).
          placeholder={
            presets
              ? 'e.g. Checkout is timing out and OrdersDbPoolSaturated is firing — what do we do?'
              : 'e.g. Name the alert that is firing, or the symptom you see — what do we do?'
          }
        />

        <div className="console-options">
          <fieldset className="workloads">
            <legend>Workload</legend>
            {(['triage', 'change', 'postmortem'] as const).map((w) => (
              <label key={w} className="radio" title={WORKLOAD_HELP[w]}>
                <input type="radio" name="workload" value={w} checked={workload === w} onChange={() => setWorkload(w)} />
                {w}
              </label>
            ))}
            <p className="hint">{WORKLOAD_HELP[workload]}</p>
          </fieldset>

          <fieldset className="break-providers">
            <legend>Break a provider for this run only</legend>
            {providers.length === 0 ? <p className="hint">No provider list from the agent.</p> : null}
            {providers.map((p, i) => (
              <label key={p.name} className="checkbox">
                <input type="checkbox" name="failProviders" value={p.name} checked={broken.includes(p.name)} onChange={() => toggle(p.name)} />
                <span className="provider-order">{i + 1}.</span> <code>{p.name}</code> <span className="muted">{p.model}</span>
              </label>
            ))}
            <p className="hint">Failover runs in this order. A broken provider fails on purpose in your run and no one else’s.</p>
          </fieldset>
        </div>

        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={running}>
            {running ? 'Running…' : 'Ask'}
          </button>
          {running ? (
            <button type="button" className="button" onClick={() => abort.current?.abort()}>
              Stop watching
            </button>
          ) : null}
        </div>
      </form>

      {live ? <LiveRunView live={live} running={running} /> : (shown ?? null)}
    </>
  );
}

/** Exported for its test (apps/web/tests/runs-route.test.ts): what the console shows of a run as it streams. */
export function LiveRunView({ live, running }: { live: LiveRun; running: boolean }) {
  const r = live.result;
  const provider = failoverSummary(live.providers);
  const tokensIn = live.providers.reduce((s, e) => s + (e.tokensIn ?? 0), 0);
  const tokensOut = live.providers.reduce((s, e) => s + (e.tokensOut ?? 0), 0);
  const cost = live.providers.reduce((s, e) => s + (e.costUsd ?? 0), 0);
  return (
    <section className="live-run" aria-live="polite" aria-label="This run" data-run-id={live.runId ?? ''} data-done={live.done ? 'true' : 'false'}>
      <header className="live-head">
        <h2>
          {running ? 'Running' : 'Run'} {live.runId ? <code className="run-id">{live.runId}</code> : null}
        </h2>
        {live.runId && live.done ? (
          <a className="button" href={`/runs/${encodeURIComponent(live.runId)}`}>
            Open the run record →
          </a>
        ) : null}
      </header>
      {live.problem ? <ProblemPanel problem={live.problem} context={problemContext(live)} /> : null}
      {r ? (
        <>
          <RunOutcome
            view={{
              runId: r.runId,
              outcome: r.outcome,
              verdict: r.verdict,
              band: r.band,
              score: r.score,
              degraded: r.degraded,
              terminal: r.terminal,
              reasons: r.reasons,
              claims: claimsFromResult(r.claims, r.sources),
              answer: r.answer,
              risk: r.risk,
              action: r.action,
              closest: closestPassages(live.nodes),
              refusal: refusalClaim(live.nodes),
              askAgain: askAgainOf(live.asked, live.nodes),
              workload: r.workload,
            }}
          />
          {r.terminal === 'await_approval' ? <ApproveForm runId={r.runId} /> : null}
        </>
      ) : null}
      {live.runId || live.nodes.length > 0 ? (
        <div className="live-grid">
          <section>
            <h3>Trace</h3>
            <Timeline events={live.nodes} live={running} />
          </section>
          <section>
            <h3>Models</h3>
            {provider ? <p className="failover">{provider}</p> : null}
            <ProviderEvents events={live.providers} />
            <p className="totals">
              tokens <code>{tokensIn}</code> in / <code>{tokensOut}</code> out · cost <code>{usd(cost)}</code>
            </p>
            {r?.spend ? <SpendSummary spend={r.spend} /> : null}
          </section>
        </div>
      ) : null}
    </section>
  );
}

/**
 * What the panel says happened. An error event mid-stream is said to be one: its Problem's status, when it has one, is
 * the error vocabulary's for its code, not the stream's (a 200); without one the panel shows no HTTP status (S-207).
 */
function problemContext(live: LiveRun): string {
  // S-241: nothing answered, so nothing is known of the run; a stream that broke before the run's id may have started it.
  if (live.problem?.code === 'website_unreachable') return 'Nothing came back from the website, so this page cannot tell whether the question reached it.';
  if (!live.midStream && !live.runId && live.problem?.code === 'stream_broken') return 'The stream broke before the run was given an id: it may have started.';
  if (!live.midStream) return live.runId ? 'The run started but did not finish.' : 'The question was not run.';
  return live.runId ? 'The run started but did not finish: it failed while streaming.' : 'The run failed while streaming, before it was given an id.';
}
