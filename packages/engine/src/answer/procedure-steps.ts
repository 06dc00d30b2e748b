import type { Role } from '../answerability/section-role.ts';
import { contentTerms, tokenize } from '../retrieval/tokenizer.ts';
import type { Chunk } from '../types.ts';
import { headingRoles, isPostmortemDocument, isTimelineLine } from './postmortem-record.ts';
import { type TextBlock, textSectionsOf } from './sentences.ts';

/** The passage's own body or one merged sub-section, with what it is for. */
export interface PassageSection {
  readonly heading: string;
  /** Its depth: the passage's own (`##` when the chunk does not say) or the merged sub-heading's. */
  readonly level: number;
  /** Its heading's roles or, when the heading names none, those of the heading it stands under. */
  readonly roles: readonly Role[];
  /** A postmortem's timeline, action items or lessons, or a section under one (postmortem-record.ts). */
  readonly record: boolean;
  readonly blocks: readonly TextBlock[];
  /** Where its first sentence stands in `sentencesOf(passage.text)`. */
  readonly firstSentence: number;
  /** Its heading and the headings it stands under, outermost first: the passage's path and heading, then merged ones. */
  readonly chain: readonly string[];
}

/**
 * A passage cut at its merged sub-headings, each part with its roles. Short
 * sections merge into one passage, so "## Mitigation" and "## Escalation" (or a
 * postmortem's "## Root cause" and "## Action items") travel together; each is
 * read for what its own heading says it is. A sub-section whose heading names no
 * role takes its parent's ("### Option A" under "## Mitigation"); the passage's
 * own body, its path's.
 */
export function passageSections(chunk: Chunk): PassageSection[] {
  const inPostmortem = isPostmortemDocument(chunk.doc, chunk.docTitle);
  let outer: { readonly roles: readonly Role[]; readonly record: boolean } = { roles: [], record: false };
  for (const h of [...(chunk.path ?? [])].reverse()) {
    const r = headingRoles(h, inPostmortem);
    if (r.roles.length) {
      outer = r;
      break;
    }
  }
  const out: PassageSection[] = [];
  let firstSentence = 0;
  for (const s of textSectionsOf(chunk.text)) {
    const heading = s.heading ?? chunk.heading;
    const level = s.level ?? chunk.level ?? 2;
    const own = headingRoles(heading, inPostmortem);
    let parent = outer;
    if (s.heading !== null) {
      for (let j = out.length - 1; j >= 0; j--) {
        if (out[j]!.level < level) {
          parent = out[j]!;
          break;
        }
      }
    }
    const inherited = own.roles.length === 0;
    out.push({
      heading,
      level,
      roles: inherited ? parent.roles : own.roles,
      record: own.record || (inherited && parent.record),
      blocks: s.blocks,
      firstSentence,
      chain: [...chainAbove(chunk, out, s.heading === null ? null : level), heading],
    });
    firstSentence += s.blocks.reduce((n, b) => n + b.sentences.length, 0);
  }
  return out;
}

/**
 * The headings a section stands under. The passage's own body stands under the passage's path; a merged sub-section
 * under the nearest section before it of a shallower level, or, when there is none (a sibling of the passage's own
 * heading that merged into it, `## users-db` after `## orders-db`), under as much of the path as its level allows.
 */
function chainAbove(chunk: Chunk, before: readonly PassageSection[], level: number | null): readonly string[] {
  const path = chunk.path ?? [];
  if (level === null) return path;
  for (let j = before.length - 1; j >= 0; j--) if (before[j]!.level < level) return before[j]!.chain;
  return path.slice(0, Math.max(0, level - 2));
}

/**
 * The sections of a passage the question is about, by index: where the passage's sections stand under different
 * subjects and the question names one's, those under it. Short sections merge into one passage, so one passage could
 * hold `## orders-db › ### Mitigation` and `## users-db › ### Mitigation`; "What are the mitigation steps for
 * users-db?" was answered with orders-db's steps, the first section whose heading says Mitigation, cited as "db.md ›
 * Mitigation" — another service's runbook, confident and cited (a colleague's audit, S-208). A subject is a heading the
 * section stands under that names no role (section-role.ts: "Mitigation" says what a section is for, "users-db" what it
 * is about) and is not the document's title, which every section shares. Where no section's subjects name more of the
 * question than another's, every section is in scope, as before.
 */
export function sectionsInScope(question: string, chunk: Chunk, sections: readonly PassageSection[]): ReadonlySet<number> {
  const terms = new Set(contentTerms(question));
  const inPostmortem = isPostmortemDocument(chunk.doc, chunk.docTitle);
  const named = sections.map((s) => {
    // The headings above it, not its own: "Buy time with a rolling restart" beside "Roll back or raise the limit" are
    // two steps of one runbook, told apart by what they say (procedureSteps's rank), not two subjects.
    const subjects = s.chain.slice(0, -1).filter((h) => h !== chunk.docTitle && headingRoles(h, inPostmortem).roles.length === 0);
    return new Set(subjects.flatMap((h) => tokenize(h)).filter((t) => terms.has(t))).size;
  });
  const focus = Math.max(0, ...named);
  return new Set(sections.flatMap((_, i) => (named[i] === focus ? [i] : [])));
}

/** The positions (in `sentencesOf(passage.text)`) of the sentences in the sections the question is about. */
export function sentencesInScope(question: string, chunk: Chunk): Set<number> {
  const sections = passageSections(chunk);
  const scope = sectionsInScope(question, chunk, sections);
  const out = new Set<number>();
  sections.forEach((s, i) => {
    if (!scope.has(i)) return;
    const count = s.blocks.reduce((n, b) => n + b.sentences.length, 0);
    for (let k = 0; k < count; k++) out.add(s.firstSentence + k);
  });
  return out;
}

/**
 * The blocks of a section a "what do I do" may draft from: a timeline's lines
 * are what happened, never a step (a code line is a command or its output, and
 * is kept whatever it starts with).
 */
export function remedyBlocks(blocks: readonly TextBlock[]): TextBlock[] {
  return blocks.filter((b) => b.kind === 'code' || !isTimelineLine(b.sentences[0]!));
}

/** Steps: a fenced command, or a list of two items or more. */
function holdsSteps(blocks: readonly TextBlock[]): boolean {
  return blocks.some((b) => b.kind === 'code') || blocks.filter((b) => b.kind === 'numbered' || b.kind === 'bulleted').length >= 2;
}

const ESCALATION = /\b(?:escalat\w*|contacts?|communicat\w*|notif\w*|stakeholders?|paging|who to (?:page|call|contact))\b/i;
const ASKS_ESCALATION = /\b(?:escalat\w*|page|paging|contact|notify|communicat\w*|who)\b/i;

/**
 * How well a section's role fits the question: its own role, then the other of
 * procedure/diagnosis (checking is part of fixing), then a section that names no
 * role, then any other ("Isolate affected instances" reads as impact, yet is a
 * step). Escalation and communication are steps too (`rolesOf` reads them as
 * procedure), but not the remedy a "how do I mitigate" asks for: "## Mitigation"
 * comes before "## Escalation" unless the question asks whom to page.
 */
function roleFit(section: PassageSection, intent: 'procedure' | 'diagnosis', question: string, keepRecord: boolean): number {
  const other = intent === 'procedure' ? 'diagnosis' : 'procedure';
  const { roles } = section;
  let fit = 0;
  if (roles.includes(intent)) fit = 4;
  else if (roles.includes(other)) fit = 2;
  else if (roles.length === 0 || (keepRecord && roles.every((r) => r === 'postmortem'))) fit = 1;
  if (ESCALATION.test(section.heading) && !ASKS_ESCALATION.test(question)) fit -= 3;
  return fit;
}

/**
 * The steps a procedure or diagnosis question is answered with: the blocks of
 * the passage's best-fitting section that holds steps (a numbered or bulleted
 * list, fenced commands), with the sub-sections under it, in reading order —
 * prose lead-ins ("On any redis node run:") included, since a command without
 * them is a command run in the wrong place.
 *
 * A section whose role fits better but holds no steps is not dropped for the
 * one that does: "## Mitigation" in prose beside "## Escalation" as a list
 * gives both, in reading order. A list under a heading that fits worse than
 * "no role at all" (impact, background, escalation) is taken only when nothing
 * in the passage fits better; otherwise null — draft by overlap instead.
 * Sections of a postmortem's record never give steps unless `keepRecord` (the
 * question asks about the postmortem).
 */
export function procedureSteps(question: string, intent: 'procedure' | 'diagnosis', chunk: Chunk, keepRecord: boolean): TextBlock[] | null {
  const sections = passageSections(chunk);
  const scope = sectionsInScope(question, chunk, sections);
  const usable = (s: PassageSection) => keepRecord || !s.record;
  const terms = new Set(contentTerms(question));
  const runs: { members: number[]; blocks: TextBlock[]; fit: number; rank: number; steps: boolean }[] = [];
  sections.forEach((s, i) => {
    if (!usable(s) || !scope.has(i)) return;
    const members = [i];
    for (let j = i + 1; j < sections.length && sections[j]!.level > s.level; j++) if (usable(sections[j]!)) members.push(j);
    const blocks = members.flatMap((j) => (keepRecord ? [...sections[j]!.blocks] : remedyBlocks(sections[j]!.blocks)));
    if (blocks.length === 0) return;
    const fit = roleFit(s, intent, question, keepRecord);
    const named = tokenize(s.heading).filter((t) => terms.has(t)).length;
    const ordered = blocks.some((b) => b.kind === 'numbered' || b.kind === 'code') ? 1 : 0;
    runs.push({ members, blocks, fit, rank: fit + 0.5 * ordered + named, steps: holdsSteps(blocks) });
  });
  const bestFit = Math.max(...runs.map((r) => r.fit));
  let steps: (typeof runs)[number] | null = null;
  for (const r of runs) if (r.steps && (r.fit >= 1 || r.fit >= bestFit) && (!steps || r.rank > steps.rank)) steps = r;
  if (!steps) return null;
  const better = runs.find((r) => r.fit === bestFit);
  if (!better || better.fit <= steps.fit) return steps.blocks;
  const members = [...new Set([...steps.members, ...better.members])].sort((a, b) => a - b);
  return members.flatMap((j) => (keepRecord ? [...sections[j]!.blocks] : remedyBlocks(sections[j]!.blocks)));
}

/**
 * The prose of the passage's sections whose role is the one asked for, in reading order, when no section of it holds
 * steps: a "Remedy" written as paragraphs is the remedy. "How do I fix Prometheus Istio Server restarting?" was
 * answered, its reasons saying "Answered from “Remedy”", with the Condition section's sentences, since the remedy's
 * paragraphs shared fewer of the question's words (S-156). A heading that is only the document's title gives no role
 * to quote (S-054: "# Runbook: …" reads as a procedure heading). Null when no section has the role.
 */
export function roleProse(question: string, intent: 'procedure' | 'diagnosis', chunk: Chunk, keepRecord: boolean): TextBlock[] | null {
  const all = passageSections(chunk);
  const scope = sectionsInScope(question, chunk, all);
  const sections = all.filter((s, i) => scope.has(i) && (keepRecord || !s.record) && s.roles.includes(intent) && s.heading !== chunk.docTitle);
  const blocks = sections.flatMap((s) => (keepRecord ? [...s.blocks] : remedyBlocks(s.blocks)));
  return blocks.length ? blocks : null;
}
