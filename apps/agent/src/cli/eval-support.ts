import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type AnswerabilityModel, corpusVersion, type KnowledgeBase, parseModel } from '@sandscope/engine';
import { type BadLine, type EvalQuestion, generateQuestions, type Gap, parseGaps, parseQuestionsJsonl } from '@sandscope/eval';
import { type CorpusSource, loadCorpusSource } from '../corpus-source.ts';
import { knowledgeBaseOf } from '../knowledge-base-of.ts';
import { shellArg } from '../shell-arg.ts';
import { UserError } from '../user-error.ts';
import { type FeedbackQuestionSet, leftOutWords, loadFeedbackQuestions, unconfirmedSourceWords } from './feedback-marks.ts';
import { questionLengthProblem } from './args.ts';
import { type FittedOn, fittedOnOf } from './fitted-on.ts';
import { fsErrorWords } from './fs-error.ts';

export function gapsOf(source: CorpusSource): Gap[] {
  const path = join(source.root, 'GAPS.md');
  return existsSync(path) ? parseGaps(readFileSync(path, 'utf8')) : [];
}

/** Read an external JSONL question set; malformed lines stop the run unless skipBad. */
export function readQuestionFile(path: string, skipBad: boolean): EvalQuestion[] {
  return readQuestionSet(path, skipBad).questions;
}

/** A line `--skip-bad` left out, and why: the `--json` report's `skipped`. */
export interface SkippedLine {
  readonly line: number;
  readonly reason: string;
}

/** How many bad lines a message names before it says how many more there are. */
const BAD_LINES_SHOWN = 10;

/** The first `shown` bad lines with their reasons, and how many more: 5,000 of them were one 29 KB line of numbers. */
function badLinesWords(bad: readonly BadLine[], shown: number): string {
  const first = bad.slice(0, shown).map((b) => `line ${b.line}: ${b.message}`);
  return `${first.join('; ')}${bad.length > shown ? `; and ${bad.length - shown} more` : ''}`;
}

/**
 * readQuestionFile, with the lines `skipBad` left out. A question longer than `ask` takes is a bad line (the rule `ask`
 * refuses by, questionLengthProblem): it was scored, and counted as a false answer, where `ask` refused it.
 */
export function readQuestionSet(path: string, skipBad: boolean): { questions: EvalQuestion[]; skipped: SkippedLine[] } {
  if (!existsSync(path)) throw new UserError(`question file not found: ${path}. Pass --questions FILE.jsonl (one JSON object per line).`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read ${path}: ${fsErrorWords(error)}.`);
  }
  // A UTF-8 byte-order mark (Notepad's and Excel's "UTF-8 with BOM") is not part of line 1: left in, it made the
  // first question "not JSON", a stop or, with --skip-bad, a question silently lost.
  const { questions, bad } = parseQuestionsJsonl(text.startsWith('\uFEFF') ? text.slice(1) : text, { refuse: questionLengthProblem });
  // S-284: a question labelled both ways is not a line to skip: leaving either out keeps the other's label unchecked.
  const contradictions = bad.filter((b) => b.contradicts !== undefined);
  if (contradictions.length) {
    throw new UserError(
      `${contradictions.length} question(s) in ${path} labelled both answerable and unanswerable — ${badLinesWords(contradictions, 5)}. Fix the labels, then run again (--skip-bad does not skip these: leaving either line out would keep a label that may be the wrong one).`,
    );
  }
  if (bad.length && !skipBad) {
    throw new UserError(`${bad.length} malformed line(s) in ${path} — ${badLinesWords(bad, 5)}. Fix them, or pass --skip-bad to score the rest.`);
  }
  // S-210: the lines skipped were numbers only, all of them (a 29 KB line for 5,000), and --json had no trace of them.
  if (bad.length)
    process.stderr.write(
      `sandscope: skipped ${bad.length} malformed line(s) — ${badLinesWords(bad, BAD_LINES_SHOWN)}${bad.length > BAD_LINES_SHOWN ? ' (--json lists every one, as "skipped")' : ''}\n`,
    );
  if (questions.length === 0) throw new UserError(`${path} holds no questions. Each line: {"question": "...", "label": "answerable"|"unanswerable"}.`);
  noteOneLabel(questions);
  return { questions, skipped: bad.map((b) => ({ line: b.line, reason: b.message })) };
}

/**
 * A set with one label leaves a rate unmeasured; said once, on stderr, for a file or the marks alike, naming the rate and
 * as the report shows it. It said "reported as 0" above a report printing "false answers n/a" (S-157 made it n/a).
 */
function noteOneLabel(questions: readonly EvalQuestion[]): void {
  const answerable = questions.some((q) => q.label === 'answerable');
  if (answerable === questions.some((q) => q.label === 'unanswerable')) return;
  const unmeasured = answerable ? 'false answers' : 'false refusals and right source';
  process.stderr.write(
    `sandscope: note: the set has only ${answerable ? 'answerable' : 'unanswerable'} questions, so ${unmeasured} cannot be measured on it: shown as n/a (null in --json).\n`,
  );
}

export interface EvalInputs {
  readonly source: CorpusSource;
  readonly kb: KnowledgeBase;
  readonly questions: readonly EvalQuestion[];
  /** Where the questions came from, for the report. */
  readonly origin: string;
  readonly external: boolean;
  /** Where the bands in force come from: this corpus's thresholds.json, the shipped model, or `--model FILE`. */
  readonly bandsFrom: 'corpus' | 'shipped' | 'model';
  /** `--questions FILE --skip-bad`: the lines left out, and why (none left out: empty). */
  readonly skipped?: readonly SkippedLine[];
  /** `--feedback`: the marks left out as a newer mark of their question is kept (S-287), for the `--json` report. */
  readonly marksLeftOut?: readonly MarkLeftOutLine[];
}

/** A mark `eval --feedback` left out, as the `--json` report lists it (`marksLeftOut`). */
export interface MarkLeftOutLine {
  readonly runId: string;
  readonly question: string;
  readonly label: string;
  readonly kind: 'conflict' | 'repeat';
  readonly keptRunId: string;
  readonly keptLabel: string;
}

/**
 * Corpus + questions: an external file, people's marks on runs (`feedback`,
 * read from the agent's database and converted by feedbackToQuestion — an
 * external set like a file), the corpus's questions.jsonl, or a fresh generation.
 */
export async function evalInputs(options: {
  corpus?: string;
  questions?: string;
  feedback?: boolean;
  skipBad: boolean;
  seed?: number;
  /** The shipped model's bands even where the corpus has its own thresholds.json (calibrate compares against them). */
  shippedBands?: boolean;
  /** Another answerability model than the shipped one (`eval --model FILE`). */
  model?: AnswerabilityModel;
}): Promise<EvalInputs> {
  if (options.feedback && options.questions) throw new UserError('pass --questions FILE or --feedback, not both: each is the whole question set.');
  // The marks first: no database or no marks fails in one line before the corpus is indexed.
  const marked = options.feedback ? await loadFeedbackQuestions() : null;
  const source = loadCorpusSource(options.corpus);
  // Before the corpus is indexed: the version is the documents' digest, the one the runs recorded (KnowledgeBase.version).
  if (marked) checkMarkedCorpus(marked, source, corpusVersion(source.documents), options.corpus === undefined);
  // S-085: a model given with --model is scored with its own bands, never this corpus's thresholds.json. Those are
  // lines calibrate drew on the shipped model's answerability, often on the very questions being scored; laid over
  // another model's ratings they are lines on another scale, and a model held out of this corpus (`npm run train --
  // --exclude … --out FILE`) was scored with bands it was not trained with — perhaps chosen on this corpus, which
  // it was held out of. An honest held-out figure is the model as it was trained: weights and bands together.
  const corpusBands = source.thresholds !== null && !options.shippedBands && !options.model;
  const kb = await knowledgeBaseOf(source, { shippedBands: !corpusBands, ...(options.model ? { model: options.model } : {}) });
  const base = { source, kb, bandsFrom: options.model ? 'model' : corpusBands ? 'corpus' : 'shipped' } as const;
  if (marked) {
    noteOneLabel(marked.questions);
    noteMarks(marked);
    const marksLeftOut = marked.leftOut.map((m) => ({
      runId: m.runId,
      question: m.question,
      label: m.label,
      kind: m.kind,
      keptRunId: m.kept.runId,
      keptLabel: m.kept.label,
    }));
    return { ...base, questions: marked.questions, origin: marked.origin, external: true, marksLeftOut };
  }
  if (options.questions) {
    const { questions, skipped } = readQuestionSet(options.questions, options.skipBad);
    return { ...base, questions, origin: options.questions, external: true, ...(options.skipBad ? { skipped } : {}) };
  }
  const shipped = join(source.root, 'questions.jsonl');
  if (existsSync(shipped) && options.seed === undefined) {
    return { ...base, questions: readQuestionFile(shipped, false), origin: shipped, external: false };
  }
  const questions = generateQuestions({
    chunks: kb.chunks,
    estate: source.estate,
    gaps: gapsOf(source),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
  });
  if (questions.length < 20)
    throw new UserError(`only ${questions.length} questions could be generated from ${source.root}; pass --questions FILE with a labelled set.`);
  // A library with no GAPS.md and no estate gives the generator nothing to write unanswerable questions from: every
  // one was answerable, bands were fitted at 0 and "false answers 0.0%, false refusals 0.0%" printed (S-148).
  if (!questions.some((q) => q.label === 'unanswerable'))
    throw new UserError(
      `the ${questions.length} questions generated from ${source.root} are all answerable (the generator writes unanswerable ones only from a GAPS.md or an estate.json), so false answers cannot be measured on them. Write questions in your on-call engineers' words, some the library cannot answer, and pass --questions FILE.`,
    );
  return { ...base, questions, origin: `the questions generated from ${source.root}`, external: false };
}

/**
 * What the marks' question set left out or leaves unscored, said on stderr as the export says it: a question's older
 * marks (S-287: two marks of one question, one right and one wrong-answer, counted one answer as a false answer and a
 * right answer), and right answers naming no passage (S-286).
 */
function noteMarks(marked: FeedbackQuestionSet): void {
  const lines = leftOutWords(marked.leftOut);
  const unconfirmed = unconfirmedSourceWords(marked.questions);
  if (unconfirmed) lines.push(unconfirmed);
  for (const line of lines) process.stderr.write(`sandscope: note: ${line.trimStart()}\n`);
}

const marksWords = (n: number) => `${n} mark${n === 1 ? '' : 's'}`;

/**
 * Marks are scored on the library their runs were answered from. `eval --feedback` without --corpus scored marks on
 * runs a `CORPUS_DIR=lib serve` had answered against the bundled corpus: their cited passages matched nothing there and
 * their questions were another library's, so it printed "false refusals 100%" and "2 question(s) not scored", with
 * only a parenthetical warning (S-210). Without a library named, marks on runs of another corpus version are refused;
 * with one named (--corpus or CORPUS_DIR) they are scored, with a note, as a library edited since its runs must be.
 */
function checkMarkedCorpus(marked: FeedbackQuestionSet, source: CorpusSource, version: string, bundled: boolean): void {
  const other = marked.corpusVersions.filter((v) => v.corpusVersion !== version);
  if (other.length === 0) return;
  const total = marked.corpusVersions.reduce((n, v) => n + v.marks, 0);
  const each = (vs: typeof marked.corpusVersions) =>
    vs.map((v) => `${v.corpusVersion} (${marksWords(v.marks)}${v.corpusVersion === version ? ', this corpus’s' : ''})`).join(', ');
  if (bundled) {
    const from =
      marked.corpusVersions.length === 1
        ? `the ${total === 1 ? 'marked run was' : `${total} marked runs were`} answered from corpus version ${other[0]!.corpusVersion}`
        : `the ${total} marks are on runs answered from ${marked.corpusVersions.length} corpus versions, ${each(marked.corpusVersions)}`;
    throw new UserError(
      `${from}, but without --corpus they would be scored on the bundled corpus at ${source.root} (version ${version}). Pass --corpus DIR (or set CORPUS_DIR) for the library the agent answered them from; to score them on the bundled corpus all the same, pass --corpus ${shellArg(source.root)}.`,
    );
  }
  const others = other.reduce((n, v) => n + v.marks, 0);
  process.stderr.write(
    `sandscope: note: ${others} of the ${marksWords(total)} are on runs answered from another corpus version than the library at ${source.root} (version ${version}): ${each(other)}. They are scored on its text as it is now, which is right if it was edited since; if the agent answered them from another library, pass that one with --corpus DIR.\n`,
  );
}

export function parseFolds(raw: string | undefined): number {
  if (raw === undefined) return 5;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 2 || n > 20) throw new UserError(`--folds must be a whole number from 2 to 20 (got "${raw}").`);
  return n;
}

export function parseSeed(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UserError(`--seed must be a non-negative whole number (got "${raw}").`);
  return n;
}

/** Whether the model in force learned from this corpus folder: its figures on the corpus are then in-sample. */
export function trainedOnCorpus(inputs: Pick<EvalInputs, 'kb' | 'source'>): boolean {
  return (inputs.kb.model.trainedOn ?? []).some((t) => t.corpus === basename(inputs.source.root));
}

/**
 * When the bands in force are this corpus's own (thresholds.json): which of the questions scored `calibrate` fitted
 * them on. Those figures are a memory of the set, not a measurement of it (the seed's D-001); matched by the questions'
 * text, not by the file's path (S-280). Null when the bands are not the corpus's.
 */
export function bandsFittedOnSet(inputs: Pick<EvalInputs, 'source' | 'bandsFrom'>, questions: readonly string[], questionsFile?: string): FittedOn | null {
  const thresholds = inputs.bandsFrom === 'corpus' ? inputs.source.thresholds : null;
  return thresholds ? fittedOnOf(thresholds, questions, questionsFile) : null;
}

/**
 * `--model FILE`: a model written by `npm run train -- --exclude a,b --out FILE`, to score those corpora with a model
 * that never learned from them, the shipped model left as it is. Anything else is a one-line error naming the file.
 */
export function readModelFile(file: string): AnswerabilityModel {
  if (!existsSync(file)) throw new UserError(`--model ${file}: no such file. Write one with npm run train -- --exclude a,b --out ${shellArg(file)}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UserError(`--model ${file}: not JSON. Write one with npm run train -- --exclude a,b --out ${shellArg(file)}`);
  }
  const parsed = parseModel(raw);
  if (!parsed.ok) throw new UserError(`--model ${file}: ${parsed.message}`);
  return parsed.model;
}
