import {
  type CorpusFigures,
  type CountedOver,
  countedOver,
  type EvaluationReport,
  type ModelAdjudicationFigures,
  pooledFalseRefusals,
  rowsDetailed,
} from '@sandscope/eval';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** A rate over no question: n/a, never 0.0%, which read as a perfect score (S-157, S-281). */
const over = (x: number, of: number) => (of ? pct(x) : 'n/a');

/** What a report's rows say its figures were counted over, when they carry their detail (`RowsDetail`); else null. */
function countedIn(r: EvaluationReport, figure?: string): CountedOver | null {
  if (!rowsDetailed(r.questions)) return null;
  return countedOver(figure === undefined ? r.questions : r.questions.filter((q) => q.scoredIn === figure));
}

/**
 * One corpus's or fold's line. S-281: its rates printed 0.0% where nothing was counted (a fold of answerable questions
 * only, `eval --loco` over a team's corpora), while the pooled line above said n/a.
 */
function line(c: CorpusFigures, counted: CountedOver | null): string {
  const bands = c.bands
    ? `  bands ${c.bands.insufficientBelow.toFixed(3)}/${c.bands.sufficientAbove.toFixed(3)}${c.workable === false ? ' (unworkable)' : ''}`
    : '';
  const sourced = counted?.sourced ?? (c.rightSourceRate === 0 && c.wrongSourceAnswers === 0 ? 0 : 1);
  // Right source is over the answers to questions with a labelled passage: how many, where the rows say (S-282).
  const of = counted?.sourced ? ` (${counted.rightSource}/${counted.sourced})` : '';
  return `  ${c.name.padEnd(30)} ${String(c.n).padStart(4)}  false answers ${over(c.falseAnswerRate, c.unanswerable).padStart(6)}  false refusals ${over(c.falseRefusalRate, c.answerable).padStart(6)}  deferral ${over(c.deferralRate, c.n).padStart(6)}  right source ${over(c.rightSourceRate, sourced).padStart(6)}${of}${bands}`;
}

/**
 * What a false refusal could be seen to name. A refusal of a question with no labelled passage names nothing that can
 * be checked: "0 of the 3 named the labelled passage" was printed of three marks that carried none (S-282).
 */
function refusalsNaming(r: EvaluationReport, counted: CountedOver | null): string {
  if (r.refusalsNamingLabelled === undefined || pooledFalseRefusals(r) === 0) return '';
  if (!counted) return `; ${r.refusalsNamingLabelled} of the ${pooledFalseRefusals(r)} named the labelled passage among the closest, the ones to read`;
  const unlabelled = counted.falseRefusals - counted.falseRefusalsLabelled;
  if (counted.falseRefusalsLabelled === 0) return `; none of the ${counted.falseRefusals} had a labelled passage, so whether they named the answer is unknown`;
  return `; ${counted.falseRefusalsNamingLabelled} of the ${counted.falseRefusalsLabelled} with a labelled passage named it among the closest, the ones to read${unlabelled ? `; ${unlabelled} had none, unknown` : ''}`;
}

/** Right source, over the answers to questions with a labelled passage, saying how many answers it leaves out (S-282). */
function rightSourceLine(r: EvaluationReport, counted: CountedOver | null): string {
  const t = r.targets;
  const naming =
    r.wrongSourceNamingLabelled !== undefined && r.wrongSourceAnswers > 0 ? `, ${r.wrongSourceNamingLabelled} of them naming it beside the answer` : '';
  if (!counted)
    // None right and none wrong: no answer of a labelled question was given, so no source was judged.
    return r.rightSourceRate === 0 && r.wrongSourceAnswers === 0
      ? `  right source       n/a   (no answerable question with a labelled passage was answered; target ≥ ${pct(t.rightSourceRate)})`
      : `  right source    ${pct(r.rightSourceRate).padStart(6)}   (target ≥ ${pct(t.rightSourceRate)}; ${r.wrongSourceAnswers} answered from a passage other than the labelled one${naming})`;
  const unlabelled = counted.answeredUnlabelled
    ? `; ${counted.answeredUnlabelled} answered ${counted.answeredUnlabelled === 1 ? 'question has' : 'questions have'} no labelled passage and ${counted.answeredUnlabelled === 1 ? 'is' : 'are'} not counted`
    : '';
  return counted.sourced === 0
    ? `  right source       n/a   (no answerable question with a labelled passage was answered${unlabelled}; target ≥ ${pct(t.rightSourceRate)})`
    : `  right source    ${pct(r.rightSourceRate).padStart(6)}   (target ≥ ${pct(t.rightSourceRate)}; ${counted.rightSource} of the ${counted.sourced} answered with a labelled passage cite it, ${r.wrongSourceAnswers} another passage${naming}${unlabelled})`;
}

/**
 * The steps share, over the answered procedure questions with labelled steps, and those it leaves out by why: an intent
 * in another case, or a labelled section without numbered steps, left the share without a word (S-283).
 */
function stepsLines(r: EvaluationReport, counted: CountedOver | null): string[] {
  if (!counted)
    return r.procedureAnswers
      ? [`  procedure steps ${pct(r.stepsCoveredRate).padStart(6)}   of ${r.procedureAnswers} answered procedure questions carry every labelled step`]
      : [];
  if (counted.procedureAnswered === 0) return [];
  const left = [
    counted.procedureUnlabelled ? `${counted.procedureUnlabelled} with no labelled passage (none, or a document only)` : '',
    counted.procedureWithoutSteps ? `${counted.procedureWithoutSteps} whose labelled section has fewer than two numbered or bulleted steps` : '',
  ].filter(Boolean);
  const notCounted = left.length
    ? `; ${counted.procedureAnswered - counted.procedureAnswers} of the ${counted.procedureAnswered} answered procedure questions not counted: ${left.join(', ')}`
    : '';
  return [
    counted.procedureAnswers
      ? `  procedure steps ${pct(r.stepsCoveredRate).padStart(6)}   (${counted.stepsKept} of the ${counted.procedureAnswers} answered procedure questions with labelled steps carry every one${notCounted})`
      : `  procedure steps    n/a   (no answered procedure question has labelled steps${notCounted})`,
  ];
}

/** Chunk MRR and recall@6, over the answerable questions with a labelled passage (S-282: the rest are not ranked). */
function retrievalLine(r: EvaluationReport, counted: CountedOver | null): string {
  // No answerable question, no labelled passage to rank: "0.000" read as retrieval that found nothing (S-210).
  if (r.answerable === 0) return '  chunk MRR         n/a   recall@6 n/a   (no answerable question was scored)';
  if (!counted) return `  chunk MRR       ${r.mrr.toFixed(3)}   recall@6 ${r.recallAt6.toFixed(3)}`;
  if (counted.ranked === 0) return `  chunk MRR         n/a   recall@6 n/a   (none of the ${r.answerable} answerable questions has a labelled passage)`;
  return `  chunk MRR       ${r.mrr.toFixed(3)}   recall@6 ${r.recallAt6.toFixed(3)}   (over the ${counted.ranked} answerable questions with a labelled passage${counted.answerableUnlabelled ? `; ${counted.answerableUnlabelled} with none not counted` : ''})`;
}

const modelAdjudicated = (r: EvaluationReport): r is EvaluationReport & { modelAdjudication: ModelAdjudicationFigures } => 'modelAdjudication' in r;

/** What the LLM adjudicator did (`eval --adjudicator model`): the figures above already count its judgements. */
function modelAdjudicationLines(a: ModelAdjudicationFigures, questions: number, bookedIn?: string): string[] {
  const by = Object.entries(a.judgedBy);
  const judged = by.reduce((n, [, k]) => n + k, 0);
  const b = a.budget;
  // S-261: "decided as offline: 4" did not say that the budget, not a provider, was why.
  const unsent = (n: number | undefined, them: string) =>
    n ? ` (${n} of them never sent: the budget refused ${n === 1 ? 'its prompt' : `their ${them}`})` : '';
  return [
    `With the LLM adjudicator (ADJUDICATOR=model), counted in the figures above: the adjudicated bands (refuse below ${a.bands.insufficientBelow.toFixed(3)}, answer from ${a.bands.sufficientAbove.toFixed(3)}) left it ${a.deferredAnswerable + a.deferredUnanswerable} questions (${a.deferredAnswerable} answerable, ${a.deferredUnanswerable} unanswerable).`,
    `  judged by a model: ${judged}${by.length ? ` (${by.map(([p, k]) => `${p} ${k}`).join(', ')})` : ''}; asked but no usable judgement, decided as offline: ${a.unavailable}${unsent(b?.unjudged, 'prompts')}; nothing to show, refused: ${a.nothingToShow}`,
    `  let through as partial: ${a.answerableLetThrough} of ${a.deferredAnswerable} answerable, ${a.unanswerableLetThrough} of ${a.deferredUnanswerable} unanswerable (its false answers)`,
    ...(a.answerableRefusedUnshown === undefined
      ? []
      : [`  of the ${a.deferredAnswerable - a.answerableLetThrough} answerable it refused, never shown the labelled passage: ${a.answerableRefusedUnshown}`]),
    ...(a.answersRead === undefined
      ? []
      : [
          `  answers of the sufficient band read before they were given (S-096): ${a.answersRead.answerable + a.answersRead.unanswerable}; withheld ${a.answersRead.unanswerableWithheld} of ${a.answersRead.unanswerable} unanswerable, ${a.answersRead.answerableWithheld} of ${a.answersRead.answerable} answerable; no usable reading, answered as offline: ${a.answersRead.unavailable}${unsent(b?.unread, 'prompts')}`,
        ]),
    ...(a.answeredDeeper === undefined
      ? []
      : [
          `  answered partial from the search's next passages, read before a refusal (S-097): ${a.answeredDeeper.answerable} answerable, ${a.answeredDeeper.unanswerable} unanswerable`,
        ]),
    ...(a.answersMoved === undefined
      ? []
      : [
          `  answers of the sufficient band given partial from another passage the gate read, the one the reader named (S-098): ${a.answersMoved.answerable} answerable, ${a.answersMoved.unanswerable} unanswerable`,
        ]),
    ...(a.refusalsRead === undefined
      ? []
      : [
          `  refusals below the lower line, read before they were given (S-100): ${a.refusalsRead.answerable} answerable, ${a.refusalsRead.unanswerable} unanswerable; let through ${a.refusalsRead.answerableLetThrough} answerable, ${a.refusalsRead.unanswerableLetThrough} unanswerable`,
        ]),
    ...(a.calls === undefined
      ? []
      : [
          `  prompts sent to a model: ${a.calls} for ${questions} questions (${questions ? (a.calls / questions).toFixed(2) : '0.00'} each; answers, refusals and deeper reads included, which deferral does not count)`,
        ]),
    ...(b === undefined
      ? []
      : [
          // S-261: a prompt the spend guard refused was counted as sent; it is counted here, apart, with what refused it.
          `  refused by the budget before any provider was sent them: ${b.refusedByRunBudget + b.refusedByDailyCeiling} prompts (${b.refusedByRunBudget} by RUN_BUDGET_USD, each question's own run; ${b.refusedByDailyCeiling} by DAILY_SPEND_CEILING_USD, the deployment's day)`,
          // S-260: what the reader spent, booked where the agent books its runs' spend.
          `  spent on model calls: $${b.spentUsd.toFixed(6)}${bookedIn ? `, booked against DAILY_SPEND_CEILING_USD: ${bookedIn}` : ''}`,
        ]),
  ];
}

/**
 * Which bands scored the figures. Leave-one-corpus-out and cross-validation fit them per fold, each held-out corpus's
 * or fold's printed on its line: S-084, "Bands in force" printed the first fold's as a leave-one-corpus-out run's, and
 * S-091, the pair refitted on the whole set as a cross-validated run's. The report's own pair is then named for what it
 * is — the shipped model's, or the cross-validated set's refit — and as not used.
 */
function bandsLines(r: EvaluationReport): string[] {
  const pair = `refuse below ${r.bands.insufficientBelow.toFixed(3)}, answer from ${r.bands.sufficientAbove.toFixed(3)}`;
  if (r.mode === 'shipped-model') return [`Bands in force: ${pair} (answerability, 0–1).`];
  const [each, own] =
    r.mode === 'leave-one-corpus-out'
      ? ['each held-out corpus scored with the bands trained without it', 'The shipped model’s bands']
      : ['each fold scored with the bands trained on the other folds', 'The bands refitted on the whole set'];
  return [
    `Bands: fitted per fold — ${each} (on its line above); no one pair was in force for the run.`,
    `${own}, not used in these figures: ${pair} (answerability, 0–1).`,
  ];
}

/** How a set was scored, beside its report: whose model and bands, and whether any of it was fitted on the set. */
export interface ScoredHow {
  /** Where the bands in force came from: 'corpus' (thresholds.json), 'shipped', 'model' (`--model FILE`) or 'per-fold'. */
  readonly bandsFrom?: string;
  /** The model scoring the set learned from it (trained on this corpus), or, with `bandsInSample`, the bands did. */
  readonly inSample?: boolean;
  readonly bandsInSample?: boolean;
  /** `--model FILE`: the model that scored the set, when it is not the shipped one. */
  readonly modelFile?: string;
  /** The corpus has a thresholds.json that `--model FILE`'s own bands were used instead of (S-085). */
  readonly corpusBandsSetAside?: boolean;
  /** `--adjudicator model`: the ledger the reader's priced calls were booked on (DAILY_SPEND_CEILING_USD, S-260). */
  readonly spendBookedIn?: string;
  /** Scored with this corpus's own bands: how many of the questions calibrate fitted them on (S-280). */
  readonly fittedOn?: BandsFittedOn;
}

/** Of the questions scored with a corpus's own bands, those calibrate fitted the bands on, as `eval` found them (S-280). */
export type BandsFittedOn =
  /** `fitted` of the `of` scored were among the `recorded` calibrate fitted on; `heldOut`, the rest scored alone, when some were. */
  | { readonly share: 'all' | 'some' | 'none'; readonly fitted: number; readonly of: number; readonly recorded: number; readonly heldOut?: EvaluationReport }
  /** An older thresholds.json names the file it was fitted on, not its questions: `file` was not the one scored. */
  | { readonly share: 'unknown'; readonly file?: string };

/**
 * The questions calibrate did not fit the bands on, scored alone: the held-out figure of a set that shares some of its
 * questions with the calibration's. Printed as the whole set's "nothing was tuned on these questions" before (S-280).
 */
function heldOutOfBandsLines(f: BandsFittedOn | undefined): string[] {
  if (f?.share !== 'some' || !f.heldOut) return [];
  const h = f.heldOut;
  const counted = countedIn(h);
  const sourced = counted?.sourced ?? (h.rightSourceRate === 0 && h.wrongSourceAnswers === 0 ? 0 : 1);
  return [
    `Held out of the bands, the ${h.n} questions calibrate did not fit them on (${h.answerable} answerable, ${h.unanswerable} unanswerable), alone: false answers ${over(h.falseAnswerRate, h.unanswerable)}, false refusals ${over(h.falseRefusalRate, h.answerable)}, deferral ${over(h.deferralRate, h.n)}, right source ${over(h.rightSourceRate, sourced)}${counted?.sourced ? ` (${counted.rightSource} of the ${counted.sourced} answered with a labelled passage)` : ''}.`,
    '',
  ];
}

/** The human-readable evaluation: what was measured and how, every figure labelled held-out or not. */
export function formatEvaluation(r: EvaluationReport, origin: string, scored: ScoredHow = {}): string {
  const { bandsFrom, inSample = false, bandsInSample = false, modelFile, corpusBandsSetAside = false, spendBookedIn, fittedOn } = scored;
  const counted = countedIn(r);
  // S-085: the model is named as what it is: "the shipped model" was printed of a set scored with --model FILE.
  const model = modelFile ? `the model in ${modelFile}` : 'the shipped model';
  const bands =
    bandsFrom === 'corpus'
      ? " and this corpus's own bands (thresholds.json, from calibrate)"
      : bandsFrom === 'model'
        ? ` and its own bands${corpusBandsSetAside ? " (this corpus's thresholds.json not used: calibrate drew those lines on the answerability of the model that ships, not of this one)" : ''}`
        : '';
  const how =
    r.mode === 'leave-one-corpus-out'
      ? 'HELD-OUT, leave-one-corpus-out: each corpus scored by a model (weights and bands) trained without it.'
      : r.mode === 'cross-validated'
        ? `HELD-OUT: each of ${r.corpora.length} folds scored with what was fitted on the other folds.`
        : bandsInSample
          ? "IN-SAMPLE: scored with this corpus's own bands (thresholds.json), which calibrate fitted on these very questions. Its held-out figures are calibrate's, fold by fold."
          : fittedOn?.share === 'some'
            ? `PARTLY IN-SAMPLE: scored with ${model}${bands}; calibrate fitted those bands on ${fittedOn.recorded} questions, and ${fittedOn.fitted} of these ${fittedOn.of} are among them, counted in the figures below. The other ${fittedOn.of - fittedOn.fitted}, held out of the bands, are scored alone after them.${inSample ? ' Nor are they held out of the model, which was trained on this corpus.' : ''}`
            : inSample
              ? `IN-SAMPLE: scored with ${model} (trained on this corpus)${bands}. Its held-out figures are in \`sandscope eval --loco\`.`
              : fittedOn?.share === 'unknown'
                ? `Scored with ${model}${bands}, which calibrate fitted on ${fittedOn.file ?? 'a question set it did not name'}: an older thresholds.json, naming that file but not its questions, so whether these questions are among them cannot be told. Run calibrate again to record them.`
                : `Scored with ${model}${bands}: nothing was tuned on these questions${fittedOn?.share === 'none' ? ` (none of them is among the ${fittedOn.recorded} calibrate fitted the bands on)` : ''}.`;
  const t = r.targets;
  const lines = [
    `Evaluation of ${r.n} questions (${r.answerable} answerable, ${r.unanswerable} unanswerable) from ${origin}.`,
    // S-145: 44 of 80 dropped showed only at the end, below a perfect score of the other 36.
    ...(r.evidenceErrors.length
      ? [`NOT SCORED: ${r.evidenceErrors.length} more question(s), whose evidence names no passage of this library (listed at the end).`]
      : []),
    how,
    '',
    // A rate over no question is no measurement: "0.0%" read as a perfect score where nothing was scored (S-157).
    r.unanswerable === 0
      ? `  false answers      n/a   (no unanswerable question was scored; target ≤ ${pct(t.falseAnswerRate)})`
      : `  false answers   ${pct(r.falseAnswerRate).padStart(6)}   (target ≤ ${pct(t.falseAnswerRate)})`,
    r.answerable === 0
      ? `  false refusals     n/a   (no answerable question was scored; target ≤ ${pct(t.falseRefusalRate)})`
      : `  false refusals  ${pct(r.falseRefusalRate).padStart(6)}   (target ≤ ${pct(t.falseRefusalRate)}${refusalsNaming(r, counted)})`,
    // S-108: what the refusals claimed; "the library does not answer this" was false wherever the question was answerable.
    ...(r.refusalsClaimingAbsent !== undefined && r.answerableClaimedAbsent !== undefined
      ? [
          `  refusals said "the library does not answer this" ${r.refusalsClaimingAbsent} times, ${r.answerableClaimedAbsent} of them of answerable questions; the rest said the model was unsure or rated no passage likely (or that the library disagrees)`,
        ]
      : []),
    r.answerable + r.unanswerable === 0
      ? `  deferral           n/a   (no question was scored; target ≤ ${pct(t.deferralRate)})`
      : `  deferral        ${pct(r.deferralRate).padStart(6)}   (target ≤ ${pct(t.deferralRate)}; the ambiguous band: the model unsure)`,
    rightSourceLine(r, counted),
    ...stepsLines(r, counted),
    retrievalLine(r, counted),
    '',
    ...heldOutOfBandsLines(fittedOn),
    // A run fitted per fold prints its corpora or folds even when there is one (`--held-out a`): its bands are on its line.
    ...(r.corpora.length > 1 || r.mode !== 'shipped-model'
      ? [r.mode === 'leave-one-corpus-out' ? 'Per held-out corpus:' : 'Per fold:', ...r.corpora.map((c) => line(c, countedIn(r, c.name))), '']
      : []),
    ...(r.adjudicated
      ? [
          `With an LLM adjudicator (ADJUDICATOR=model): the adjudicated bands alone answer falsely ${pct(r.adjudicated.falseAnswerRate)} and refuse falsely ${pct(r.adjudicated.falseRefusalRate)}, and defer ${pct(r.adjudicated.deferralRate)} to the adjudicator (${r.adjudicated.deferredAnswerable} answerable, ${r.adjudicated.deferredUnanswerable} unanswerable); its own accuracy is not measured here (with a provider configured, sandscope eval --questions FILE --adjudicator model measures it).`,
          '',
        ]
      : []),
    ...(modelAdjudicated(r) ? [...modelAdjudicationLines(r.modelAdjudication, r.n, spendBookedIn), ''] : []),
    ...bandsLines(r),
    ...(r.evidenceErrors.length
      ? [
          '',
          `${r.evidenceErrors.length} question(s) not scored — their evidence names no single passage:`,
          ...r.evidenceErrors.slice(0, 10).map((e) => `  ${e.corpus} ${e.id}: ${e.message}`),
          // Ten of 44 were listed, with nothing to say the rest existed (S-145).
          ...(r.evidenceErrors.length > 10 ? [`  … and ${r.evidenceErrors.length - 10} more (--json lists every one)`] : []),
        ]
      : []),
  ];
  return lines.join('\n');
}
