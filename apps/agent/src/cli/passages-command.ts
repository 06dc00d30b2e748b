import { type Chunk, chunkCorpus, MIN_PASSAGE_CHARS, textSectionsOf } from '@sandscope/engine';
import { corpusDirOf, loadCorpusSource } from '../corpus-source.ts';
import { parseCommandOptions } from './args.ts';

/** One passage as `passages --json` gives it: its id, where it is, and every heading it holds. */
interface PassageListing {
  readonly id: string;
  readonly doc: string;
  readonly docTitle: string;
  readonly heading: string;
  /** The headings it stands under, outermost first (the document's title aside). */
  readonly path: readonly string[];
  /** Headings of the short sections merged into it, in the order they are written: none has an id of its own. */
  readonly merged: readonly string[];
}

/**
 * `sandscope passages [--corpus DIR] [--json]`: every passage id of a library, with its document and the headings it
 * holds. A question file may name its answering passage by id, and nothing listed them: a writer made the id from a
 * heading they could see, and a short section's heading, merged into its neighbour's passage, has none (S-215).
 * Chunked as the knowledge base chunks (chunkCorpus), without indexing: the ids are the ones `eval` resolves against.
 */
export async function passagesCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandOptions('passages', argv, { corpus: { type: 'string' }, json: { type: 'boolean', default: false } });
  const source = loadCorpusSource(corpusDirOf(values.corpus).dir);
  const passages = chunkCorpus(source.documents).map(listingOf);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ library: source.root, passages }, null, 2)}\n`);
    return 0;
  }
  const docs = new Map<string, PassageListing[]>();
  for (const p of passages) docs.set(p.doc, [...(docs.get(p.doc) ?? []), p]);
  const lines: string[] = [];
  for (const [doc, held] of docs) {
    const width = Math.max(...held.map((p) => p.id.length));
    lines.push(`${doc} (${held[0]!.docTitle})`);
    for (const p of held)
      lines.push(`  ${p.id.padEnd(width)}  ${[...p.path, p.heading].join(' › ')}${p.merged.length ? `; merged into it: ${p.merged.join(', ')}` : ''}`);
  }
  const merging = passages.some((p) => p.merged.length)
    ? ` A heading after "merged into it" has no id of its own (a section under ${MIN_PASSAGE_CHARS} characters is merged into its neighbour): in a question file's "evidence", name the passage's id or quote its text.`
    : '';
  lines.push(
    '',
    `${passages.length} passage${passages.length === 1 ? '' : 's'} in ${docs.size} document${docs.size === 1 ? '' : 's'} of ${source.root}.${merging}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function listingOf(chunk: Chunk): PassageListing {
  return {
    id: chunk.id,
    doc: chunk.doc,
    docTitle: chunk.docTitle,
    heading: chunk.heading,
    path: chunk.path ?? [],
    merged: textSectionsOf(chunk.text).flatMap((s) => (s.heading === null ? [] : [s.heading])),
  };
}
