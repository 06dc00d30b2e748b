import { type Chunk, slugify, textSectionsOf } from '@sandscope/engine';
import type { EvalQuestion } from './question-set.ts';

/** A question whose evidence names no passage: reported, never silently scored 0 (issue 9 B). */
export interface EvidenceError {
  readonly id: string;
  readonly message: string;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
const HEADING_MARKER = /^\s*#{1,6}\s+/;
/**
 * Typography a writer's keyboard does not make: the library's curly quotes, dashes and ellipsis, read as the straight
 * ones typed for them ("don't" for "don’t" matched no passage, S-147).
 */
const plainTypography = (s: string) =>
  s
    .replace(/[‘’‛′]/g, "'")
    .replace(/[“”‟″]/g, '"')
    .replace(/[‐‑‒–—―]/g, '-')
    .replace(/…/g, '...');
const asRead = (s: string) =>
  squash(
    plainTypography(s)
      .replace(/[*_`]/g, '')
      .replace(/^\s*["']+|["']+\s*$/g, ''),
  );
/** `file.md#heading`: a passage id written with the file's markdown extension. */
const FILE_AND_HEADING = /^([^\s#]+)\.(?:md|markdown|mdown|mkd|mkdn|markdn)#([^\s#]+)$/i;
/** A file path as a question names it (`docs/foo.md`) and as the corpus does (`foo.md`). */
const docKey = (doc: string) => doc.replace(/^\.?\/?/, '').replace(/^docs\//, '');

/**
 * Turn each answerable question's evidence into the id of the passage that holds
 * it. `evidence` may be a passage id (`runbook-x#mitigation`, as generated sets
 * carry) or a quotation of the passage's text (as people write them); a
 * quotation is matched to the one passage that contains it, whitespace aside,
 * within the named document when there is one.
 */
export function resolveEvidence(questions: readonly EvalQuestion[], chunks: readonly Chunk[]): { questions: EvalQuestion[]; errors: EvidenceError[] } {
  const byId = new Set(chunks.map((c) => c.id));
  const docs = new Set(chunks.map((c) => c.doc));
  const haystacks = chunks.map((c) => ({ chunk: c, text: squash(`${c.heading}\n${c.text}`) }));
  const out: EvalQuestion[] = [];
  const errors: EvidenceError[] = [];
  // S-215: a section shorter than MIN_PASSAGE_CHARS is merged into a neighbour and its heading has no passage id, so an
  // id made from it (`payments#rollback`) was refused as "the passage sharing most of its words is … (a typo …?)",
  // naming another passage at that. The passages holding each merged heading, by the id it would have had; read only
  // when an id names no passage.
  let mergedInto: Map<string, Chunk[]> | undefined;
  const holdersOf = (id: string): Chunk[] => {
    if (!mergedInto) {
      const into = new Map<string, Chunk[]>();
      const hold = (key: string, c: Chunk) => {
        const held = into.get(key) ?? [];
        if (!held.includes(c)) into.set(key, [...held, c]);
      };
      // Each heading's place among the document's headings of its name, passages' own and merged alike: a repeated
      // heading merged away is named as a passage's id would number it (`#mitigation-2`), and was matched only plain.
      const seen = new Map<string, number>();
      const counted = (base: string, heading: string) => {
        const key = `${base}#${slugify(heading)}`;
        const n = (seen.get(key) ?? 0) + 1;
        seen.set(key, n);
        return { key, n };
      };
      for (const c of chunks) {
        const base = c.id.slice(0, c.id.lastIndexOf('#'));
        counted(base, c.heading);
        for (const s of textSectionsOf(c.text)) {
          if (s.heading === null) continue;
          const { key, n } = counted(base, s.heading);
          hold(key, c);
          if (n > 1) hold(`${key}-${n}`, c);
        }
      }
      mergedInto = into;
    }
    return mergedInto.get(id) ?? [];
  };
  for (const q of questions) {
    const doc = q.doc ? docKey(q.doc) : undefined;
    if (doc && !docs.has(doc)) {
      errors.push({ id: q.id, message: `doc "${q.doc}" is not a document of this corpus` });
      continue;
    }
    const withDoc = doc ? { ...q, doc } : q;
    if (!q.evidence || byId.has(q.evidence)) {
      out.push(withDoc);
      continue;
    }
    const holding = (quote: string) => {
      const needle = squash(quote);
      return haystacks.filter((h) => (!doc || h.chunk.doc === doc) && h.text.includes(needle));
    };
    // A passage's own heading is held as its text, without its marker: a heading quoted as it is written (`### Slot
    // capacity`) matched nothing and the question was dropped as an evidence error. Retried without the marker only
    // then, since a heading merged into another passage keeps its marker there and is matched with it.
    let hits = holding(q.evidence);
    if (hits.length === 0 && HEADING_MARKER.test(q.evidence)) hits = holding(q.evidence.replace(HEADING_MARKER, ''));
    // A writer quotes the page as it reads, not as its markdown is written: "The default INTERVAL is 30s" for
    // "The default **INTERVAL** is 30s", or the whole quotation in quotation marks. Tried only when the quotation as
    // written matched nothing, with emphasis, code marks and the outer quotation marks left out of both sides.
    if (hits.length === 0) {
      const needle = asRead(q.evidence);
      hits = needle ? haystacks.filter((h) => (!doc || h.chunk.doc === doc) && asRead(h.text).includes(needle)) : [];
    }
    const holders = hits.length === 0 ? holdersOf(q.evidence).filter((c) => !doc || c.doc === doc) : [];
    if (holders.length) {
      const ids = holders.map((c) => c.id).join(', ');
      const several = holders.length > 1;
      errors.push({
        id: q.id,
        message: `${q.evidence} is a heading inside passage${several ? 's' : ''} ${ids} (short sections are merged); name ${several ? 'the one that answers' : ids}, or quote the evidence text`,
      });
      continue;
    }
    // A passage id written with its file's extension (`ledger-db.md#backups`) was "matches no passage" with no word of
    // the id form: the id is the file's path without it (`ledger-db#backups`).
    const filed = hits.length === 0 ? FILE_AND_HEADING.exec(q.evidence.trim()) : null;
    if (filed) {
      const id = `${filed[1]}#${filed[2]}`;
      errors.push({
        id: q.id,
        message: `evidence "${q.evidence.trim()}" names a file with its extension: a passage id leaves it out (${id}${byId.has(id) ? ', a passage of this corpus' : '; `sandscope passages` lists the ids'})`,
      });
      continue;
    }
    if (hits.length === 0) {
      const near = closest(q.evidence, haystacks, doc);
      errors.push({
        id: q.id,
        message: `evidence matches no passage${doc ? ` of ${doc}` : ''}: "${q.evidence.slice(0, 80)}${q.evidence.length > 80 ? '…' : ''}"${near ? `; the passage sharing most of its words is ${near} (a typo, or a word the page spells otherwise?)` : ''}`,
      });
      continue;
    }
    if (hits.length > 1) {
      errors.push({
        id: q.id,
        // "matches 4 passages" named three, with nothing to say a fourth existed (S-210).
        message: `evidence matches ${hits.length} passages (${hits
          .slice(0, 3)
          .map((h) => h.chunk.id)
          .join(', ')}${hits.length > 3 ? ` and ${hits.length - 3} more` : ''}); quote more of the answering one`,
      });
      continue;
    }
    out.push({ ...withDoc, evidence: hits[0]!.chunk.id, doc: hits[0]!.chunk.doc, quoted: q.evidence });
  }
  return { questions: out, errors };
}

/**
 * The passage that shares most of a quotation's words (at least half of them), to name when it matches none: "matches
 * no passage" left a writer to find a one-letter typo in a paragraph by eye (S-147).
 */
function closest(quote: string, haystacks: readonly { chunk: Chunk; text: string }[], doc: string | undefined): string | null {
  const words = new Set(asRead(quote).match(/[a-z0-9]+/g) ?? []);
  if (words.size === 0) return null;
  let best: { id: string; shared: number } | null = null;
  for (const h of haystacks) {
    if (doc && h.chunk.doc !== doc) continue;
    const held = new Set(asRead(h.text).match(/[a-z0-9]+/g) ?? []);
    let shared = 0;
    for (const w of words) if (held.has(w)) shared++;
    if (!best || shared > best.shared) best = { id: h.chunk.id, shared };
  }
  return best && best.shared * 2 >= words.size ? best.id : null;
}
