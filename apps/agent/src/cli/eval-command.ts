import { randomUUID } from 'node:crypto';
import { adjudicationOffline, confirmByModel, judgeByModel, type KnowledgeBase, shippedAnswerabilityModel } from '@sandscope/engine';
import { OFFLINE_PROVIDER, type ProviderEvent } from '@sandscope/engine/models';
import type { RunModel } from '@sandscope/engine/orchestrator';
import {
  crossValidateSet,
  type EvaluationReport,
  evaluateModelAdjudicated,
  evaluateShipped,
  type ModelReader,
  measureAll,
  type ReaderCost,
  reportedEvaluation,
  resolveEvidence,
} from '@sandscope/eval';
import { saveEvalRun } from '@sandscope/store';
import { corpusDirOf } from '../corpus-source.ts';
import { type ModelServices, modelServicesFromEnv } from '../run-agent.ts';
import { openCliModelServices } from './cli-model-services.ts';
import { evaluateLeaveOneCorpusOutInWorkers } from '../folds-in-workers.ts';
import { UserError } from '../user-error.ts';
import { parseCommandOptions } from './args.ts';
import { openCliStore } from './cli-store.ts';
import { DEFAULT_EVAL_CORPORA_DIR, evalCorpusNames, loadEvalCorpora, loadGeneratedSet, parseExclude } from './eval-corpora.ts';
import { type BandsFittedOn, formatEvaluation } from './eval-format.ts';
import { fittedShare } from './fitted-on.ts';
import { bandsFittedOnSet, evalInputs, parseFolds, parseSeed, readModelFile, type MarkLeftOutLine, type SkippedLine, trainedOnCorpus } from './eval-support.ts';

/**
 * `sandscope eval [--loco [--corpora DIR] [--exclude a,b] [--held-out a,b]] [--corpus DIR] [--questions FILE.jsonl | --feedback]
 * [--folds 5] [--cv] [--json] [--rows] [--skip-bad] [--record] [--adjudicator offline|model] [--model FILE]`.
 * - `--loco`: the headline — leave-one-corpus-out over the development corpora. `--held-out a,b` scores only
 *   those corpora (each by a model trained on all the others, exactly its folds of the whole run): an
 *   experiment's judge group, for a few folds' cost instead of every fold's. Each fold fits its own bands (on each
 *   corpus's line; `corpora[].bands` in --json); the report's `bands` are the shipped model's, for reference, and
 *   `bandsFrom: 'per-fold'` says they scored nothing (S-084).
 * - `--questions FILE` / `--feedback` (people's marks on runs, issue 9 D): an external set, scored with the
 *   shipped model and tuned on nothing (unless `--cv`). Evidence may be quoted text. `--adjudicator model` scores
 *   it as a deployment with `ADJUDICATOR=model` decides it: the providers the environment configures judge the
 *   questions the adjudicated bands leave to them (`evaluateModelAdjudicated`).
 * - otherwise the corpus's own (generated) set, cross-validated: each fold scored with the model and bands fitted on the
 *   other folds (`corpora[].bands`), so `bandsFrom: 'per-fold'`; the report's `bands` are those refitted on the whole
 *   set, scoring nothing (S-091).
 * - `--model FILE`: a question set scored with another model than the shipped one — one trained without the corpus
 *   (`npm run train -- --exclude NAME --out FILE`), so a development corpus is scored held out, adjudicator or not.
 *   With its own bands, never the corpus's thresholds.json (S-085): `bandsFrom: 'model'`, `modelFrom: FILE`. Not with
 *   `--cv` or a corpus's own set: a cross-validated run fits a model per fold and would not use it (S-088).
 * - `--rows`: each question's row in the `--json` report; only with `--json`.
 * - `--skip-bad` (with `--questions FILE`): malformed lines are left out rather than stopping the run; the `--json`
 *   report (and a record) lists them as `skipped: [{ line, reason }]` (S-210: they left no trace in it).
 * - `--json` (with `--rows` or not) and a `--record`ed run say where the questions, bands and model came from
 *   (`questionsFrom`, `bandsFrom`, `modelFrom`: FILE, `'shipped'` or `'per-fold'`; `inSample`), built in `provenanceOf`.
 * - `--record`: also saves the report, rows included, as an `eval_run` row in the agent's database
 *   (DATABASE_URL, else SANDSCOPE_DATA_DIR), which `GET /v1/eval/latest` and the website's evaluation
 *   page read before the committed docs/evaluation.json. Without it the evaluation endpoint could only
 *   ever show the committed file: nothing else wrote `eval_run` (issue 13, codebase 4).
 */
export async function evalCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandOptions('eval', argv, {
    loco: { type: 'boolean', default: false },
    corpora: { type: 'string' },
    exclude: { type: 'string' },
    'held-out': { type: 'string' },
    corpus: { type: 'string' },
    questions: { type: 'string' },
    feedback: { type: 'boolean', default: false },
    folds: { type: 'string' },
    seed: { type: 'string' },
    cv: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    rows: { type: 'boolean', default: false },
    'skip-bad': { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    adjudicator: { type: 'string', default: 'offline' },
    model: { type: 'string' },
  });
  if (values.adjudicator !== 'offline' && values.adjudicator !== 'model')
    throw new UserError(`--adjudicator is offline (the default) or model (got "${values.adjudicator}").`);
  // S-091: --rows adds each question's row to --json's report; without --json it was dropped without a word.
  if (values.rows && !values.json)
    throw new UserError('--rows adds each question’s row to the --json report; add --json (a --record saves the rows either way).');
  // --held-out and --exclude without --loco scored the generated set, cross-validated, and exited 0: the corpora named
  // were never read, and the figures printed were another run's.
  const locoOnly = (['corpora', 'exclude', 'held-out'] as const).filter((o) => values[o] !== undefined).map((o) => `--${o}`);
  if (!values.loco && locoOnly.length)
    throw new UserError(
      `${locoOnly.join(' and ')} ${locoOnly.length > 1 ? 'choose' : 'chooses'} the development corpora of a leave-one-corpus-out run, and mean nothing without it. Add --loco, or drop ${locoOnly.length > 1 ? 'them' : locoOnly[0]}.`,
    );
  const byModel = values.adjudicator === 'model';
  // An adjudicated evaluation scores what ships on a set it was not tuned on: a refit per fold has no adjudicated
  // bands of its own to judge between, and a recorded one would pass a few providers' judgements off as THE evaluation.
  if (byModel && (values.loco || values.cv || values.record || !(values.questions || values.feedback)))
    throw new UserError('--adjudicator model scores a question set with what ships (--questions FILE or --feedback); it takes no --loco, --cv or --record.');
  // A record is the shipped model's; --loco trains its own per fold.
  if (values.model !== undefined && (values.loco || values.record))
    throw new UserError('--model scores a question set with another model; --loco trains its own and a record is the shipped model’s. Drop one of them.');
  // S-088: a cross-validated run (--cv, or the corpus's own set) trains its model on each fold's complement; a model
  // given to it was read, named in the output as what scored the set, and never used.
  if (values.model !== undefined && (values.cv || !(values.questions || values.feedback)))
    throw new UserError(
      '--model is not used by a cross-validated run (--cv, or a corpus’s own questions without --questions FILE or --feedback): it trains a model per fold. To score a set with the model, pass --questions FILE (or --feedback) without --cv; to cross-validate, drop --model.',
    );
  // S-159: `eval --questions FILE --folds 3` printed the shipped model's score of the file, the folds unread and unsaid.
  const crossValidated = !values.loco && !byModel && (values.cv || !(values.questions || values.feedback));
  if (!crossValidated && (values.folds !== undefined || values.seed !== undefined))
    throw new UserError(
      `${values.folds !== undefined ? '--folds' : '--seed'} splits a cross-validated run (--cv, or a corpus’s own questions); this run ${values.loco ? 'holds out whole corpora (--loco)' : 'scores the set with what ships'}. Add --cv to cross-validate it, or drop ${values.folds !== undefined ? '--folds' : '--seed'}.`,
    );
  const model = values.model === undefined ? undefined : readModelFile(values.model);
  // No provider is a one-line error before the corpus is indexed and every question measured, not after.
  if (byModel) requireJudges();
  /** Where the reader's priced calls were booked (S-260), for the report. */
  let bookedIn: string | null = null;
  const folds = parseFolds(values.folds);
  const seed = parseSeed(values.seed);
  let report: EvaluationReport;
  let origin: string;
  /** The library the questions were scored on (not with --loco, which names its corpora in `origin`). */
  let library: string | undefined;
  let bandsFrom: string | undefined;
  let corpusBandsSetAside = false;
  let inSample = false;
  /** The model scoring the set was trained on its corpus (the set's figures in-sample whatever the bands). */
  let modelInSample = false;
  let bandsInSample = false;
  /** Scored with the corpus's own bands: which of the questions calibrate fitted them on (S-280). */
  let fittedOn: BandsFittedOn | undefined;
  let bandsFittedOn: { file: string | null; questionsRecorded: number | null; scored: number; scoredFittedOn: number | null } | undefined;
  /** `--questions FILE --skip-bad`: the lines left out, with why; in the --json report and a record (S-210). */
  let skipped: readonly SkippedLine[] | undefined;
  let marksLeftOut: readonly MarkLeftOutLine[] | undefined;
  if (values.loco) {
    if (values.questions || values.feedback || values.corpus)
      throw new UserError('--loco scores the development corpora (--corpora DIR); it takes no --corpus, --questions or --feedback.');
    const exclude = parseExclude(values.exclude);
    // A name --exclude does not know was ignored, and every corpus scored: refused as --held-out's is, before measuring.
    const names = evalCorpusNames(values.corpora ?? DEFAULT_EVAL_CORPORA_DIR);
    const unknownExcluded = [...exclude].filter((name) => !names.includes(name));
    if (unknownExcluded.length)
      throw new UserError(
        `--exclude names corpora to leave out; ${unknownExcluded.join(', ')} ${unknownExcluded.length > 1 ? 'are not ones' : 'is not one'} here. Corpora here: ${names.join(', ')}.`,
      );
    const corpora = await loadEvalCorpora(values.corpora ?? DEFAULT_EVAL_CORPORA_DIR, (name) => !exclude.has(name));
    for (const c of corpora) if (!c.measured) process.stderr.write(`sandscope: left out ${c.name}: ${c.missing}\n`);
    const present = corpora.filter((c) => c.measured);
    // The same reason as --held-out below: a run that lost corpora for want of their texts, recorded, became what
    // GET /v1/eval/latest and the website show as THE evaluation, on fewer corpora than the repo names (`npm run
    // eval:report` already refuses it: the report covers every corpus or none).
    const lost = corpora.filter((c) => !c.measured).map((c) => c.name);
    if (lost.length && values.record)
      throw new UserError(
        `${lost.join(', ')}: left out for want of texts, so this run is not the evaluation of record and takes no --record. Run \`npm run corpora\` first, or pass --exclude to leave them out on purpose.`,
      );
    if (present.length < 2) throw new UserError('leave-one-corpus-out needs at least two corpora with their texts; run `npm run corpora` first.');
    const heldOut = values['held-out'] === undefined ? undefined : parseExclude(values['held-out']);
    // A partial run recorded as an eval_run would become what GET /v1/eval/latest and the website show as THE
    // evaluation: a few corpora passed off as the headline.
    if (heldOut && values.record)
      throw new UserError('--held-out scores a few corpora for an experiment; it is not the evaluation of record, so it takes no --record. Drop one of them.');
    const unknown = [...(heldOut ?? [])].filter((name) => !present.some((c) => c.name === name));
    if (heldOut && (heldOut.size === 0 || unknown.length))
      throw new UserError(
        `--held-out names corpora to score; ${unknown.length ? `${unknown.join(', ')} is not one with its texts here` : 'it named none'}. Corpora here: ${present.map((c) => c.name).join(', ')}.`,
      );
    const generated = await loadGeneratedSet();
    report = await evaluateLeaveOneCorpusOutInWorkers(
      present.map((c) => ({ name: c.name, measured: c.measured!, status: c.status, evidenceErrors: c.evidenceErrors })),
      // Each fold fits its own bands; the report's own are the shipped model's, as in the record `npm run eval:report`
      // writes, and `bandsFrom: 'per-fold'` says none of them scored the figures (S-084).
      { alwaysTrainOn: [generated], shippedBands: shippedAnswerabilityModel().bands, ...(heldOut ? { heldOut } : {}), detail: true },
    );
    bandsFrom = 'per-fold';
    const scored = heldOut ? present.filter((c) => heldOut.has(c.name)) : present;
    origin = heldOut
      ? `${scored.length} of ${present.length} development corpora held out (${scored.map((c) => c.name).join(', ')}), each by a model trained on the others`
      : `${present.length} development corpora (${present.map((c) => c.name).join(', ')})`;
  } else {
    const corpus = corpusDirOf(values.corpus);
    const inputs = await evalInputs({
      ...(corpus.dir !== undefined ? { corpus: corpus.dir } : {}),
      ...(values.questions ? { questions: values.questions } : {}),
      feedback: values.feedback,
      skipBad: values['skip-bad'],
      ...(seed !== undefined ? { seed } : {}),
      ...(model ? { model } : {}),
    });
    const { questions, errors } = resolveEvidence(inputs.questions, inputs.kb.chunks);
    // Every question dropped as an evidence error printed a perfect score of nothing and exited 0: a CI job read it as
    // a pass (a colleague's black-box test, 2026-12-05).
    if (questions.length === 0 && errors.length > 0) {
      throw new UserError(
        `none of the ${errors.length} question(s) could be scored: each one's evidence names no single passage of the corpus at ${inputs.source.root} (first, ${errors[0]!.id}: ${errors[0]!.message}). ${corpus.from === 'bundled' ? 'That is the bundled corpus: pass --corpus DIR (or set CORPUS_DIR) for the library the questions are about. ' : ''}Quote in "evidence" a sentence its answering passage holds, or name its document in "doc".`,
      );
    }
    const measured = await measureAll(inputs.kb, questions, inputs.external ? 'external' : inputs.source.root);
    // An external set (a file, or the marks) is scored with what ships, never tuned on, unless --cv asks for that.
    // `detail`: each row carries what its figures are counted over, which the text and --json say (S-282).
    report = byModel
      ? await adjudicatedByModel(measured, inputs.kb, { name: inputs.origin, evidenceErrors: errors, detail: true }, (where) => (bookedIn = where))
      : inputs.external && !values.cv
        ? evaluateShipped(measured, inputs.kb.model, { name: inputs.origin, evidenceErrors: errors, detail: true })
        : crossValidateSet(measured, { folds, ...(seed !== undefined ? { seed } : {}), evidenceErrors: errors, detail: true });
    // S-145: questions about a team's library, scored without --corpus, were scored on the bundled corpus — its
    // answerable ones dropped as evidence errors, a perfect score printed of the rest — and nothing named the library.
    origin = inputs.origin;
    skipped = inputs.skipped;
    marksLeftOut = inputs.marksLeftOut;
    library = `${inputs.source.root}${corpus.from === 'bundled' ? ' (the bundled corpus: --corpus DIR or CORPUS_DIR names another)' : corpus.from === 'CORPUS_DIR' ? ' (CORPUS_DIR)' : ''}`;
    // S-091: a cross-validated run scores each fold with bands fitted on the other folds, never with the shipped
    // model's or this corpus's thresholds.json, which it said (`bandsFrom: 'shipped'` or `'corpus'`, "Bands in force").
    // Its report's own `bands` stay the pair crossValidateSet refits on the whole set, named as not used: what the
    // procedure gives on all of the set, as --loco's are the shipped model's, which is what training on all the corpora
    // gives (S-084). The shipped model's pair would be that of a model trained on other questions, often on these ones
    // too; and docs/evaluation.json's `generated` and the website ("The bands refitted on the whole set") hold the refit.
    bandsFrom = report.mode === 'cross-validated' ? 'per-fold' : inputs.bandsFrom;
    corpusBandsSetAside = inputs.bandsFrom === 'model' && inputs.source.thresholds !== null;
    // A development corpus scored with the shipped model is scored by a model that learned from it: say so.
    // Nor is a set scored with this corpus's own bands when calibrate chose them on that set: "nothing was tuned on
    // these questions" was printed of exactly the questions the bands were tuned on.
    // S-280: by the questions' text, not the file's path: a copy of the file, the marks it was exported from, or a set
    // sharing some of its questions were each "nothing was tuned on these questions".
    const found =
      inputs.external && !values.cv && !byModel
        ? bandsFittedOnSet(
            inputs,
            measured.map((m) => m.question.question),
            values.questions,
          )
        : null;
    if (found) {
      const share = fittedShare(found);
      bandsInSample = share === 'all';
      // Some of the set was fitted on: the rest, scored alone, is the held-out figure; the whole is not called held out.
      const heldOut =
        share === 'some' && found.recorded !== null
          ? evaluateShipped(
              measured.filter((m) => !found.isFitted(m.question.question)),
              inputs.kb.model,
              { name: 'held out of the bands', detail: true },
            )
          : undefined;
      fittedOn =
        share === 'unknown' || found.recorded === null
          ? { share: 'unknown', ...(found.file ? { file: found.file } : {}) }
          : { share, fitted: found.fitted, of: found.of, recorded: found.recorded, ...(heldOut ? { heldOut } : {}) };
      bandsFittedOn = {
        file: found.file ?? null,
        questionsRecorded: found.recorded,
        scored: measured.length,
        scoredFittedOn: found.recorded === null ? (share === 'all' ? measured.length : null) : found.fitted,
      };
    }
    modelInSample = inputs.external && !values.cv && trainedOnCorpus(inputs);
    inSample = modelInSample || bandsInSample || fittedOn?.share === 'some';
  }
  // S-281: every rate over no question is null, pooled and per corpus or fold alike, in --json and in a record.
  const heldOutOfBands = fittedOn?.share === 'some' && fittedOn.heldOut ? reportedEvaluation(fittedOn.heldOut) : undefined;
  const full = {
    ...reportedEvaluation(report),
    ...(library ? { library } : {}),
    ...(skipped ? { skipped } : {}),
    // S-287: the marks a newer mark of their question replaced in the set, each with the one kept.
    ...(marksLeftOut ? { marksLeftOut } : {}),
    ...provenanceOf(report, { origin, ...(values.model ? { modelFile: values.model } : {}), ...(bandsFrom ? { bandsFrom } : {}), inSample }),
    ...(bandsFittedOn ? { bandsFittedOn } : {}),
    ...(heldOutOfBands ? { heldOutOfBands: withoutRows(heldOutOfBands) } : {}),
  };
  if (values.record) {
    // `create`: an evaluation may be the first thing recorded in a fresh data directory.
    const store = await openCliStore(process.env, { create: true });
    try {
      const saved = await saveEvalRun(store.db, { kind: report.mode, summary: full });
      process.stderr.write(`sandscope: recorded evaluation ${saved.id} (${report.mode}) in ${store.db.description}; GET /v1/eval/latest now reads it.\n`);
    } finally {
      await store.close();
    }
  }
  if (values.json) {
    const { questions, ...summary } = full;
    process.stdout.write(`${JSON.stringify(values.rows ? full : summary, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${formatEvaluation(report, library ? `${origin}, on the library at ${library}` : origin, { ...(bandsFrom ? { bandsFrom } : {}), inSample: modelInSample, bandsInSample, ...(values.model ? { modelFile: values.model } : {}), corpusBandsSetAside, ...(bookedIn ? { spendBookedIn: bookedIn } : {}), ...(fittedOn ? { fittedOn } : {}) })}\n`,
    );
  }
  return 0;
}

/** A report's figures without its rows: `heldOutOfBands` is a figure of the set's rows, which the report holds once. */
function withoutRows<T extends { questions: unknown }>({ questions: _, ...figures }: T): Omit<T, 'questions' | 'corpora'> {
  const { corpora: __, ...pooled } = figures as T & { corpora?: unknown };
  return pooled as Omit<T, 'questions' | 'corpora'>;
}

/**
 * Where a report's questions, bands and model came from: what `--json` prints, with its rows or not, and a record holds
 * (S-088: `--json --rows` printed none of it). The model is the one given, else the shipped one for a set scored as it
 * is; a cross-validated or leave-one-corpus-out run trains one per fold.
 */
function provenanceOf(report: EvaluationReport, how: { origin: string; modelFile?: string; bandsFrom?: string; inSample: boolean }) {
  const modelFrom = how.modelFile ?? (report.mode === 'shipped-model' ? 'shipped' : 'per-fold');
  return { questionsFrom: how.origin, modelFrom, ...(how.bandsFrom ? { bandsFrom: how.bandsFrom } : {}), inSample: how.inSample };
}

/**
 * Each deferred question is judged as a run of the product would judge it (modelReader): a model stack of its own (its
 * budget, the router's failover over the configured providers) and the graph's judgement (`judgeByModel`). With no
 * provider configured only the offline model would answer, so every question would be "decided as offline": refused
 * up front, before the corpus is indexed.
 */
function requireJudges(): void {
  if (!modelServicesFromEnv(process.env).candidates.some((c) => c.name !== 'offline'))
    throw new UserError(
      '--adjudicator model needs a provider to judge: set a provider key (e.g. GROQ_API_KEY) or OLLAMA_BASE_URL. With none, nothing but the offline rules would decide.',
    );
}

/**
 * The set scored with the reader, its priced calls booked on the deployment's daily ledger as a run's are (S-260: two
 * evaluations made ten priced calls, $0.07, booked nowhere and printed no spend). The ledger is opened here, after the
 * questions are read — `--feedback` reads them from the same embedded database, which has one owner at a time.
 */
async function adjudicatedByModel(
  measured: Parameters<typeof evaluateModelAdjudicated>[0],
  kb: KnowledgeBase,
  options: Parameters<typeof evaluateModelAdjudicated>[3],
  booked: (where: string) => void,
): Promise<EvaluationReport> {
  const opened = await openCliModelServices(process.env, { unbookable: 'refuse' });
  try {
    if (opened.bookedIn) booked(opened.bookedIn);
    return await evaluateModelAdjudicated(measured, kb.model, modelReader(kb, opened.services), options);
  } finally {
    await opened.close();
  }
}

/** Provider events that mean a request went to the provider: it answered, refused it, or failed it after it was sent. */
const reachedProvider = (e: ProviderEvent) =>
  e.provider !== OFFLINE_PROVIDER.name &&
  (e.kind === 'served' || e.kind === 'rate_limited' || (e.kind === 'failed' && !(e.status === undefined && e.message?.startsWith('network'))));

/**
 * The reader through the product's model stack, one run per question, counting what it cost (S-261): the prompts a
 * provider was actually sent, those the spend guard refused before sending (each question's RUN_BUDGET_USD, or the
 * daily ceiling), and the money spent. `calls` counted every prompt made: with RUN_BUDGET_USD=0.001 it printed
 * "prompts sent to a model: 5 for 5 questions" of a run in which no request reached the provider.
 */
function modelReader(kb: KnowledgeBase, services: ModelServices): ModelReader {
  const cost = { sent: 0, refusedByRunBudget: 0, refusedByDailyCeiling: 0, spentUsd: 0 };
  const modelOfRun = (): RunModel['model'] => {
    let reached = 0;
    const { model } = services.models({
      runId: randomUUID(),
      workload: 'triage',
      corpusVersion: kb.version,
      failProviders: new Set(),
      sinks: {
        provider: (e) => {
          if (reachedProvider(e)) reached++;
        },
        spend: (e) => {
          if (e.kind === 'refused') cost[e.reason === 'daily' ? 'refusedByDailyCeiling' : 'refusedByRunBudget']++;
          else if (e.kind === 'settled') cost.spentUsd += e.actualUsd;
        },
      },
    });
    const counted = async <T>(call: () => PromiseLike<T>): Promise<T> => {
      const before = reached;
      try {
        return await call();
      } finally {
        if (reached > before) cost.sent++;
      }
    };
    return {
      specificationVersion: model.specificationVersion,
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: model.supportedUrls,
      doGenerate: (options) => counted(() => model.doGenerate(options)),
      doStream: (options) => counted(() => model.doStream(options)),
    };
  };
  return {
    cost: (): ReaderCost => ({ ...cost, spentUsd: Math.round(cost.spentUsd * 1e9) / 1e9 }),
    judge: (m, decision) =>
      judgeByModel({
        question: m.question.question,
        features: m.features,
        probabilities: decision.assessment.probabilities,
        offline: adjudicationOffline(decision),
        model: modelOfRun(),
        decideOffline: (f) => kb.decide(f),
        deeper: async () => m.deeper,
      }),
    confirm: (m, decision) =>
      confirmByModel({
        question: m.question.question,
        features: m.features,
        probabilities: decision.assessment.probabilities,
        evidence: decision.evidence,
        model: modelOfRun(),
        deeper: async () => m.deeper,
      }),
  };
}
