import type { Band, Chunk, RefusalClaim, ScoredChunk, Verdict } from '../types.ts';
import { type AnswerabilityFeatures, type PassageFeatures, passes, questionVector } from './features.ts';
import { type ValueConflict, valueConflict } from './value-conflict.ts';
import { type AnswerabilityModel, type Bands, contributions, type LogisticStage, logOdds, probability } from './model.ts';
import { NUMBERS_PREFIX } from './reason-format.ts';
import { offerLines } from './ask-again.ts';
import { roleFor } from './section-role.ts';

export interface Assessment {
  readonly band: Band;
  /** dense × BM25 of the strongest passage (the seed's product score, still reported); null when degraded. */
  readonly score: number | null;
  /** The model's probability that the library answers the question; null when degraded (never scored). */
  readonly answerability: number | null;
  readonly coverage: number;
  /** Plain sentences first; the numbers behind them after. */
  readonly reasons: readonly string[];
  readonly degraded: boolean;
  /** The passage the model rates most likely to answer, or null when nothing was retrieved. */
  readonly best: ScoredChunk | null;
  /**
   * The passages a refusal points the reader at: `best` and the next most likely, at most `NEAREST_NAMED`, best first;
   * empty when `best` is null. Naming one, a false refusal named the passage that answers about two times in three
   * (S-106's count); the passage stage's choice among what the gate read is what misses (S-172).
   */
  readonly nearest: readonly ScoredChunk[];
  /** P(this passage answers) per retrieved passage, in retrieval order (empty when degraded). */
  readonly probabilities: readonly number[];
  readonly features: AnswerabilityFeatures;
}

export interface Adjudication {
  /** Adjudication lets an answer through flagged partial, or refuses. It never upgrades to sufficient. */
  readonly decision: 'partial' | 'refuse';
  readonly reasons: readonly string[];
  readonly carrier: ScoredChunk | null;
  /** A refusal by a reader that read the passages claims they do not answer; without it, the decision's claim stands. */
  readonly refusal?: RefusalClaim;
}

/** The whole decision for one question: band, adjudication, verdict, and the passages to answer from. */
export interface Decision {
  readonly assessment: Assessment;
  readonly adjudication: Adjudication | null;
  readonly verdict: Verdict;
  readonly reasons: readonly string[];
  /** Passages to draft from, the answering one first. Empty on refusal. */
  readonly evidence: readonly Chunk[];
  /** What a refusal claims; null when the decision is not a refusal. */
  readonly refusal: RefusalClaim | null;
}

/** The model's two readings of a question: each passage's probability, and the question's. */
export interface Ratings {
  readonly probabilities: readonly number[];
  readonly answerability: number;
  /** The question stage's input, kept for the reasons (which features pushed it down). */
  readonly vector?: readonly number[];
}

/** A softmax of the passage stage's scores: which passage answers IF any does. */
export function passageProbabilities(stage: LogisticStage, f: AnswerabilityFeatures): number[] {
  return softmax(f.passages.map((p) => logOdds(stage, p.vector)));
}

function softmax(s: readonly number[]): number[] {
  const m = Math.max(...s);
  const e = s.map((v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** Rate a question's passages and then the question (null when degraded: a degraded run is never scored). */
export function rate(f: AnswerabilityFeatures, model: AnswerabilityModel): Ratings | null {
  if (f.degraded || f.passages.length === 0) return null;
  const scores = f.passages.map((p) => logOdds(model.passage, p.vector));
  const probabilities = softmax(scores);
  const vector = questionVector(f, probabilities, scores);
  return { probabilities, answerability: probability(model.question, vector), vector };
}

/** The verdict arithmetic alone: what `decideAnswerability` decides, without its sentences. */
export interface BandVerdict {
  readonly band: Band;
  readonly verdict: Verdict;
  readonly answerability: number | null;
  /** Index of the passage answered from (best when sufficient, carrier when partial), or −1 on refusal. */
  readonly answeredFrom: number;
  /** Index of the passage the model rates highest (−1 when nothing was retrieved). */
  readonly bestIndex: number;
  /** Refused because another passage states a different value for what was asked (issue 12, defect 9). */
  readonly conflict?: ValueConflict;
}

/**
 * How many passages a refusal names, best first: a short list a person reads at 3am, half of the six the gate reads.
 * Chosen before it was measured; not tuned on any figure.
 */
export const NEAREST_NAMED = 3;

/** Passage indexes by the model's rating, most likely first (retrieval order when unrated). */
function byRating(f: AnswerabilityFeatures, ratings: Ratings | null): number[] {
  const order = f.passages.map((_, i) => i);
  return ratings ? order.sort((a, b) => ratings.probabilities[b]! - ratings.probabilities[a]!) : order;
}

/**
 * The decision as arithmetic on the ratings. `decideAnswerability` is this plus
 * its reasons; the evaluation's band sweep calls this directly, so the verdict
 * the product gives and the verdict the evaluation scores are one computation
 * (the old `verdictOf` mirrored `decide` and could drift from it).
 * Sufficient needs the band AND a best passage that fails no check; ambiguous
 * goes to adjudication, which lets through, flagged partial, the most likely
 * passage that fails no check — or refuses. It never upgrades to sufficient.
 */
export function bandVerdict(f: AnswerabilityFeatures, ratings: Ratings | null, bands: Bands): BandVerdict {
  // A question with words the tokenizer cannot read was measured on the rest of it, so no rating of it stands (S-109).
  if (f.passages.length === 0 || f.terms.length === 0 || f.unreadWords.length > 0)
    return { band: 'insufficient', verdict: 'refused', answerability: null, answeredFrom: -1, bestIndex: -1 };
  const order = byRating(f, ratings);
  const best = order[0]!;
  const P = ratings?.answerability ?? null;
  if (P !== null && P < bands.insufficientBelow) return { band: 'insufficient', verdict: 'refused', answerability: P, answeredFrom: -1, bestIndex: best };
  const sufficient = P !== null && P >= bands.sufficientAbove && passes(f.passages[best]!, f);
  const answeredFrom = sufficient ? best : (order.find((i) => passes(f.passages[i]!, f)) ?? -1);
  const band = sufficient ? 'sufficient' : 'ambiguous';
  const conflict = answeredFrom >= 0 ? valueConflict(f, answeredFrom) : null;
  if (conflict) return { band, verdict: 'refused', answerability: P, answeredFrom: -1, bestIndex: best, conflict };
  return { band, verdict: sufficient ? 'answered' : answeredFrom >= 0 ? 'partial' : 'refused', answerability: P, answeredFrom, bestIndex: best };
}

/** What a passage plainly fails, in words (the same checks as `passes`). */
export function failuresOf(p: PassageFeatures, f: AnswerabilityFeatures): string[] {
  const out: string[] = [];
  if (p.missingEntities.length) out.push(`it never names ${p.missingEntities.join(', ')}`);
  if (p.valueMissing) out.push(`it states no ${f.demanded} for what was asked`);
  if (p.disclaims) out.push('it says it does not cover this');
  if (p.rolePlaceholder || p.placeholderAsked) out.push(`the section asked for (“${p.askedHeading}”) is empty, a placeholder or only points elsewhere`);
  if (p.postmortemRecord) out.push('it is a postmortem record (timeline or action items), not a remedy');
  if (f.intent.intent === 'yes-no' && p.propositionMissing) out.push(`its document never mentions ${unsaid(p.propositionUnsaid.document)}`);
  return out;
}

/** The passage with the entities `by` names counted as named: `by` is a passage of the same document. */
const groundedBy = (p: PassageFeatures, by: PassageFeatures): PassageFeatures => ({
  ...p,
  missingEntities: p.missingEntities.filter((e) => by.missingEntities.includes(e)),
});

const pct = (p: number, decimals = 0) => `${(p * 100).toFixed(decimals)}%`;
/**
 * Decimals enough to tell a rating from each line it is read against (at most two): a question refused at 0.841
 * against a line at 0.845 read "answerability 84% (refuse below 84%, answer from 84%)" (S-089).
 */
function decimalsApart(p: number, lines: readonly number[]): number {
  let digits = 0;
  while (digits < 2 && lines.some((l) => l !== p && (l * 100).toFixed(digits) === (p * 100).toFixed(digits))) digits++;
  return digits;
}
const quoted = (words: readonly string[]) => words.map((w) => `“${w}”`).join(', ');
const unsaid = (words: readonly string[]) => (words.length ? quoted(words) : 'what the question asks about');
const where = (p: PassageFeatures) => `“${p.result.chunk.heading}” in ${p.result.chunk.docTitle}`;

/** Plain words for what pushed a rating down or up: the reason a person reads first. */
const AGAINST: Record<string, (p: PassageFeatures, f: AnswerabilityFeatures) => string> = {
  missingEntity: (p) => `it never names ${p.missingEntities.join(', ')}`,
  bestMissingEntity: (p) => `it never names ${p.missingEntities.join(', ')}`,
  unknownTopicShare: (_, f) =>
    f.unknownWords.length ? `the library never mentions ${quoted(f.unknownWords)}` : 'the question uses words the library never does',
  unknownNounShare: (_, f) =>
    f.unknownNounWords.length ? `the library never mentions ${quoted(f.unknownNounWords)}` : 'the library never names what the question is about',
  retrievedCoverage: (_, f) =>
    f.missingWords.length ? `nothing retrieved mentions ${quoted(f.missingWords)}` : 'what was retrieved covers little of the question',
  topicCoverage: () => 'it shares few of the question’s words',
  bestTopicCoverage: () => 'it shares few of the question’s words',
  nounCoverage: () => 'it does not name what the question is about',
  bestNounCoverage: () => 'it does not name what the question is about',
  predicateCoverage: () => 'it does not carry what the question asks about',
  documentCoverage: () => 'its document is about something else',
  bestDocumentCoverage: () => 'its document is about something else',
  missingNameFromDocument: () => 'the question names something its document does not',
  bestMissingName: () => 'the question names something its document does not',
  missingNameFromPassage: () => 'the question names something it does not',
  headingCoverage: () => 'its heading is about something else',
  valueMissing: (_, f) => `it states no ${f.demanded} for what was asked`,
  bestValueMissing: (_, f) => `it states no ${f.demanded} for what was asked`,
  rolePlaceholder: (_, f) => `the ${roleFor(f.intent.intent)} section is empty, a placeholder or only points elsewhere`,
  bestRolePlaceholder: (_, f) => `the ${roleFor(f.intent.intent)} section is empty, a placeholder or only points elsewhere`,
  placeholder: () => 'its section is empty, a placeholder or only points elsewhere',
  roleElsewhereInDocument: (_, f) => `it is not the document’s ${roleFor(f.intent.intent)} section`,
  roleAbsentFromDocument: (_, f) => `its document has no ${roleFor(f.intent.intent)} section`,
  otherRole: (p) => `its heading (“${p.result.chunk.heading}”) answers a different kind of question`,
  postmortemRecord: () => 'it is a postmortem record (timeline or action items), not a remedy',
  disclaims: () => 'it says it does not cover this',
  // Only the words it lacks, as the question wrote them: "never mentions lose log logrot copytrunc tail input"
  // listed every stem of the remedy, of a document that uses all but one of them (S-120).
  propositionMissingFromDocument: (p) => `its document never mentions ${unsaid(p.propositionUnsaid.document)}`,
  bestPropositionMissing: (p) => `its document never mentions ${unsaid(p.propositionUnsaid.document)}`,
  propositionMissingFromPassage: (p) => `it never mentions ${unsaid(p.propositionUnsaid.passage)}`,
  bestScore: () => 'no passage looks like an answer',
  // The check it fails, by name: "the best passage fails a check" left a person guessing which (S-133).
  bestPasses: (p, f) => failuresOf(p, f)[0] ?? 'the best passage fails a check',
};
const FOR: Record<string, (p: PassageFeatures, f: AnswerabilityFeatures) => string> = {
  roleMatch: (_, f) => `its heading is the ${roleFor(f.intent.intent)} section the question asks for`,
  bestRoleMatch: (_, f) => `its heading is the ${roleFor(f.intent.intent)} section the question asks for`,
  topicCoverage: () => 'it carries the question’s words',
  bestTopicCoverage: () => 'it carries the question’s words',
  nounCoverage: () => 'it names what the question is about',
  bestNounCoverage: () => 'it names what the question is about',
  predicateCoverage: () => 'it carries what the question asks about',
  headingCoverage: () => 'its heading names what was asked',
  documentCoverage: () => 'its document is about what was asked',
  bestDocumentCoverage: () => 'its document is about what was asked',
  identifyingEntity: () => 'it names the alert or error the question names',
  valueCoverage: (_, f) => `it states the ${f.demanded} next to what was asked`,
  lexicalMatch: () => 'it matches the question’s rarer words',
  dense: () => 'its meaning is close to the question',
  bestScore: () => 'one passage clearly answers it',
  bestShare: () => 'one passage stands out from the rest',
};

/**
 * The AGAINST sentences that describe a LOW value of their feature ("it shares few of the question's words"); every
 * other sentence, for or against, describes a high one ("it never names X", "its heading is the section asked for").
 */
const SAID_OF_A_LOW_VALUE = new Set([
  'retrievedCoverage',
  'topicCoverage',
  'bestTopicCoverage',
  'nounCoverage',
  'bestNounCoverage',
  'predicateCoverage',
  'documentCoverage',
  'bestDocumentCoverage',
  'headingCoverage',
  'bestScore',
  'bestPasses',
]);

function explain(stage: LogisticStage, vector: readonly number[], p: PassageFeatures, f: AnswerabilityFeatures, sign: 1 | -1, n: number): string[] {
  const table = sign > 0 ? FOR : AGAINST;
  const out: string[] = [];
  for (const c of contributions(stage, vector)) {
    if (c.value * sign <= 0.15 || !table[c.feature]) continue;
    // A feature pushes the rating down from either side of its average, as its weight's sign has it; its sentence
    // says only one of them. "The question uses words the library never does" was given for a question whose words
    // the library all uses, because few unknown words lowered the rating under a positive weight (S-068).
    const j = stage.features.indexOf(c.feature);
    const high = vector[j]! > stage.mean[j]!;
    if (high === (sign < 0 && SAID_OF_A_LOW_VALUE.has(c.feature))) continue;
    const text = table[c.feature]!(p, f);
    if (!out.includes(text)) out.push(text);
    if (out.length === n) break;
  }
  return out;
}

/**
 * THE answerability decision: the engine's gate and the evaluation both call
 * this one function (issue 9 C). The passage stage rates each retrieved passage;
 * the question stage rates the question; its probability falls in one of three
 * bands (seed §Two): sufficient → answer; ambiguous (the model is unsure) →
 * adjudicate → partial or refuse; insufficient → refuse. A degraded retrieval is
 * ambiguous, never scored (seed §Four). Reasons lead with a sentence a person
 * understands; the numbers follow.
 */
export function decideAnswerability(
  f: AnswerabilityFeatures,
  model: AnswerabilityModel,
  bands: Bands = model.bands,
  /** A reader (`ADJUDICATOR=model`) reads the decision before it stands: a refusal below the lower line too (S-100). */
  read = false,
  /**
   * The run has a reader, though this decision is taken without it: one no model judged, decided under the offline
   * bands. Its refusal does not advise configuring a reader (S-252), and its numbers, like a read decision's, name
   * which bands they are read against: a run with a reader stated both (S-254).
   */
  withReader = read,
): Decision {
  const ratings = rate(f, model);
  const v = bandVerdict(f, ratings, bands);
  const base = {
    score: f.score,
    coverage: f.coverage,
    degraded: f.degraded,
    features: f,
    answerability: v.answerability,
    probabilities: ratings?.probabilities ?? [],
  };
  const best = v.bestIndex >= 0 ? f.passages[v.bestIndex]! : null;
  // S-163: a refusal offline said "the library does not answer this" below the adjudicated lower line and "unsure" above
  // it (S-089), and only the two offline lines were printed: a colleague saw 19% called absent and 21% unsure, and
  // nothing said where the claim changes. A refusal's numbers now give that line too (since S-222 the words below it
  // say the model rates no passage likely, not that the library does not answer).
  const claimLine = v.band === 'insufficient' && !read && model.adjudicatedBands ? model.adjudicatedBands.insufficientBelow : null;
  const lines = [bands.insufficientBelow, bands.sufficientAbove, ...(claimLine === null ? [] : [claimLine])];
  const apart = v.answerability === null ? 0 : decimalsApart(v.answerability, lines);
  // S-254: a run with a reader that no model judged gave "refuse below 20%" (the adjudicated bands, at assessment) and
  // "refuse below 84%" (the offline bands it was then decided under) with nothing to tell them apart.
  const which = withReader ? `${read ? 'adjudicated' : 'offline'} bands: ` : '';
  const numbers =
    v.answerability === null || !best
      ? null
      : `${NUMBERS_PREFIX}answerability ${pct(v.answerability, apart)} (${which}refuse below ${pct(bands.insufficientBelow, apart)}, answer from ${pct(bands.sufficientAbove, apart)}${claimLine === null ? '' : `; below ${pct(claimLine, apart)} a refusal says the model rates no passage likely, above it that the model is unsure`}); closest passage ${best.result.chunk.id} (${pct(ratings!.probabilities[v.bestIndex]!)} of the choice among the ${f.passages.length} retrieved, not a chance that it answers); product score ${f.score === null ? 'n/a' : f.score.toFixed(2)}`;
  // An answer that stands on part of the question says which part it does not: "how do I book annual leave?" was
  // answered from the edge gateway's steps, "leave" being a word the library uses in another sense, and the reasons
  // said only that the passage "carries what the question asks about" (S-075). What the library never mentions is
  // named beside every answer, so the reader can see what it was not about; the verdict is not touched.
  const unsupported = f.unknownWords.length
    ? [`The library never mentions ${quoted(f.unknownWords)}: this answers the rest of the question, so check that it is about what you asked.`]
    : [];
  const withNumbers = (lead: string, caveats: readonly string[] = []) => (numbers ? [lead, ...caveats, numbers] : [lead, ...caveats]);
  const nearest = best
    ? byRating(f, ratings)
        .slice(0, NEAREST_NAMED)
        .map((i) => f.passages[i]!.result)
    : [];
  // S-173: a word read as another is said after the lead of every decision, so the asker can see what was read.
  const respelled = f.respellings.length
    ? [
        `Read ${f.respellings.map((r) => `“${r.written}” as the library’s “${r.as}”`).join(', ')}: no dictionary here knows ${f.respellings.length > 1 ? 'them, and each is' : 'it, and it is'} one edit from a word the library uses.`,
      ]
    : [];
  // S-179: a slip left as typed ("faled": too short to read safely) is offered, on a refusal only, for the asker to type
  // again: a refusal of "why has the backup faled" that said only that the library never mentions "faled" left a
  // person at 3am to find the slip themselves. The verdict stands on the question as typed.
  const offered = offerLines(f.nearMisses);
  const assessment = (reasons: string[]): Assessment => ({
    ...base,
    band: v.band,
    reasons: [...reasons.slice(0, 1), ...respelled, ...reasons.slice(1)],
    best: best?.result ?? null,
    nearest,
  });
  const qv = ratings?.vector ?? [];
  const refuse = (a: Assessment, refusal: RefusalClaim, adjudication: Adjudication | null = null): Decision => {
    const after = 1 + respelled.length;
    const reasons = [...a.reasons.slice(0, after), ...offered, ...a.reasons.slice(after)];
    return { assessment: { ...a, reasons }, adjudication, verdict: 'refused', reasons: [...reasons, ...(adjudication?.reasons ?? [])], evidence: [], refusal };
  };

  // S-109: "订单数据库 orders-db 的连接池上限是多少？" was read as "orders-db" and answered with orders-db's replicas, marked
  // answered. Whether the library answers a question the index read only part of is not known, and the refusal says why.
  if (f.unreadWords.length)
    return refuse(
      assessment([
        `Not answered: the question has words the library's index cannot read (${quoted(f.unreadWords.slice(0, 3))}${f.unreadWords.length > 3 ? ', …' : ''}). It reads English in plain letters (a–z, 0–9), and an answer to the rest of the question could be about something else. Ask again in English, naming things as the library writes them.`,
      ]),
      'unread',
    );
  // S-161: "what is it?", "???!!!" and "on call couldnt fix it, now what" were headed "the library does not answer
  // this": the question names nothing a passage could be rated against, so nothing is known of the library, and the
  // refusal says what to ask instead. Its reason quotes the question's own words, never an example's.
  if (!best && !f.terms.length)
    return refuse(
      assessment([
        f.indexWords.length
          ? `Not answered: the question names no service, alert, symptom or value to rate a passage against: its words (${quoted(f.indexWords)}) say what kind of question it is, not what it is about. Ask again naming the one you mean.`
          : 'Not answered: the question has no word to look for. Ask again naming the service, alert, symptom or value you mean.',
      ]),
      'unasked',
    );
  if (!best) return refuse(assessment(['Nothing in the library matches the question.']), 'absent');
  if (v.band === 'insufficient') {
    // What the closest passage plainly fails comes first: it is so whatever the weights, where a contribution is only
    // how the rating moved. "… of the payments database?" was refused against orders-db's ceiling with "it states no
    // quantity for what was asked" — it states 100 connections — and not that it never names payments-db (S-169).
    const against = [...failuresOf(best, f), ...explain(model.question, qv, best, f, -1, 2), ...explain(model.passage, best.vector, best, f, -1, 2)]
      .filter((x, i, all) => all.indexOf(x) === i)
      .slice(0, 2);
    // S-089: offline the two lines coincide, so everything below the answer line was refused as "no passage answers
    // this" — also "OrdersDbPoolSaturated is firing, what do I do?", rated 0.841 against a line at 0.845, from the
    // runbook for that alert. Where a reader would have been asked (at or above the adjudicated lower line, the
    // ambiguous band of a run with a model adjudicator), the model is unsure, and the refusal says so and where to
    // look. The verdict is the same; only what it claims changes.
    const unsure = model.adjudicatedBands !== undefined && v.answerability !== null && v.answerability >= model.adjudicatedBands.insufficientBelow;
    // S-100: with a reader the refusal is read before it stands, so it claims only the model's rating; the reader's
    // judgement follows it, and may answer from a passage.
    // S-222: below the adjudicated lower line the refusal said "No passage in the library answers this", and on the
    // leave-one-corpus-out record that claim was false for 62 of its 470 refusals (13.2%): on a library it was not
    // trained on, no line on the model's rating makes it true 95 times in 100 (below 0.05 still 8.1% answerable). So
    // the rating claims no absence; only a reader's reading, or nothing retrieved at all, does. Nor does a library that
    // uses none of the question's topic words: claimed so, it was false for 3 of the record's 5 such refusals (a
    // question worded otherwise than its runbook). It still says the model rates no passage likely, and what the
    // closest plainly fails (the words the library never uses among them).
    // S-252: a run with a reader whose reader could not judge (over budget, every provider down) still advised "with a
    // reader configured (ADJUDICATOR=model), a model would judge it": one was configured.
    const lead = read
      ? `The model rates no passage likely to answer this. The closest, ${where(best)}, seems no answer: ${against.length ? against.join(', and ') : 'it is only loosely related'}. A reader reads the passages before it is refused.`
      : unsure
        ? `Not answered: the model is unsure whether the closest passage, ${where(best)}, answers this, and it answers only when sure${against.length ? ` (against it: ${against.join(', and ')})` : ''}. Read that passage yourself${withReader ? '' : '; with a reader configured (ADJUDICATOR=model), a model would judge it'}.`
        : `Not answered: the model rates no passage likely to answer this. The closest, ${where(best)}, seems no answer: ${against.length ? against.join(', and ') : 'it is only loosely related'}. A rating this low is still wrong now and then, so read that passage if it looks like what you asked.`;
    return refuse(assessment(withNumbers(lead)), 'unsure');
  }
  if (v.conflict) {
    const one = v.conflict.of;
    const lead = `The library disagrees with itself: ${where(one)} says “${one.valueSentence}”, and ${where(v.conflict.other)} says “${v.conflict.other.valueSentence}”. Ask the owner which holds; neither is given as the answer.`;
    return refuse(assessment(withNumbers(lead)), 'conflict');
  }
  if (v.band === 'sufficient') {
    const forIt = explain(model.passage, best.vector, best, f, 1, 2);
    // Issue 9 class 1 and E: "what do I do when X fires" is answered by X's procedure section. When the passage
    // rated best is the runbook's lead or another section, and the same document's procedure section was
    // retrieved and passes every check, the steps come from that section (S-038: which of a runbook's
    // sections the learned passage stage rates first moved with a retrain, and the steps went with it). A role
    // that only the title gives ("# Runbook: …" reads as a procedure heading) is no section to quote either: the
    // steps were the runbook's signals (S-054). A section of the same document need not name again what the
    // question names: a runbook introduces its alert once, and its steps section never repeats it (S-056), so an
    // entity the best passage names counts as named for the section. Nor need it have been retrieved when the best
    // passage is the document's lead, which speaks for the whole document: the steps section shares no word with
    // "what do I do when X fires?" (S-060). A section mid-document speaks only for itself, and a long document's
    // "What to do?" may be about something else (S-059, not adopted). This chooses what is quoted; the verdict is
    // already decided.
    const quotable = (p: PassageFeatures) => p !== best && p.roleBelowTitle && p.result.chunk.doc === best.result.chunk.doc && passes(groundedBy(p, best), f);
    const section = best.roleBelowTitle ? undefined : (f.passages.find(quotable) ?? (best.documentLead ? f.unretrievedSections.find(quotable) : undefined));
    const lead = section
      ? `Answered from ${where(section)}, the ${roleFor(f.intent.intent)} section of the document the question is about (${where(best)}).`
      : `Answered from ${where(best)}${forIt.length ? `: ${forIt.join(', and ')}` : ''}.`;
    // The evidence is the passage answered from and, when that is the role section, the passage that chose it. No
    // third: a clause that added passages "also rated at least 0.5" never fired once the passage stage became a
    // choice among the retrieved passages (softmax shares, 77fa659), since only the best can hold half (S-061).
    return {
      assessment: assessment(withNumbers(lead, unsupported)),
      adjudication: null,
      verdict: 'answered',
      reasons: withNumbers(lead, unsupported),
      evidence: section ? [section.result.chunk, best.result.chunk] : [best.result.chunk],
      refusal: null,
    };
  }
  const lead = f.degraded
    ? `Retrieval was degraded (${f.degradedReason ?? 'no dense signal'}), so the evidence is unresolved rather than weak: it is adjudicated, not scored.`
    : v.answerability! >= bands.sufficientAbove
      ? `The model rates this answerable from ${where(best)}, but ${failuresOf(best, f).join(', and ')} — moved down to ambiguous.`
      : `The model is unsure whether ${where(best)} answers this.`;
  const a = assessment(withNumbers(lead, v.verdict === 'partial' ? unsupported : []));
  if (v.verdict === 'partial') {
    const carrier = f.passages[v.answeredFrom]!;
    const adjudication: Adjudication = {
      decision: 'partial',
      carrier: carrier.result,
      reasons: [
        `Adjudicated partial: ${where(carrier)} fails none of the checks (it names what was asked${f.demanded ? ` and states a ${f.demanded}` : ''}); flagged partial, never upgraded to sufficient.`,
      ],
    };
    return {
      assessment: a,
      adjudication,
      verdict: 'partial',
      reasons: [...a.reasons, ...adjudication.reasons],
      evidence: [carrier.result.chunk],
      refusal: null,
    };
  }
  // The ambiguous band is where the model is unsure; a check its likeliest passage fails does not make it sure.
  return refuse(a, 'unsure', {
    decision: 'refuse',
    carrier: null,
    reasons: [`Adjudicated refuse: the most likely passage, ${where(best)}, fails — ${failuresOf(best, f).join('; ')}.`],
  });
}
