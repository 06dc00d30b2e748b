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
  const out: { subheading: string | null; sentences: string[] }[] = [];
  let subheading: string | null = null;
  let inFence = false;
  // A hard-wrapped paragraph continues its block; a blank line, list item, heading or table starts a new one.
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
    const sentences = line.split(/(?<=[.!?])\s+(?=[A-Z0-9`("'])/).map((s) => s.trim()).filter(Boolean);
    if (continues && !listItem && out.length) out[out.length - 1]!.sentences.push(...sentences);
    else if (sentences.length) out.push({ subheading, sentences });
    continues = true;
  }
  return out;
}
