import { textSectionsOf } from './sentences.ts';

/** A passage as a citation names it: its heading, and the text it is cut from. */
interface CitedPassage {
  readonly heading: string;
  readonly text: string;
}

/**
 * The heading each cited passage is named by: its own, or — when every claim citing it stands under one section
 * merged into it — that section's. A section shorter than MIN_PASSAGE_CHARS merges into its neighbour and the
 * passage keeps the first heading, so a claim quoted from "Standard, normal and emergency changes" was cited as
 * "Change Management Policy", the document's lead it merged into, and a step under a short "### DiskFull" as the
 * "## Alerts" above it (S-142). The passage and its id stay what they are: only the name a reader is given changes.
 */
export function citedHeadings(
  claims: readonly { readonly text: string; readonly citations: readonly string[] }[],
  passageOf: (id: string) => CitedPassage | undefined,
): Map<string, string> {
  const sentences = new Map<string, string[]>();
  for (const claim of claims) for (const id of claim.citations) sentences.set(id, [...(sentences.get(id) ?? []), claim.text]);
  const headings = new Map<string, string>();
  for (const [id, said] of sentences) {
    const passage = passageOf(id);
    if (passage) headings.set(id, citedHeading(passage, said));
  }
  return headings;
}

function citedHeading(passage: CitedPassage, said: readonly string[]): string {
  const sections = textSectionsOf(passage.text);
  const under = new Set(said.map((s) => sections.find((section) => section.blocks.some((b) => b.sentences.includes(s)))?.heading ?? null));
  const [only] = under;
  return under.size === 1 && only ? only : passage.heading;
}
