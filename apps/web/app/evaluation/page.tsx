import type { Metadata } from 'next';
import { ProblemPanel } from '@/components/problem';
import { scoreDomain, ScoreDistribution } from '@/components/score-distribution';
import type { EvalSummary, GateThresholds } from '@/lib/agent-types';
import { attempt, getEvalLatest } from '@/lib/agent';
import { percent, score as fmtScore, when } from '@/lib/format';
import { ThresholdExplorer } from './threshold-explorer';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Evaluation' };

function num(v: string | string[] | undefined): number | null {
  const n = Number(Array.isArray(v) ? v[0] : v);
  return v !== undefined && Number.isFinite(n) && n >= 0 ? n : null;
}

function Figure({ label, value, budget, note, tone }: { label: string; value: string; budget?: string; note?: string; tone?: 'good' | 'bad' | null }) {
  return (
    <div className={`figure-card ${tone ? `figure-${tone}` : ''}`}>
      <span className="figure-label">{label}</span>
      <span className="figure-value">{value}</span>
      {budget ? <span className="figure-budget">budget {budget}</span> : null}
      {note ? <span className="figure-note">{note}</span> : null}
    </div>
  );
}

export default async function EvaluationPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const latest = await attempt(getEvalLatest);
  return (
    <>
      <header className="page-head">
        <h1>Evaluation</h1>
        <p className="lede">
          How often the gate answers what it should refuse, and refuses what it could answer — measured on generated questions whose right behaviour is
          known by construction, with the thresholds scored on folds they were not tuned on.
        </p>
      </header>
      {!latest.ok ? (
        <ProblemPanel problem={latest.problem} context="The latest evaluation could not be loaded." />
      ) : latest.value === null ? (
        <div className="empty">
          <h2>No evaluation has been recorded yet</h2>
          <p>
            Produce one from the repository root with <code>npm run eval:report</code>. It generates the question set, measures every question,
            cross-validates the thresholds and records the result, which this page then shows.
          </p>
        </div>
      ) : (
        <Report summary={latest.value.summary} rows={latest.value.questions} below={num(params.below)} above={num(params.above)} />
      )}
    </>
  );
}

function Report({ summary, rows, below, above }: { summary: EvalSummary; rows: Parameters<typeof ScoreDistribution>[0]['rows']; below: number | null; above: number | null }) {
  const t: GateThresholds | undefined = summary.thresholds;
  const budgets = summary.budgets ?? { falseAnswerRate: 0.05, falseRefusalRate: 0.1 };
  const tone = (rate: number | undefined, budget: number) => (rate === undefined ? null : rate <= budget ? 'good' : 'bad');
  const heldOut = summary.mode !== 'shipped-thresholds';
  const answerable = rows.filter((r) => r.label === 'answerable').length;
  return (
    <>
      <p className="stats">
        {summary.mode ? (
          <>
            Mode <code>{summary.mode}</code> ·{' '}
          </>
        ) : null}
        <b>{summary.n ?? rows.length}</b> questions — <b>{summary.answerable ?? answerable}</b> answerable, <b>{summary.unanswerable ?? rows.length - answerable}</b>{' '}
        unanswerable
        {typeof (summary.createdAt ?? summary.generatedAt) === 'string' ? <> · recorded {when(String(summary.createdAt ?? summary.generatedAt))}</> : null}
      </p>
      <div className="figures">
        <Figure label={`false answers${heldOut ? ' (held-out)' : ''}`} value={percent(summary.falseAnswerRate)} budget={percent(budgets.falseAnswerRate, 0)} tone={tone(summary.falseAnswerRate, budgets.falseAnswerRate)} note="answered or partial on an unanswerable question" />
        <Figure label={`false refusals${heldOut ? ' (held-out)' : ''}`} value={percent(summary.falseRefusalRate)} budget={percent(budgets.falseRefusalRate, 0)} tone={tone(summary.falseRefusalRate, budgets.falseRefusalRate)} note="refused an answerable question" />
        <Figure label="deferred" value={percent(summary.deferralRate)} note="landed in the ambiguous band — the system’s biggest weakness, published" />
        <Figure label="partial after adjudication" value={percent(summary.partialRate)} note="of the deferred, let through flagged" />
        <Figure label="passage MRR" value={summary.mrr === undefined ? '—' : summary.mrr.toFixed(3)} note={`recall@6 ${percent(summary.recallAt6)}`} />
      </div>
      {summary.inSample ? (
        <p className="muted">
          For contrast only — the shipped thresholds scored on the very set they were fitted on: false answers {percent(summary.inSample.falseAnswerRate)}, false
          refusals {percent(summary.inSample.falseRefusalRate)}. That is a memory of the set, not a measurement; the figures above are the measurement.
        </p>
      ) : null}
      {summary.thresholdsWorkable === false ? (
        <p className="notice notice-bad">No thresholds met both budgets on the whole set: the shipped values are the least-bad fit (the smallest budget violation), not a fit that meets them.</p>
      ) : null}
      {summary.noWorkableBandFolds ? <p className="notice notice-warn">{summary.noWorkableBandFolds} fold(s) could find no workable band at all.</p> : null}

      {t ? (
        <>
          <h2>Score distributions</h2>
          <p>
            Thresholds that ship: refuse below <code>{fmtScore(t.insufficientBelow)}</code>, answer from <code>{fmtScore(t.sufficientAbove)}</code>; term
            coverage under <code>{fmtScore(t.minTermCoverage)}</code> refuses before scoring; adjudication needs one passage to carry{' '}
            <code>{fmtScore(t.minConcentration)}</code> of the question’s weight.
          </p>
          <div className="figure-scroll">
            <ScoreDistribution rows={rows} thresholds={t} />
          </div>
          <ThresholdExplorer
            rows={rows}
            shipped={t}
            max={Math.ceil(scoreDomain(rows, t))}
            initialBelow={below ?? t.insufficientBelow}
            initialAbove={above ?? t.sufficientAbove}
          />
        </>
      ) : (
        <p className="notice notice-warn">This report carries no thresholds, so the distribution cannot be drawn against them.</p>
      )}

      {summary.byMechanism ? (
        <>
          <h2>By mechanism</h2>
          <div className="table-scroll">
            <table className="mechanisms">
              <thead>
                <tr>
                  <th>mechanism</th>
                  <th>label</th>
                  <th className="num">n</th>
                  <th className="num">answered</th>
                  <th className="num">partial</th>
                  <th className="num">refused</th>
                  <th className="num">ambiguous band</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(summary.byMechanism)
                  .sort((a, b) => b[1].n - a[1].n)
                  .map(([m, r]) => (
                    <tr key={m}>
                      <td>{m.replace(/_/g, ' ')}</td>
                      <td>
                        <span className={`tag ${r.label === 'answerable' ? 'tag-answered' : 'tag-refused'}`}>{r.label}</span>
                      </td>
                      <td className="num">{r.n}</td>
                      <td className={`num ${r.label === 'unanswerable' && r.answered > 0 ? 'worse' : ''}`}>{r.answered}</td>
                      <td className={`num ${r.label === 'unanswerable' && r.partial > 0 ? 'worse' : ''}`}>{r.partial}</td>
                      <td className={`num ${r.label === 'answerable' && r.refused > 0 ? 'worse' : ''}`}>{r.refused}</td>
                      <td className="num">{r.ambiguous}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </>
  );
}
