import type { Band, Verdict } from '@sandscope/api';
import type { AnswerabilityBands, EvalCorpusFigures, EvalFigures, EvalLatest, EvalTargets } from '@sandscope/api/evaluation';
import { probability, type ReplayRow } from '../../lib/bands';

/*
 * The evaluation report as the page reads it: every field of the wire report is
 * optional (an older or partial report must still render), so it is read ONCE
 * here into values the components can trust — a number that is not a finite
 * number is absent, a band that is not a probability is absent, a row without a
 * readable band and verdict is counted and left out.
 */

/**
 * Issue 9's targets (packages/eval/src/evaluate.ts, `DECISION_TARGETS`): used when
 * a report predates them, since a target is the product's, not the report's.
 */
export const DEFAULT_TARGETS: EvalTargets = { falseAnswerRate: 0.05, falseRefusalRate: 0.1, deferralRate: 0.25, rightSourceRate: 0.95 };

/** Which way a rate has to go to meet its target. */
export const TARGET_DIRECTION: Record<keyof EvalTargets, 'at most' | 'at least'> = {
  falseAnswerRate: 'at most',
  falseRefusalRate: 'at most',
  deferralRate: 'at most',
  rightSourceRate: 'at least',
};

export type TargetVerdict = 'met' | 'missed' | 'not measured';

export function againstTarget(key: keyof EvalTargets, value: number | undefined, target: number): TargetVerdict {
  if (value === undefined) return 'not measured';
  return (TARGET_DIRECTION[key] === 'at most' ? value <= target : value >= target) ? 'met' : 'missed';
}

/**
 * A target holds for each held-out corpus AND pooled (issue 9): a rate with a budget ("at most") is missed if any
 * corpus is over it, even when the pooled figure is under. Returns the verdict and how many corpora are over.
 */
export function againstTargetEverywhere(
  key: keyof EvalTargets,
  pooled: number | undefined,
  corpora: readonly Figures[],
  target: number,
): { verdict: TargetVerdict; over: number } {
  const verdict = againstTarget(key, pooled, target);
  if (TARGET_DIRECTION[key] !== 'at most' || corpora.length < 2) return { verdict, over: 0 };
  const over = corpora.filter((c) => againstTarget(key, c[key], target) === 'missed').length;
  return { verdict: over > 0 && verdict === 'met' ? 'missed' : verdict, over };
}

/**
 * Pooled (or one corpus's) figures: the shared contract's type (@sandscope/api/evaluation), as `figuresOf` reads them:
 * a rate the report holds as null, counted over nothing (S-281), is absent here, and shown as not measured.
 */
export type Figures = { [K in keyof EvalFigures]: Exclude<EvalFigures[K], null> };

/** seen: its errors were read while the decision was developed; unseen: not yet; not recorded: the report does not say. */
export type CorpusStatus = 'seen' | 'unseen' | 'not recorded';

export interface CorpusRow extends Figures {
  readonly name: string;
  readonly status: CorpusStatus;
  /** The README's own words, shown beside the one-word status. */
  readonly statusText?: string;
  readonly workable?: boolean;
  readonly bands?: AnswerabilityBands;
}

export interface ExplorerRow extends ReplayRow {
  readonly id: string;
  readonly corpus: string;
  readonly question: string;
  readonly mechanism: string;
}

/** What asking a typed refusal again with the question it offers does (S-180): packages/eval's `AskedAgain`, whole or absent. */
export type AskedAgainView = Record<(typeof ASKED_AGAIN_KEYS)[number], number>;
const ASKED_AGAIN_KEYS = ['offered', 'answerable', 'answered', 'rightSource', 'cleanAnswered', 'unanswerable', 'falseAnswers', 'cleanFalseAnswers'] as const;

/** The counts only when every one is a number: a sentence with a missing count would read as a measured zero. */
function askedAgainOf(v: unknown): { askedAgain: AskedAgainView } | Record<string, never> {
  if (!isObject(v)) return {};
  const counts = optionalNumbers(v, ASKED_AGAIN_KEYS);
  return ASKED_AGAIN_KEYS.every((k) => counts[k] !== undefined) ? { askedAgain: counts as AskedAgainView } : {};
}

export interface ReportView {
  readonly mode?: string;
  readonly pooled: Figures;
  readonly targets: EvalTargets;
  readonly corpora: readonly CorpusRow[];
  /** The generated set's cross-validation, the second figure (an upper bound). */
  readonly generated: (Figures & { readonly folds?: number }) | null;
  /** The same questions with one slip of the keys each, held out as the headline (S-177); null when not recorded. */
  readonly typed: (Figures & { readonly seed?: number; readonly untouched?: number; readonly askedAgain?: AskedAgainView }) | null;
  /** The bands in force, on the answerability probability; null when the report carries none (an older report). */
  readonly bands: AnswerabilityBands | null;
  /** The report carries the old score thresholds instead of bands: it predates the answerability model. */
  readonly legacy: boolean;
  readonly rows: readonly ExplorerRow[];
  /** Rows whose answerability is null (degraded, nothing retrieved): replayed as recorded. */
  readonly unscored: number;
  /** Rows left out because their band or verdict could not be read. */
  readonly unreadable: number;
  readonly byMechanism: readonly {
    readonly mechanism: string;
    readonly label: string;
    readonly n: number;
    readonly answered: number;
    readonly partial: number;
    readonly refused: number;
    readonly ambiguous: number;
  }[];
  readonly evidenceErrors: readonly { readonly corpus: string; readonly id: string; readonly message: string }[];
  readonly excluded: readonly string[];
  readonly askP50Ms?: number;
  readonly recordedAt?: string;
  /** With an LLM adjudicator (ADJUDICATOR=model): what the adjudicated bands decide alone, and what they defer. */
  readonly adjudicated?: {
    readonly falseAnswerRate: number;
    readonly falseRefusalRate: number;
    readonly deferralRate: number;
    readonly deferredAnswerable: number;
    readonly deferredUnanswerable: number;
  };
  /** A reader in the ambiguous band measured with an LLM's recorded judgements (`npm run reader:replay`): absent when the agent found none. */
  readonly replayedReader?: {
    readonly generatedAt?: string;
    readonly command?: string;
    /** What changed in the offline decision since the replay was printed, when it was not printed again. */
    readonly notRemeasuredSince?: string;
    readonly groups: readonly ReaderGroupRow[];
  };
  /** The source audit of the record's wrong-source answers (S-186) and the trust figure it makes: every count, or none. */
  readonly sourceAudit?: SourceAuditView;
}

/** Of the answers given, those that do not answer the question asked (packages/eval's `answersNotAnswering`), and the audit behind it. */
export interface SourceAuditView {
  readonly given: number;
  readonly notAnswering: number;
  readonly falseAnswers: number;
  readonly wrongSourceNotAnswering: number;
  readonly partly: number;
  /** Wrong-source answers, those judged, and how often the cited and the labelled (control) passage answered. */
  readonly wrong: number;
  readonly judged: number;
  readonly citedAnswers: number;
  readonly labelledAnswers: number;
}

/** Procedure answers that keep every step of their labelled section, of those answered. */
export interface StepsKept {
  readonly procedureAnswers: number;
  readonly kept: number;
}

/** One group of corpora held out together, pooled by the agent (packages/eval's `replayedReaderGroups`): the page only shows it. */
export interface ReaderGroupRow {
  readonly name: string;
  readonly corpora: readonly string[];
  /** Whether its errors had been read, in the summary's words ("seen: …", "unread: …"). */
  readonly read: string;
  readonly answerable: number;
  readonly unanswerable: number;
  readonly offline: { readonly falseAnswers: number; readonly falseRefusals: number; readonly falseAnswerRate: number; readonly falseRefusalRate: number };
  /** Procedure answers that keep every step of their labelled section, with the reader and offline; absent before they were counted. */
  readonly steps?: { readonly reader: StepsKept; readonly offline: StepsKept };
  readonly reader: {
    readonly falseAnswers: number;
    readonly falseRefusals: number;
    readonly falseAnswerRate: number;
    readonly falseRefusalRate: number;
    readonly deferralRate: number;
    /** The answers of the sufficient band it read before they were given (S-096), and how many it withheld; absent before S-096. */
    readonly answersRead?: { readonly read: number; readonly withheld: number };
    /** Of those, the answers it gave partial from another passage the gate read, the one it named (S-098); absent before S-098. */
    readonly answersMoved?: number;
    /** Questions answered partial from the search's next six passages, read before a refusal (S-097); absent before S-097. */
    readonly answeredDeeper?: number;
    /** Refusals below the lower line it read before they were given, and how many it let through (S-100); absent before S-100. */
    readonly refusalsRead?: { readonly read: number; readonly letThrough: number };
    /** Prompts it was sent over the group's questions: what it costs, which deferral does not count; absent before it was counted. */
    readonly calls?: number;
  };
}

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const BANDS: readonly Band[] = ['insufficient', 'ambiguous', 'sufficient'];
const VERDICTS: readonly Verdict[] = ['answered', 'partial', 'refused'];

/** Both bands as probabilities, or null (an older report's score thresholds are not bands). */
export function bandsOf(v: unknown): AnswerabilityBands | null {
  if (!isObject(v)) return null;
  const insufficientBelow = probability(v.insufficientBelow);
  const sufficientAbove = probability(v.sufficientAbove);
  return insufficientBelow === null || sufficientAbove === null ? null : { insufficientBelow, sufficientAbove };
}

function optionalNumbers<K extends string>(v: Loose, keys: readonly K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const k of keys) {
    const n = num(v[k]);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

function figuresOf(v: Loose): Figures {
  const keys = [
    'n',
    'answerable',
    'unanswerable',
    'falseAnswerRate',
    'falseRefusalRate',
    'deferralRate',
    'partialRate',
    'wrongSourceAnswers',
    'rightSourceRate',
    'procedureAnswers',
    'stepsCoveredRate',
    'refusalsNamingLabelled',
    'wrongSourceNamingLabelled',
    'refusalsClaimingAbsent',
    'answerableClaimedAbsent',
    'mrr',
    'recallAt6',
  ] as const satisfies readonly (keyof EvalFigures)[];
  const out: Record<string, number> = {};
  for (const k of keys) {
    const n = num(v[k]);
    if (n !== undefined) out[k] = n;
  }
  return out as Figures;
}

/**
 * A corpus's status in one word, from its README's sentence (packages/eval records
 * the sentence; e.g. "unseen until its first run at commit a026cb6, then seen"):
 * a corpus that was ever seen no longer measures generalisation, so "then seen" wins.
 */
export function corpusStatus(text: string | undefined): CorpusStatus {
  if (!text) return 'not recorded';
  const t = text.toLowerCase();
  if (/^\s*no status recorded/.test(t)) return 'not recorded';
  if (/\bthen seen\b|\bseen during\b|\bnot an unseen\b/.test(t)) return 'seen';
  if (/\bunseen\b/.test(t)) return 'unseen';
  if (/\bseen\b/.test(t)) return 'seen';
  return 'not recorded';
}

function corpusOf(v: unknown, i: number): CorpusRow | null {
  if (!isObject(v)) return null;
  const c = v as Loose & EvalCorpusFigures;
  const statusText = str(c.status);
  const bands = bandsOf(c.bands);
  const n = num(c.n) ?? num(c.questions);
  return {
    ...figuresOf(c),
    ...(n !== undefined ? { n } : {}),
    name: str(c.name) ?? `corpus ${i + 1}`,
    status: corpusStatus(statusText),
    ...(statusText && statusText.toLowerCase() !== 'no status recorded' ? { statusText } : {}),
    ...(typeof c.workable === 'boolean' ? { workable: c.workable } : {}),
    ...(bands ? { bands } : {}),
  };
}

function rowOf(v: unknown, recordedBands: (corpus: string) => AnswerabilityBands | null): ExplorerRow | null {
  if (!isObject(v)) return null;
  const band = v.band as Band;
  const verdict = v.verdict as Verdict;
  if (!BANDS.includes(band) || !VERDICTS.includes(verdict)) return null;
  const corpus = str(v.corpus) ?? '';
  const answerability = v.answerability === null || v.answerability === undefined ? null : probability(v.answerability);
  return {
    id: str(v.id) ?? '',
    corpus,
    question: str(v.question) ?? '',
    mechanism: str(v.mechanism) ?? '',
    label: str(v.label) ?? '',
    band,
    verdict,
    answerability,
    adjudicable: v.adjudicable === true,
    ...(typeof v.bestPasses === 'boolean' ? { bestPasses: v.bestPasses } : {}),
    recordedBands: recordedBands(corpus),
  };
}

/** The page's one reading of `GET /v1/eval/latest`. */
export function readReport(latest: Pick<EvalLatest, 'summary'> & { questions?: unknown; replayedReader?: unknown; sourceAudit?: unknown }): ReportView {
  const s: Loose = isObject(latest.summary) ? latest.summary : {};
  const mode = str(s.mode);
  const bands = bandsOf(s.bands);
  const corpora = list(s.corpora)
    .map(corpusOf)
    .filter((c): c is CorpusRow => c !== null);
  const targetsIn = isObject(s.targets) ? s.targets : {};
  const targets: EvalTargets = {
    falseAnswerRate: num(targetsIn.falseAnswerRate) ?? DEFAULT_TARGETS.falseAnswerRate,
    falseRefusalRate: num(targetsIn.falseRefusalRate) ?? DEFAULT_TARGETS.falseRefusalRate,
    deferralRate: num(targetsIn.deferralRate) ?? DEFAULT_TARGETS.deferralRate,
    rightSourceRate: num(targetsIn.rightSourceRate) ?? DEFAULT_TARGETS.rightSourceRate,
  };
  // the bands each row was scored with: its held-out corpus's (leave-one-corpus-out), or the report's (the shipped model);
  // cross-validation's folds are not named on the rows, so there the replay goes without
  const byCorpus = new Map(corpora.filter((c) => c.bands).map((c) => [c.name, c.bands!]));
  const recordedBands = (corpus: string): AnswerabilityBands | null =>
    mode === 'leave-one-corpus-out' ? (byCorpus.get(corpus) ?? null) : mode === 'shipped-model' ? bands : null;
  const rawRows = list(latest.questions);
  const rows = rawRows.map((r) => rowOf(r, recordedBands)).filter((r): r is ExplorerRow => r !== null);
  const g = isObject(s.generated) ? s.generated : null;
  const mechanisms = isObject(s.byMechanism) ? s.byMechanism : {};
  return {
    ...(mode ? { mode } : {}),
    pooled: figuresOf(s),
    targets,
    corpora,
    generated: g ? { ...figuresOf(g), ...(Array.isArray(g.corpora) ? { folds: g.corpora.length } : {}) } : null,
    typed: isObject(s.typed) ? { ...figuresOf(s.typed), ...optionalNumbers(s.typed, ['seed', 'untouched']), ...askedAgainOf(s.typed.askedAgain) } : null,
    bands,
    legacy: !bands && isObject(s.thresholds),
    rows,
    unscored: rows.filter((r) => r.answerability === null).length,
    unreadable: rawRows.length - rows.length,
    byMechanism: Object.entries(mechanisms)
      .filter((e): e is [string, Loose] => isObject(e[1]))
      .map(([mechanism, m]) => ({
        mechanism,
        label: str(m.label) ?? '',
        n: num(m.n) ?? 0,
        answered: num(m.answered) ?? 0,
        partial: num(m.partial) ?? 0,
        refused: num(m.refused) ?? 0,
        ambiguous: num(m.ambiguous) ?? 0,
      }))
      .sort((a, b) => b.n - a.n || a.mechanism.localeCompare(b.mechanism)),
    evidenceErrors: list(s.evidenceErrors)
      .filter(isObject)
      .map((e) => ({ corpus: str(e.corpus) ?? '', id: str(e.id) ?? '', message: str(e.message) ?? '' })),
    excluded: list(s.excluded).filter((x): x is string => typeof x === 'string'),
    ...(num(s.askP50Ms) !== undefined ? { askP50Ms: num(s.askP50Ms) } : {}),
    ...adjudicatedOf(s.adjudicated),
    ...replayedReaderOf(latest.replayedReader),
    ...sourceAuditViewOf(latest.sourceAudit),
    ...((str(s.generatedAt) ?? str(s.createdAt)) ? { recordedAt: str(s.generatedAt) ?? str(s.createdAt) } : {}),
  };
}

/** The source audit as the page shows it: every count present and the sums consistent, or no paragraph (half of it would read as a figure it is not). */
function sourceAuditViewOf(raw: unknown): { sourceAudit?: SourceAuditView } {
  if (!isObject(raw) || !isObject(raw.cited) || !isObject(raw.labelled)) return {};
  const n = [
    raw.given,
    raw.notAnswering,
    raw.falseAnswers,
    raw.wrongSourceNotAnswering,
    raw.partly,
    raw.wrong,
    raw.judged,
    raw.cited.yes,
    raw.labelled.yes,
  ].map(num);
  if (n.some((x) => x === undefined)) return {};
  const [given, notAnswering, falseAnswers, wrongSourceNotAnswering, partly, wrong, judged, citedAnswers, labelledAnswers] = n as number[];
  if (!judged || notAnswering !== falseAnswers! + wrongSourceNotAnswering! || notAnswering! > given!) return {};
  return {
    sourceAudit: {
      given: given!,
      notAnswering: notAnswering!,
      falseAnswers: falseAnswers!,
      wrongSourceNotAnswering: wrongSourceNotAnswering!,
      partly: partly!,
      wrong: wrong!,
      judged: judged!,
      citedAnswers: citedAnswers!,
      labelledAnswers: labelledAnswers!,
    },
  };
}

/** The adjudicated-band figures, when the report carries all of them (an older report does not). */
function adjudicatedOf(raw: unknown): { adjudicated?: NonNullable<ReportView['adjudicated']> } {
  if (!isObject(raw)) return {};
  const [fa, fr, d, da, du] = [
    num(raw.falseAnswerRate),
    num(raw.falseRefusalRate),
    num(raw.deferralRate),
    num(raw.deferredAnswerable),
    num(raw.deferredUnanswerable),
  ];
  if (fa === undefined || fr === undefined || d === undefined || da === undefined || du === undefined) return {};
  return { adjudicated: { falseAnswerRate: fa, falseRefusalRate: fr, deferralRate: d, deferredAnswerable: da, deferredUnanswerable: du } };
}

/** The replayed reader's groups that carry every figure the page shows; none readable, no section. */
function replayedReaderOf(raw: unknown): { replayedReader?: NonNullable<ReportView['replayedReader']> } {
  if (!isObject(raw)) return {};
  const groups = list(raw.groups)
    .map(readerGroupOf)
    .filter((g): g is ReaderGroupRow => g !== null);
  if (!groups.length) return {};
  const [generatedAt, command, since] = [str(raw.generatedAt), str(raw.command), str(raw.notRemeasuredSince)];
  return {
    replayedReader: { ...(generatedAt ? { generatedAt } : {}), ...(command ? { command } : {}), ...(since ? { notRemeasuredSince: since } : {}), groups },
  };
}

/** Both counts of both sides, or nothing: half a pair would show as a figure it is not. */
function stepsOf(v: unknown): { steps?: ReaderGroupRow['steps'] } {
  if (!isObject(v) || !isObject(v.reader) || !isObject(v.offline)) return {};
  const [rn, rk, on, ok] = [num(v.reader.procedureAnswers), num(v.reader.kept), num(v.offline.procedureAnswers), num(v.offline.kept)];
  if (rn === undefined || rk === undefined || on === undefined || ok === undefined) return {};
  return { steps: { reader: { procedureAnswers: rn, kept: rk }, offline: { procedureAnswers: on, kept: ok } } };
}

function readerGroupOf(v: unknown): ReaderGroupRow | null {
  if (!isObject(v) || !isObject(v.offline) || !isObject(v.reader)) return null;
  const name = str(v.name);
  const { offline: o, reader: r } = v;
  const counts = [num(v.answerable), num(v.unanswerable), num(o.falseAnswers), num(o.falseRefusals), num(o.falseAnswerRate), num(o.falseRefusalRate)];
  const readerFigures = [num(r.falseAnswers), num(r.falseRefusals), num(r.falseAnswerRate), num(r.falseRefusalRate), num(r.deferralRate)];
  if (!name || [...counts, ...readerFigures].some((n) => n === undefined)) return null;
  const [answerable, unanswerable, ofa, ofr, ofaRate, ofrRate] = counts as number[];
  const [rfa, rfr, rfaRate, rfrRate, deferralRate] = readerFigures as number[];
  return {
    name,
    corpora: list(v.corpora).filter((c): c is string => typeof c === 'string'),
    read: str(v.read) ?? 'not recorded',
    answerable: answerable!,
    unanswerable: unanswerable!,
    offline: { falseAnswers: ofa!, falseRefusals: ofr!, falseAnswerRate: ofaRate!, falseRefusalRate: ofrRate! },
    ...stepsOf(v.steps),
    reader: {
      falseAnswers: rfa!,
      falseRefusals: rfr!,
      falseAnswerRate: rfaRate!,
      falseRefusalRate: rfrRate!,
      deferralRate: deferralRate!,
      ...answersReadOf(r.answersRead),
      ...byLabelOf('answersMoved', r.answersMoved),
      ...byLabelOf('answeredDeeper', r.answeredDeeper),
      ...refusalsReadOf(r.refusalsRead),
      ...(num(r.calls) === undefined ? {} : { calls: num(r.calls)! }),
    },
  };
}

/** A count by label (answerable, unanswerable) as the page shows it, their sum: both present, or none. */
function byLabelOf<K extends 'answersMoved' | 'answeredDeeper'>(key: K, v: unknown): { [k in K]?: number } {
  if (!isObject(v)) return {};
  const [a, u] = [num(v.answerable), num(v.unanswerable)];
  return a === undefined || u === undefined ? {} : ({ [key]: a + u } as { [k in K]?: number });
}

/** The reads of S-100 as the page shows them: every count present, or none. */
function refusalsReadOf(v: unknown): { refusalsRead?: { read: number; letThrough: number } } {
  if (!isObject(v)) return {};
  const n = [num(v.answerable), num(v.unanswerable), num(v.answerableLetThrough), num(v.unanswerableLetThrough)];
  if (n.some((x) => x === undefined)) return {};
  const [a, u, al, ul] = n as number[];
  return { refusalsRead: { read: a! + u!, letThrough: al! + ul! } };
}

/** The reads of S-096 as the page shows them: every count present, or none. */
function answersReadOf(v: unknown): { answersRead?: { read: number; withheld: number } } {
  if (!isObject(v)) return {};
  const n = [num(v.answerable), num(v.unanswerable), num(v.answerableWithheld), num(v.unanswerableWithheld)];
  if (n.some((x) => x === undefined)) return {};
  const [a, u, aw, uw] = n as number[];
  return { answersRead: { read: a! + u!, withheld: aw! + uw! } };
}
