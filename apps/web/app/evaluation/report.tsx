import type { ReactNode } from 'react';
import { fmtBand } from '../../components/answerability-distribution';
import type { EvalTargets } from '@sandscope/api/evaluation';
import { ms, percent, when } from '../../lib/format';
import { BandExplorer } from './band-explorer';
import { againstTarget, againstTargetEverywhere, type CorpusRow, type Figures, type ReaderGroupRow, type ReportView, TARGET_DIRECTION } from './report-view';

/*
 * The evaluation report, rendered from the page's one reading of it (report-view.ts).
 * Relative imports, not `@/`: the unit tests render this under the root vitest
 * config, which has no alias.
 */

const RATE_LABEL: Record<keyof EvalTargets, { label: string; note: string }> = {
  falseAnswerRate: { label: 'false answers', note: 'answered or partial on an unanswerable question' },
  falseRefusalRate: { label: 'false refusals', note: 'refused an answerable question' },
  deferralRate: { label: 'deferral', note: 'landed in the ambiguous band, where adjudication decides' },
  rightSourceRate: { label: 'right source', note: 'answered answerable questions citing their labelled passage' },
};
const RATE_KEYS = Object.keys(RATE_LABEL) as (keyof EvalTargets)[];

/** One rate against its target, the verdict in words ("met" / "missed"), not only in colour. */
function TargetFigure({
  rate,
  figures,
  targets,
  qualifier,
  noAmbiguousBand,
  corpora = [],
}: {
  rate: keyof EvalTargets;
  figures: Figures;
  targets: EvalTargets;
  qualifier?: string;
  noAmbiguousBand?: boolean;
  corpora?: readonly Figures[];
}) {
  const value = figures[rate];
  const { verdict, over } = againstTargetEverywhere(rate, value, corpora, targets[rate]);
  const sign = TARGET_DIRECTION[rate] === 'at most' ? '≤' : '≥';
  return (
    <div className={`figure-card ${verdict === 'met' ? 'figure-good' : verdict === 'missed' ? 'figure-bad' : ''}`} data-rate={rate} data-verdict={verdict}>
      <span className="figure-label">
        {RATE_LABEL[rate].label}
        {qualifier ? ` (${qualifier})` : ''}
      </span>
      <span className="figure-value">{percent(value)}</span>
      <span className="figure-budget">
        target {sign} {percent(targets[rate])} — <b>{verdict === 'met' ? 'met' : verdict === 'missed' ? 'missed' : 'not measured'}</b>
        {over > 0 ? ` (on ${over} of ${corpora.length} held-out sets)` : null}
      </span>
      <span className="figure-note">
        {rate === 'deferralRate' && noAmbiguousBand
          ? 'met only trivially: no band pair met both budgets, the fitted bands coincide and there is no ambiguous band'
          : RATE_LABEL[rate].note}
      </span>
    </div>
  );
}

/** "Meets 1 of 4 targets: missed false answers, …" — the headline's verdict as a sentence. */
function targetSentence(figures: Figures, targets: EvalTargets, corpora: readonly Figures[] = []): string {
  const verdicts = RATE_KEYS.map((k) => ({ k, v: againstTargetEverywhere(k, figures[k], corpora, targets[k]).verdict }));
  const measured = verdicts.filter((x) => x.v !== 'not measured');
  const met = measured.filter((x) => x.v === 'met');
  const missed = measured.filter((x) => x.v === 'missed').map((x) => RATE_LABEL[x.k].label);
  if (!measured.length) return 'This report measures none of the targets.';
  return `Meets ${met.length} of ${measured.length} targets${missed.length ? `; missed: ${missed.join(', ')}` : ''}.`;
}

const HEADLINE: Record<string, { title: string; qualifier: string; explain: string }> = {
  'leave-one-corpus-out': {
    title: 'Leave-one-corpus-out (the headline)',
    qualifier: 'held out',
    explain:
      'Each hand-written corpus is scored by an answerability model — weights and bands — trained without it (the generated set always in training). Questions people typed, on corpora its training never saw: this is the measurement.',
  },
  'cross-validated': {
    title: 'Cross-validated on one question set',
    qualifier: 'held out',
    explain:
      'This report has no leave-one-corpus-out figure: each fold is scored by a model trained on the other folds of the same set. On generated questions that is an upper bound.',
  },
  'shipped-model': {
    title: 'Scored with the shipped model',
    qualifier: 'nothing tuned on it',
    explain: 'One set scored with the model that ships, nothing fitted on it.',
  },
};

/** The whole report: the held-out headline first, then the generated set (an upper bound), then the band explorer. */
export function Report({ view, below, above }: { view: ReportView; below: number | null; above: number | null }) {
  const p = view.pooled;
  const head = (view.mode && HEADLINE[view.mode]) || {
    title: 'Figures',
    qualifier: '',
    explain: 'The report does not say how these figures were measured (it predates the mode field).',
  };
  const g = view.generated;
  const initial = view.bands ? { insufficientBelow: below ?? view.bands.insufficientBelow, sufficientAbove: above ?? view.bands.sufficientAbove } : null;
  const drawable = view.rows.length - view.unscored > 0;
  return (
    <>
      <p className="stats">
        {view.mode ? (
          <>
            Mode <code>{view.mode}</code> ·{' '}
          </>
        ) : null}
        <b>{p.n ?? view.rows.length}</b> questions
        {p.answerable !== undefined && p.unanswerable !== undefined ? (
          <>
            {' '}
            — <b>{p.answerable}</b> answerable, <b>{p.unanswerable}</b> unanswerable
          </>
        ) : null}
        {view.recordedAt ? <> · recorded {when(view.recordedAt)}</> : null}
      </p>
      {view.legacy ? (
        <p className="notice notice-warn" data-testid="legacy-report">
          This report predates the answerability model: it carries thresholds on the old product score, not bands on the answerability probability. Its figures
          are shown as recorded; the distribution and the band explorer need a newer report — run <code>npm run eval:report</code>.
        </p>
      ) : null}

      <section id="headline">
        <h2>{head.title}</h2>
        <p>{head.explain}</p>
        <p data-testid="target-summary">
          <b>{targetSentence(p, view.targets, view.corpora)}</b>
        </p>
        <div className="figures">
          {RATE_KEYS.map((k) => (
            <TargetFigure
              key={k}
              rate={k}
              figures={p}
              targets={view.targets}
              qualifier={head.qualifier}
              corpora={view.corpora}
              noAmbiguousBand={view.corpora.length > 0 && view.corpora.every((c) => c.bands && c.bands.insufficientBelow === c.bands.sufficientAbove)}
            />
          ))}
        </div>
        <p className="muted">
          Also: of the deferred, {percent(p.partialRate)} let through as partial after adjudication; {p.wrongSourceAnswers ?? '—'} answers cited a passage other
          than the labelled one
          {p.wrongSourceNamingLabelled !== undefined ? (
            // S-190: counted, never credited.
            <span data-testid="beside-naming"> ({p.wrongSourceNamingLabelled} of them named it among the passages shown beside the answer)</span>
          ) : null}
          ;{' '}
          {p.procedureAnswers
            ? `${percent(p.stepsCoveredRate)} of ${p.procedureAnswers} procedure answers kept every step`
            : 'no procedure answer to check for steps'}
          ; passage MRR {p.mrr === undefined ? '—' : p.mrr.toFixed(3)}, recall@6 {percent(p.recallAt6)}.
        </p>
        {view.sourceAudit ? (
          // S-186: a wrong-source answer is mostly an answer that does not answer, which no false-answer rate counts.
          <p data-testid="source-audit">
            Of the <b>{view.sourceAudit.given}</b> answers given, <b>{view.sourceAudit.notAnswering}</b> (
            {percent(view.sourceAudit.notAnswering / view.sourceAudit.given)}) do not answer the question asked: {view.sourceAudit.falseAnswers} false answers
            to unanswerable questions, and {view.sourceAudit.wrongSourceNotAnswering} answers to answerable ones from a cited passage a blind reader judged not
            to answer it
            {view.sourceAudit.partly ? `; ${view.sourceAudit.partly} more answer it only in part` : ''}. The reader judged {view.sourceAudit.judged} of the{' '}
            {view.sourceAudit.wrong} wrong-source answers, each beside its labelled passage in a hidden order: the cited passage answered in{' '}
            {view.sourceAudit.citedAnswers}, the labelled one, the control, in {view.sourceAudit.labelledAnswers} (<code>npm run -s eval:source-audit</code>).
          </p>
        ) : null}
        {view.typed ? (
          // S-177: the hand-written questions are typed with care; this is what one slip of the keys in each costs.
          <p className="muted" data-testid="typed">
            Typed the way people type — the same {view.typed.n ?? '—'} questions with one slip of the keys each
            {view.typed.seed !== undefined ? (
              <>
                {' '}
                (<code>npm run -s eval:typos -- DIR OUT --seed {view.typed.seed}</code>)
              </>
            ) : null}
            , each scored by its corpus’s held-out model: false answers <b>{percent(view.typed.falseAnswerRate)}</b> (clean {percent(p.falseAnswerRate)}), false
            refusals <b>{percent(view.typed.falseRefusalRate)}</b> (clean {percent(p.falseRefusalRate)}), right source{' '}
            <b>{percent(view.typed.rightSourceRate)}</b> (clean {percent(p.rightSourceRate)}).
          </p>
        ) : null}
        {view.typed?.askedAgain ? (
          // S-180: a refusal that left the slip as typed offers the question again with the library's word for it.
          <p className="muted" data-testid="asked-again">
            A refusal that left the slip as typed offers the question again with the library’s word for it: <b>{view.typed.askedAgain.offered}</b> typed
            refusals did. Asked again with the first question offered, by the same held-out model, <b>{view.typed.askedAgain.answered}</b> of the{' '}
            {view.typed.askedAgain.answerable} answerable were answered ({view.typed.askedAgain.rightSource} citing the labelled passage;{' '}
            {view.typed.askedAgain.cleanAnswered} are answered as written without the slip), and <b>{view.typed.askedAgain.falseAnswers}</b> of the{' '}
            {view.typed.askedAgain.unanswerable} unanswerable ({view.typed.askedAgain.cleanFalseAnswers} as written).
          </p>
        ) : null}
        {p.refusalsClaimingAbsent !== undefined && p.answerableClaimedAbsent !== undefined ? (
          // S-108: what the refusals claimed, the figure behind each refusal's headline.
          <p className="muted" data-testid="refusal-claims">
            {p.refusalsClaimingAbsent === 0 ? (
              // S-244: with no claim of absence to count, "0 refusals …, 0 of them" read as a figure about nothing.
              <>
                What a refusal claims: <b>none</b> of the refusals said the library does not answer the question (offline a refusal says so only where nothing
                in the library matched, never on the model’s rating alone); each said the model was unsure or rated no passage likely (or that the library
                disagrees with itself) and named the passage to read
              </>
            ) : (
              <>
                What a refusal claims: <b>{p.refusalsClaimingAbsent}</b> refusals said the library does not answer the question,{' '}
                <b>{p.answerableClaimedAbsent}</b> of them of answerable questions, where that was false; the others said the model was unsure or rated no
                passage likely (or that the library disagrees with itself) and named the passage to read
              </>
            )}
            {p.refusalsNamingLabelled !== undefined ? (
              <>
                , and <b>{p.refusalsNamingLabelled}</b> false refusals named the labelled passage as that passage
              </>
            ) : null}
            .
          </p>
        ) : null}
        {view.adjudicated ? (
          <p data-testid="adjudicated">
            With an LLM adjudicator (<code>ADJUDICATOR=model</code>), each corpus under its own fold’s adjudicated bands: the bands alone answer falsely{' '}
            <b>{percent(view.adjudicated.falseAnswerRate)}</b> of unanswerable questions and refuse <b>{percent(view.adjudicated.falseRefusalRate)}</b> of
            answerable ones, and leave <b>{percent(view.adjudicated.deferralRate)}</b> to the adjudicator ({view.adjudicated.deferredAnswerable} answerable,{' '}
            {view.adjudicated.deferredUnanswerable} unanswerable; deferral target ≤ {percent(view.targets.deferralRate)}).{' '}
            {view.replayedReader ? (
              <>
                How well an LLM judges those is measured below with an LLM’s recorded judgements, not in this record:{' '}
                <a href="#replayed-reader">with a reader in the ambiguous band</a>.
              </>
            ) : (
              'How well an LLM judges those is not measured here: no model runs in the evaluation.'
            )}{' '}
            With a provider configured, <code>sandscope eval --questions FILE --adjudicator model</code> measures it on your own questions.
          </p>
        ) : null}
        {view.corpora.length ? (
          <CorpusTable corpora={view.corpora} pooled={p} folds={view.mode === 'cross-validated'} />
        ) : view.mode === 'leave-one-corpus-out' ? null : (
          <p className="muted">This report has no per-corpus figures.</p>
        )}
        {view.excluded.length ? <p className="muted">Left out of this report on purpose: {view.excluded.join(', ')}.</p> : null}
      </section>

      {view.replayedReader ? <ReplayedReaderSection reader={view.replayedReader} targets={view.targets} /> : null}

      <section id="generated">
        <h2>Generated set — the second figure, an upper bound</h2>
        {g ? (
          <>
            <p>
              {g.folds ? `${g.folds}-fold cross-validation` : 'Cross-validation'} of the same training procedure on the generated questions alone ({g.n ?? '—'}{' '}
              questions). They are worded by templates from each corpus’s own vocabulary, so they flatter the model: read this as an <b>upper bound</b> on how
              it does with questions people type, never as the measurement. {targetSentence(g, view.targets)}
            </p>
            <div className="figures">
              {RATE_KEYS.map((k) => (
                <TargetFigure key={k} rate={k} figures={g} targets={view.targets} qualifier="upper bound" />
              ))}
            </div>
          </>
        ) : (
          <p className="muted">This report has no generated-set figure.</p>
        )}
      </section>

      <section id="distribution">
        <h2>Answerability distribution and the band explorer</h2>
        {view.bands && initial && drawable ? (
          <>
            <p>
              {view.mode === 'cross-validated' ? 'The bands refitted on the whole set' : 'The bands that ship'}: refuse below{' '}
              <code>{fmtBand(view.bands.insufficientBelow)}</code>, answer from <code>{fmtBand(view.bands.sufficientAbove)}</code> on the model’s answerability
              probability; between them the ambiguous band, where adjudication lets an answer through flagged partial only when one passage carries it. Each
              question’s answerability below is from the model that scored it, trained without its corpus.
            </p>
            <BandExplorer rows={view.rows} reportBands={view.bands} initial={initial} perCorpusBands={view.mode === 'leave-one-corpus-out'} />
          </>
        ) : (
          <p className="notice notice-warn" data-testid="no-distribution">
            {!view.bands
              ? 'This report carries no answerability bands, so the distribution cannot be drawn against them.'
              : 'This report carries no question with an answerability, so there is nothing to draw.'}{' '}
            Run <code>npm run eval:report</code> for a report that does.
          </p>
        )}
        {view.unreadable > 0 ? <p className="muted">{view.unreadable} question rows had no readable band or verdict and are left out.</p> : null}
      </section>

      {view.byMechanism.length ? (
        <section id="mechanisms">
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
                {view.byMechanism.map((r) => (
                  <tr key={r.mechanism}>
                    <td>{r.mechanism.replace(/[_-]/g, ' ')}</td>
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
        </section>
      ) : null}

      <section id="evidence-errors">
        <h2>Evidence errors</h2>
        {view.evidenceErrors.length ? (
          <>
            <p>Questions whose labelled evidence names no passage; they are reported here and not scored (never silently counted as 0):</p>
            <ul>
              {view.evidenceErrors.map((e, i) => (
                <li key={`${e.corpus}-${e.id}-${i}`}>
                  <code>
                    {e.corpus} {e.id}
                  </code>
                  : {e.message}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p className="muted">None recorded: every answerable question’s evidence matched a passage.</p>
        )}
      </section>

      {view.askP50Ms !== undefined ? (
        <p className="muted">
          <code>ask</code> in-process on the shipped corpus: p50 {ms(view.askP50Ms)} (target ≤ 5 ms, <b>{view.askP50Ms <= 5 ? 'met' : 'missed'}</b>).
        </p>
      ) : null}
    </>
  );
}

function CorpusTable({ corpora, pooled, folds }: { corpora: readonly CorpusRow[]; pooled: Figures; folds: boolean }) {
  const qs = (f: Figures) => (
    <>
      {f.n ?? '—'}
      {f.answerable !== undefined && f.unanswerable !== undefined ? (
        <span className="muted">
          {' '}
          ({f.answerable}/{f.unanswerable})
        </span>
      ) : null}
    </>
  );
  return (
    <div className="table-scroll">
      <table className="corpora" data-testid="corpus-table">
        <thead>
          <tr>
            <th>{folds ? 'fold' : 'held-out corpus'}</th>
            <th className="num">questions (answerable/unanswerable)</th>
            <th className="num">false answers</th>
            <th className="num">false refusals</th>
            <th className="num">deferral</th>
            <th className="num">right source</th>
            {folds ? null : <th>status</th>}
            <th>bands (refuse below / answer from)</th>
          </tr>
        </thead>
        <tbody>
          {corpora.map((c) => (
            <tr key={c.name} data-corpus={c.name}>
              <td className="nowrap">{c.name}</td>
              <td className="num">{qs(c)}</td>
              <td className="num">{percent(c.falseAnswerRate)}</td>
              <td className="num">{percent(c.falseRefusalRate)}</td>
              <td className="num">{percent(c.deferralRate)}</td>
              <td className="num">{percent(c.rightSourceRate)}</td>
              {folds ? null : (
                <td data-status={c.status}>
                  {c.statusText ? (
                    <details>
                      <summary>{c.status}</summary>
                      <span className="muted">{c.statusText}</span>
                    </details>
                  ) : (
                    c.status
                  )}
                </td>
              )}
              <td className="nowrap">
                {c.bands ? (
                  <>
                    <code>{fmtBand(c.bands.insufficientBelow)}</code> / <code>{fmtBand(c.bands.sufficientAbove)}</code>
                  </>
                ) : (
                  '—'
                )}
                {c.workable === false ? <span title="no band pair met both budgets on the data it was fitted on"> (unworkable)</span> : null}
              </td>
            </tr>
          ))}
          <tr data-corpus="pooled">
            <td>
              <b>pooled</b>
            </td>
            <td className="num">{qs(pooled)}</td>
            <td className="num">{percent(pooled.falseAnswerRate)}</td>
            <td className="num">{percent(pooled.falseRefusalRate)}</td>
            <td className="num">{percent(pooled.deferralRate)}</td>
            <td className="num">{percent(pooled.rightSourceRate)}</td>
            {folds ? null : <td />}
            <td />
          </tr>
        </tbody>
      </table>
      {folds ? null : (
        <p className="muted">
          Status: <b>unseen</b> — nobody developing the decision has read its errors, so it still measures generalisation; <b>seen</b> — its errors were read
          while developing, so its figures are held out from training but not from the developer.
        </p>
      )}
    </div>
  );
}

/** A reader rate against its target, the verdict in words: what the page's headline does for the record. */
function ReaderRate({ rate, value, targets, children }: { rate: keyof EvalTargets; value: number; targets: EvalTargets; children?: ReactNode }) {
  const verdict = againstTarget(rate, value, targets[rate]);
  return (
    <td className={`num nowrap ${verdict === 'missed' ? 'worse' : ''}`} data-rate={rate} data-verdict={verdict}>
      {children}
      {children ? ' ' : null}
      {children ? <span className="muted">({percent(value)})</span> : percent(value)} — <b>{verdict}</b>
    </td>
  );
}

/** `npm run reader:replay`'s groups as the agent pooled them: below the record, never mistaken for it. */
function ReplayedReaderSection({ reader, targets }: { reader: NonNullable<ReportView['replayedReader']>; targets: EvalTargets }) {
  const of = (k: number, n: number) => `${k} of ${n}`;
  return (
    <section id="replayed-reader" data-testid="replayed-reader">
      <h2>With a reader in the ambiguous band (recorded judgements)</h2>
      <p>
        An LLM’s recorded replies to the very prompts the product sends, replayed through the product’s own <code>ADJUDICATOR=model</code> path, each group of
        corpora scored by a model trained without them. Since S-096 the reader also reads every answer the offline decision would give, and may withhold it;
        since S-097 it reads the search’s next six passages before it refuses, and since S-098 an answer is given from the passage it names when that is another
        the gate read. It measures a reader of that class, not any particular provider, and it is not the record above.
        {reader.command ? (
          <>
            {' '}
            Printed by <code className="command">{reader.command}</code>
            {reader.generatedAt ? ` (${reader.generatedAt})` : null}.
          </>
        ) : null}
      </p>
      {reader.notRemeasuredSince ? (
        <p className="notice" data-testid="replayed-reader-stale">
          <b>Not measured again since:</b> {reader.notRemeasuredSince}
        </p>
      ) : null}
      <div className="table-scroll">
        <table className="corpora">
          <thead>
            <tr>
              <th>group</th>
              <th>corpora</th>
              <th>read</th>
              <th className="num">questions (answerable/unanswerable)</th>
              <th className="num">offline false answers</th>
              <th className="num">offline false refusals</th>
              <th className="num">with the reader: false answers (≤ {percent(targets.falseAnswerRate)})</th>
              <th className="num">false refusals (≤ {percent(targets.falseRefusalRate)})</th>
              <th className="num">deferral (≤ {percent(targets.deferralRate)})</th>
              <th className="num">answers read, withheld</th>
              <th className="num">answers given from another passage it named</th>
              <th className="num">answered from the next six passages</th>
              <th className="num">refusals below the lower line read, let through</th>
              <th className="num">prompts sent to the model</th>
              <th className="num">procedure answers keeping their steps, reader (offline)</th>
            </tr>
          </thead>
          <tbody>
            {reader.groups.map((g: ReaderGroupRow) => (
              <tr key={g.name} data-group={g.name}>
                <td className="nowrap">{g.name}</td>
                <td>{g.corpora.join(', ')}</td>
                <td>
                  <details>
                    <summary className="nowrap">{g.read.split(':')[0]}</summary>
                    <span className="muted">{g.read}</span>
                  </details>
                </td>
                <td className="num">
                  {g.answerable + g.unanswerable}{' '}
                  <span className="muted">
                    ({g.answerable}/{g.unanswerable})
                  </span>
                </td>
                <td className="num nowrap">
                  {of(g.offline.falseAnswers, g.unanswerable)} <span className="muted">({percent(g.offline.falseAnswerRate)})</span>
                </td>
                <td className="num nowrap">
                  {of(g.offline.falseRefusals, g.answerable)} <span className="muted">({percent(g.offline.falseRefusalRate)})</span>
                </td>
                <ReaderRate rate="falseAnswerRate" value={g.reader.falseAnswerRate} targets={targets}>
                  {of(g.reader.falseAnswers, g.unanswerable)}
                </ReaderRate>
                <ReaderRate rate="falseRefusalRate" value={g.reader.falseRefusalRate} targets={targets}>
                  {of(g.reader.falseRefusals, g.answerable)}
                </ReaderRate>
                <ReaderRate rate="deferralRate" value={g.reader.deferralRate} targets={targets} />
                <td className="num nowrap" data-figure="answers-read">
                  {g.reader.answersRead ? `${g.reader.answersRead.withheld} of ${g.reader.answersRead.read} withheld` : <span className="muted">not read</span>}
                </td>
                <td className="num" data-figure="answers-moved">
                  {g.reader.answersMoved ?? <span className="muted">not counted</span>}
                </td>
                <td className="num" data-figure="answered-deeper">
                  {g.reader.answeredDeeper ?? <span className="muted">not counted</span>}
                </td>
                <td className="num nowrap" data-figure="refusals-read">
                  {g.reader.refusalsRead ? (
                    `${g.reader.refusalsRead.letThrough} of ${g.reader.refusalsRead.read} let through`
                  ) : (
                    <span className="muted">not read</span>
                  )}
                </td>
                <td className="num nowrap" data-figure="calls">
                  {g.reader.calls === undefined ? (
                    <span className="muted">not counted</span>
                  ) : (
                    `${g.reader.calls} (${(g.reader.calls / Math.max(1, g.answerable + g.unanswerable)).toFixed(2)} per question)`
                  )}
                </td>
                <td className="num nowrap" data-figure="steps">
                  {g.steps ? (
                    `${g.steps.reader.kept} of ${g.steps.reader.procedureAnswers} (${g.steps.offline.kept} of ${g.steps.offline.procedureAnswers})`
                  ) : (
                    <span className="muted">not counted</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
