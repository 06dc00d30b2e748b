/**
 * Split a passage into citable sentences. Markdown list items, table rows and
 * command lines each stand alone; emphasis markers are dropped (the words stay
 * verbatim, so a claim's numbers and identifiers still stand in its passage).
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
  // A paragraph's lines are joined before splitting, so a hard-wrapped sentence stays one sentence.
  const out: { subheading: string | null; sentences: string[]; prose?: string }[] = [];
  let subheading: string | null = null;
  let inFence = false;
  // A blank line, list item, heading, table row or fence ends a paragraph; any other line continues it.
  let continues = false;
  for (const raw of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) {
      inFence = !inFence;
      continues = false;
      continue;
    }
    let line = raw.trim();
    if (!inFence && /^#{1,6}\s/.test(line)) subheading = line.replace(/^#{1,6}\s+/, '');
    if (!line || /^\|?\s*:?-{3,}/.test(line) || /^#{1,6}\s/.test(line)) {
      continues = false;
      continue;
    }
    if (inFence) {
      out.push({ subheading, sentences: [line] });
      continue;
    }
    const listItem = /^(?:[-*+]|\d+[.)])\s+/.test(line);
    line = line
      .replace(/^(?:[-*+]|\d+[.)])\s+/, '')
      .replace(/^>\s*/, '')
      .replace(/\*\*|__/g, '');
    if (line.startsWith('|')) {
      out.push({ subheading, sentences: [line.replace(/^\||\|$/g, '').split('|').map((c) => c.trim()).filter(Boolean).join(' — ')] });
      continues = false;
      continue;
    }
    const last = out[out.length - 1];
    if (continues && !listItem && last?.prose !== undefined) last.prose += ` ${line}`;
    else out.push({ subheading, sentences: [], prose: line });
    continues = true;
  }
  return out
    .map((b) => ({ subheading: b.subheading, sentences: b.prose === undefined ? b.sentences : splitSentences(b.prose) }))
    .filter((b) => b.sentences.length > 0);
}

// A sentence may begin with a lower-case name ("dock-scheduler has its own database."), as ops prose often does (S-026).
function splitSentences(prose: string): string[] {
  return prose.split(/(?<=[.!?])\s+(?=[A-Z0-9`("']|[a-z][a-z0-9]*[-_][a-z0-9])/).map((s) => s.trim()).filter(Boolean);
}
