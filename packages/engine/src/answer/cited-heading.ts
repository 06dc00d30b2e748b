import { textSectionsOf } from './sentences.ts';

/** A passage as a citation names it: its heading (and depth, and its document's title), and the text it is cut from. */
interface CitedPassage {
  readonly heading: string;
  readonly level?: number;
  readonly docTitle?: string;
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
  const under = new Set(said.map((s) => sections.findIndex((section) => section.blocks.some((b) => b.sentences.includes(s)))));
  const [only] = under;
  return under.size === 1 && only !== undefined && only > 0 ? headingChain(passage, sections, only).join(' › ') : passage.heading;
}

/**
 * A merged section named with the headings it stands under in the passage, the document's title left out (the
 * citation names the document already). Two services' "### Mitigation" merged into one passage were both cited as
 * "db.md › Mitigation", which did not say whose (S-208); now "users-db › Mitigation".
 */
function headingChain(passage: CitedPassage, sections: ReturnType<typeof textSectionsOf>, at: number): string[] {
  const chain: string[] = [];
  let level = Number.POSITIVE_INFINITY;
  for (let j = at; j >= 0; j--) {
    const s = sections[j]!;
    const heading = s.heading ?? passage.heading;
    const depth = s.level ?? passage.level ?? 2;
    if (depth >= level) continue;
    if (heading !== passage.docTitle) chain.unshift(heading);
    level = depth;
  }
  return chain;
}
