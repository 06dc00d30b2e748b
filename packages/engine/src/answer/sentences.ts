/**
 * Split a passage into citable sentences. Markdown list items, table rows and
 * command lines each stand alone; emphasis markers are dropped (the words stay
 * verbatim, so a claim's numbers and identifiers still stand in its passage).
 * Commands are never touched: a fenced block's lines and an inline `code span`
 * come back exactly as written (issue 9, part E — a command stripped of its
 * `**` glob or split at a `. ` inside its quotes is a different command).
 */
export function sentencesOf(text: string): string[] {
  return sentenceBlocksOf(text).flatMap((b) => b.sentences);
}

/** A list item or paragraph, under the sub-heading (merged into the passage) it stands under, if any. */
export interface SentenceBlock {
  readonly subheading: string | null;
  readonly sentences: string[];
}

/**
 * The same sentences grouped by list item or paragraph — the unit whose
 * pronouns ("It runs 12 replicas") refer back within it — each with the
 * sub-heading it stands under (short sections merge into one passage, and
 * their headings are context for what follows them).
 */
export function sentenceBlocksOf(text: string): SentenceBlock[] {
  return textSectionsOf(text).flatMap((s) => s.blocks.map((b) => ({ subheading: s.heading, sentences: b.sentences })));
}

/** What a block is: the shape a procedure's steps take (numbered, bulleted, code) or prose around them. */
export type BlockKind = 'paragraph' | 'numbered' | 'bulleted' | 'code' | 'table';

/** One block of a passage: a paragraph, a list item, a table row, or one line of a fenced code block. */
export interface TextBlock {
  readonly kind: BlockKind;
  readonly sentences: string[];
  /** For a code line: which fenced block of the passage (0-based, in text order) it stands in. */
  readonly fence?: number;
  /** For a numbered item: the number its source gives it (`3.` → 3). */
  readonly number?: number;
}

/** The passage's own body (heading null) or one merged sub-section, with its blocks in reading order. */
export interface TextSection {
  /** The merged sub-heading, as written after its `#` marks; null for the passage's own body. */
  readonly heading: string | null;
  /** The sub-heading's depth (`###` is 3); null for the passage's own body. */
  readonly level: number | null;
  readonly blocks: TextBlock[];
}

/**
 * The passage cut at its merged sub-headings, each part's blocks typed. The one
 * parse behind {@link sentencesOf}, so the steps a procedure answer gives are
 * the very sentences the citation check and the answerability features read.
 */
export function textSectionsOf(text: string): TextSection[] {
  const sections: {
    heading: string | null;
    level: number | null;
    blocks: { kind: BlockKind; sentences: string[]; fence?: number; number?: number; prose?: string }[];
  }[] = [{ heading: null, level: null, blocks: [] }];
  let fence: { mark: string; indent: number; index: number } | null = null;
  let fences = 0;
  // A blank line, list item, heading, table row or fence ends a paragraph; any other line continues it.
  let continues = false;
  for (const raw of text.split('\n')) {
    const section = sections[sections.length - 1]!;
    if (fence && closesFence(raw, fence.mark)) {
      fence = null;
      continue;
    }
    const opener: { mark: string; indent: number } | null = fence ? null : opensFence(raw);
    if (opener) {
      fence = { ...opener, index: fences++ };
      continues = false;
      continue;
    }
    if (fence) {
      // A command line verbatim: only the fence's own indentation and trailing space go (CommonMark does the same).
      if (!raw.trim()) continue;
      const indent = /^[ \t]*/.exec(raw)![0].length;
      section.blocks.push({ kind: 'code', sentences: [raw.slice(Math.min(indent, fence.indent)).trimEnd()], fence: fence.index });
      continue;
    }
    let line = raw.trim();
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      sections.push({ heading: heading[2]!, level: heading[1]!.length, blocks: [] });
      continues = false;
      continue;
    }
    if (!line || /^\|?\s*:?-{3,}/.test(line)) {
      continues = false;
      continue;
    }
    const marker = /^(?:([-*+])|(\d+)[.)])\s+/.exec(line);
    line = line.slice(marker ? marker[0].length : 0).replace(/^>\s*/, '');
    if (line.startsWith('|')) {
      const cells = line
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
      section.blocks.push({ kind: 'table', sentences: [withoutEmphasis(cells.join(' — '))] });
      continues = false;
      continue;
    }
    const last = section.blocks[section.blocks.length - 1];
    if (continues && !marker && last?.prose !== undefined) last.prose += ` ${line}`;
    else if (marker?.[2]) section.blocks.push({ kind: 'numbered', sentences: [], number: Number(marker[2]), prose: line });
    else section.blocks.push({ kind: marker ? 'bulleted' : 'paragraph', sentences: [], prose: line });
    continues = true;
  }
  return sections.map((s) => ({
    heading: s.heading,
    level: s.level,
    blocks: s.blocks
      .map(({ prose, ...b }) => (prose === undefined ? b : { ...b, sentences: splitSentences(withoutEmphasis(prose)) }))
      .filter((b) => b.sentences.length > 0),
  }));
}

/**
 * A fence opens with three backticks or tildes; a backtick fence's info string
 * holds no backtick, so "```cmd```" on one line is a code span, not a fence
 * left open over the rest of the passage.
 */
function opensFence(line: string): { mark: string; indent: number } | null {
  const m = /^([ \t]*)(`{3,}|~{3,})(.*)$/.exec(line);
  if (!m || (m[2]!.startsWith('`') && m[3]!.includes('`'))) return null;
  return { mark: m[2]!, indent: m[1]!.length };
}

/** A fence closes with a run of its own character at least as long as the one that opened it. */
function closesFence(line: string, mark: string): boolean {
  const m = /^[ \t]*(`{3,}|~{3,})/.exec(line);
  return m !== null && m[1]![0] === mark[0] && m[1]!.length >= mark.length;
}

/**
 * Inline code spans (`` `cmd` `` or ``` ``a`b`` ```): a run of backticks closed by a run of the same length. At most 16
 * backticks open one (S-211): each length of a run was tried against the rest of the text, and a runbook holding a run
 * of 2,400 backticks took 3.9 s to index, seven times one of 1,200. No corpus here has a run longer than 4.
 */
const CODE_SPAN = /(`{1,16})(?:(?!\1)[\s\S])+?\1(?!`)/g;

/** The text with each code span's inside masked to `x`, same length: so prose rules never reach into a command. */
function maskCode(text: string): string {
  return text.replace(CODE_SPAN, (span, ticks: string) => ticks + 'x'.repeat(span.length - 2 * ticks.length) + ticks);
}

/** Bold markers dropped outside code spans; `__init__` or a `**` glob inside one stays as written. */
function withoutEmphasis(text: string): string {
  const masked = maskCode(text);
  let out = '';
  let from = 0;
  for (const m of masked.matchAll(/\*\*|__/g)) {
    out += text.slice(from, m.index);
    from = m.index + m[0].length;
  }
  return out + text.slice(from);
}

// A sentence may begin with a lower-case name ("dock-scheduler has its own database.") as ops prose often does (S-026);
// a code span is never cut, whatever full stops its command holds. An abbreviation's full stop ends no sentence:
// "(e.g. `kubectl rollout undo`)" cut after "e.g." put the citation between the example and its command (S-164).
const SENTENCE_BREAK =
  /(?<=[.!?])(?<!\b(?:[Ee]\.[Gg]|[Ii]\.[Ee]|[Vv]s|[Cc]f|[Vv]iz|[Aa]pprox|[Ii]ncl|[Ee]sp)\.)\s+(?=[A-Z0-9`("']|[a-z][a-z0-9]*[-_][a-z0-9])/g;

function splitSentences(prose: string): string[] {
  const masked = maskCode(prose);
  const out: string[] = [];
  let from = 0;
  for (const m of masked.matchAll(SENTENCE_BREAK)) {
    out.push(prose.slice(from, m.index));
    from = m.index + m[0].length;
  }
  out.push(prose.slice(from));
  return out.map((s) => s.trim()).filter(Boolean);
}
