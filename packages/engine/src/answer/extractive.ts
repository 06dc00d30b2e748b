import { questionIntent } from '../answerability/question-intent.ts';
import { hazardOf } from '../corpus/passage-hazards.ts';
import { type DemandedValue, statesValue } from '../retrieval/question-shape.ts';
import { contentTerms, tokenize } from '../retrieval/tokenizer.ts';
import type { Chunk, Claim } from '../types.ts';
import { isReferral } from '../answerability/section-role.ts';
import { asksAboutRecord } from './postmortem-record.ts';
import { passageSections, procedureSteps, remedyBlocks, roleProse, sentencesInScope } from './procedure-steps.ts';
import { type SentenceBlock, sentenceBlocksOf, sentencesOf, type TextBlock, textSectionsOf } from './sentences.ts';
import { onlyMarkup } from '../corpus/site-markup.ts';

export interface ExtractiveOptions {
  /** Claims a previous draft got wrong; the next draft must not repeat them (D-005). */
  readonly feedback?: readonly string[];
  /** Upper bound on claims drafted by term overlap (default 3). */
  readonly maxClaims?: number;
  /**
   * Upper bound on a procedure's steps — list items, paragraphs, commands — not on its sentences (default 50).
   * A procedure is given whole — three steps of seven is a wrong procedure — so this only stops a runaway
   * list. Counted in sentences (25), it cut real runbooks' procedures part-way: twenty steps of a token
   * rotation, each a sentence and a command, ran past it (S-047).
   */
  readonly maxSteps?: number;
}

const normalise = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The claim a feedback line rejects. The verifier writes `Claim 2 "…": reasons`;
 * a bare sentence is taken whole. Matching only whole lines would make the
 * offline retry repeat the rejected claim — the identical re-prompt of D-005.
 */
function rejectedClaim(feedback: string): string {
  const quoted = /^Claim \d+ "([\s\S]*)": /.exec(feedback);
  return normalise(quoted ? quoted[1]! : feedback);
}

/**
 * The offline, deterministic extractive answerer: every claim is a sentence of
 * a retrieved passage, cited to that passage — there is no sentence without a
 * citation because there is no sentence it did not read. Passages come best
 * first (the first is the one the answerability model chose).
 *
 * What it drafts depends on what is asked (issue 9, part E):
 * - "what do I do" / "how do I check": the first passage's steps, whole and in
 *   order, commands verbatim (procedure-steps.ts); a postmortem's timeline and
 *   action items are never offered as the remedy (postmortem-record.ts).
 *   Without steps, sentences by term overlap from what is left.
 * - "how long / how many": sentences by term overlap, the one stating the value first.
 * - anything else: sentences by term overlap, in reading order.
 */
export function draftExtractive(question: string, passages: readonly Chunk[], options: ExtractiveOptions = {}): Claim[] {
  const rejected = new Set((options.feedback ?? []).map(rejectedClaim));
  const { intent, demanded } = questionIntent(question);
  // A passage's merged sections about another subject than the question's give nothing (S-208: sectionsInScope).
  const inScope = (chunk: Chunk) => sentencesInScope(question, chunk);
  const overlap = { maxClaims: options.maxClaims ?? 3, rejected, demanded, allowed: inScope };
  // A bare symptom ("rds restore failed with DBSnapshotAlreadyExists", "mailers queue has 300k jobs") asks
  // what to do about it as surely as "how do I fix it" does: answered by the runbook's steps, not three
  // sentences that share its words (issue 9, class 6).
  const asksSteps = intent === 'procedure' || intent === 'diagnosis' || (intent === 'lookup' && isStatement(question));
  if (!asksSteps) return draftByOverlap(question, passages, overlap);
  const keepRecord = asksAboutRecord(question);
  const first = passages[0];
  const role = intent === 'diagnosis' ? 'diagnosis' : 'procedure';
  const steps = first ? (procedureSteps(question, role, first, keepRecord) ?? roleProse(question, role, first, keepRecord)) : null;
  const drafted = first && steps ? draftSteps(steps, first.id, rejected, options.maxSteps ?? 50) : [];
  if (drafted.length > 0) return drafted;
  const remedies = (chunk: Chunk) => {
    const scoped = inScope(chunk);
    return new Set([...remedySentences(chunk)].filter((pos) => scoped.has(pos)));
  };
  return draftByOverlap(question, passages, { ...overlap, allowed: keepRecord ? inScope : remedies });
}

/** No question at all — no question mark, no question word: a symptom reported, as people type them at 3am. */
function isStatement(question: string): boolean {
  return !/\?/.test(question) && !/\b(?:what|which|who|whom|whose|where|when|why|how)\b/i.test(question);
}

/**
 * Every sentence of the steps, each its own claim cited to the passage, in
 * order, stopping (at a step's edge) after `maxSteps` steps. A rejected sentence is
 * left out; a command continued over lines (`\` at a line's end) is one command,
 * so a rejected line drops all of it — half a command is not a step.
 */
function draftSteps(blocks: readonly TextBlock[], id: string, rejected: ReadonlySet<string>, maxSteps: number): Claim[] {
  // A unit is what a rejection drops whole (a command and its continuation lines); a step is what the cap counts:
  // a fenced block is one step however many lines it has (S-058: a four-line manifest counted as four steps cut a
  // fifteen-step procedure after its tenth).
  const units: { texts: string[]; command: boolean; newStep: boolean }[] = [];
  blocks.forEach((b, i) => {
    const prev = blocks[i - 1];
    const sameFence = b.kind === 'code' && prev?.kind === 'code' && prev.fence === b.fence;
    if (sameFence && /\\$/.test(prev.sentences[0]!)) units[units.length - 1]!.texts.push(...b.sentences);
    else units.push({ texts: [...b.sentences], command: b.kind === 'code', newStep: !sameFence });
  });
  const out: Claim[] = [];
  let steps = 0;
  for (const unit of units) {
    const kept = unit.texts.filter((t) => !rejected.has(normalise(t)) && !hazardOf(t) && (unit.command || !onlyMarkup(t)));
    if (unit.command && kept.length < unit.texts.length) continue;
    if (kept.length === 0) continue;
    if (unit.newStep) {
      if (steps === maxSteps) break;
      steps++;
    }
    for (const text of kept) out.push({ text, citations: [id] });
  }
  return out;
}

/** The positions (in `sentencesOf(text)`) a remedy may be drafted from: not a postmortem's record, not a timeline line. */
function remedySentences(chunk: Chunk): Set<number> {
  const allowed = new Set<number>();
  for (const s of passageSections(chunk)) {
    if (s.record) continue;
    const kept = new Set(remedyBlocks(s.blocks));
    let pos = s.firstSentence;
    for (const b of s.blocks) {
      for (let k = 0; k < b.sentences.length; k++, pos++) if (kept.has(b)) allowed.add(pos);
    }
  }
  return allowed;
}

interface OverlapOptions {
  readonly maxClaims: number;
  readonly rejected: ReadonlySet<string>;
  readonly demanded: DemandedValue;
  /** The sentence positions each passage may give; all when absent. */
  readonly allowed?: (chunk: Chunk) => ReadonlySet<number>;
}

/**
 * Sentences picked by how many of the question's terms they carry (and whether
 * they state the value it demands), then put back in reading order — except the
 * sentence stating a demanded value, which comes first: "how long do backups
 * live?" is answered by "35 days", not by the paragraph that leads up to it.
 */
function draftByOverlap(question: string, passages: readonly Chunk[], options: OverlapOptions): Claim[] {
  const { rejected, demanded } = options;
  const terms = new Set(contentTerms(question));
  const candidates: { text: string; chunk: Chunk; rank: number; pos: number; score: number; value: boolean }[] = [];
  const usable: { chunk: Chunk; sentences: string[] }[] = [];
  passages.forEach((chunk, rank) => {
    const allowed = options.allowed?.(chunk);
    // One parse gives the sentences (sentencesOf's order) and the merged sub-heading each stands under.
    const blocks = sentenceBlocksOf(chunk.text);
    const sentences = blocks.flatMap((b) => b.sentences);
    if (allowed && allowed.size === 0) return;
    usable.push({ chunk, sentences: allowed ? sentences.filter((_, pos) => allowed.has(pos)) : sentences });
    const under = headingWordsBySentence(blocks);
    sentences.forEach((text, pos) => {
      if (allowed && !allowed.has(pos)) return;
      if (rejected.has(normalise(text)) || hazardOf(text) || onlyMarkup(text)) return;
      const tokens = new Set(tokenize(text));
      let overlap = 0;
      for (const t of terms) if (tokens.has(t) || under[pos]!.has(t)) overlap++;
      if (overlap === 0) return;
      const value = demanded !== null && statesValue(text, demanded);
      candidates.push({ text, chunk, rank, pos, score: overlap + (value ? 1.5 : 0) - rank * 0.35 - pos * 0.01, value });
    });
  });
  candidates.sort((a, b) => b.score - a.score || a.rank - b.rank || a.pos - b.pos);
  const picked = candidates.slice(0, options.maxClaims);
  const chosen = [...picked].sort((a, b) => a.rank - b.rank || a.pos - b.pos);
  const lead = picked.find((c) => c.value);
  if (lead) chosen.splice(0, chosen.length, lead, ...chosen.filter((c) => c !== lead));
  if (chosen.length === 0) {
    const first = usable[0];
    // Nothing shares the question's words: the passage's first sentence that says something, and one that says
    // more than where to look ("See [Polling Issues](#polling-issues) below for general information.") if it has one.
    const sayable = first?.sentences.filter((s) => !rejected.has(normalise(s)) && !hazardOf(s) && !onlyMarkup(s)) ?? [];
    const text = sayable.find((s) => !isReferral(s)) ?? sayable[0];
    return first && text ? [{ text, citations: [first.chunk.id] }] : [];
  }
  // A sentence that introduces a list ("If the API user is:") brings the list, whole and in order: without it the
  // answer ends on a colon (S-057). An item chosen on its own goes into its list's place; none is said twice.
  const said = new Set<string>();
  return chosen.flatMap((c) => {
    if (said.has(`${c.rank}:${c.pos}`)) return [];
    said.add(`${c.rank}:${c.pos}`);
    const claim = { text: c.text, citations: [c.chunk.id] };
    if (!/:\s*$/.test(c.text)) return [claim];
    const allowed = options.allowed?.(c.chunk);
    const sentences = sentencesOf(c.chunk.text);
    const list = listAfter(c.chunk, c.pos).filter(
      (pos) => !said.has(`${c.rank}:${pos}`) && (!allowed || allowed.has(pos)) && !rejected.has(normalise(sentences[pos]!)) && !hazardOf(sentences[pos]!),
    );
    for (const pos of list) said.add(`${c.rank}:${pos}`);
    return [claim, ...list.map((pos) => ({ text: sentences[pos]!, citations: [c.chunk.id] }))];
  });
}

/**
 * The words of the merged sub-heading each sentence stands under (in `sentencesOf(text)` order; none for the passage's
 * own body). A section's heading says what its sentences are about, and its body need not repeat it: "who do I
 * escalate PaymentsDbDiskFull to?" was answered with the runbook's first sentence, since the Escalation section's
 * "Page the payments-db owners on their rota" shares no word with the question, only its heading does (S-154). The
 * passage's own heading is left out: it is about every sentence of the passage alike, so it tells none apart, and it
 * would make every sentence of a passage named for the question's topic a candidate.
 */
function headingWordsBySentence(blocks: readonly SentenceBlock[]): ReadonlySet<string>[] {
  const none: ReadonlySet<string> = new Set();
  return blocks.flatMap((b) => {
    const words = b.subheading === null ? none : new Set(tokenize(b.subheading));
    return b.sentences.map(() => words);
  });
}

/**
 * The positions (in `sentencesOf(text)`) of the list that follows the sentence at `pos`, when that sentence ends
 * its paragraph and the next block of the same section is a list item: the list's items and the command lines
 * among them, up to the next paragraph, table or heading. Empty otherwise.
 */
function listAfter(chunk: Chunk, pos: number): number[] {
  let at = 0;
  for (const section of textSectionsOf(chunk.text)) {
    for (let b = 0; b < section.blocks.length; b++) {
      const block = section.blocks[b]!;
      const end = at + block.sentences.length;
      if (pos >= at && pos < end) {
        if (pos !== end - 1 || block.kind !== 'paragraph') return [];
        const out: number[] = [];
        let next = end;
        for (const item of section.blocks.slice(b + 1)) {
          if (item.kind === 'paragraph' || item.kind === 'table') break;
          for (let k = 0; k < item.sentences.length; k++) out.push(next + k);
          next += item.sentences.length;
        }
        const opensList = section.blocks[b + 1]?.kind === 'numbered' || section.blocks[b + 1]?.kind === 'bulleted';
        return opensList ? out : [];
      }
      at = end;
    }
  }
  return [];
}
