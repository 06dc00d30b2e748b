import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  type BandsFile,
  documentTitle,
  type Estate,
  isMarkdownName,
  MARKDOWN_EXTENSIONS,
  parseBands,
  parseEstate,
  type SourceDocument,
} from '@sandscope/engine';
import { absentTexts, readCorpusSourceFile } from './cli/corpus-source-file.ts';
import { decodeCorpusText } from './corpus-text.ts';
import { shellArg } from './shell-arg.ts';
import { UserError } from './user-error.ts';

/** A corpus folder as read from disk: markdown documents, an optional estate, optional calibrated bands. */
export interface CorpusSource {
  readonly root: string;
  readonly docsDir: string;
  readonly documents: SourceDocument[];
  readonly estate: Estate | null;
  /** This corpus's own bands (`thresholds.json`, written by `calibrate`), or null to use the shipped model's. */
  readonly thresholds: BandsFile | null;
  /**
   * Where the bands come from: this corpus's own `thresholds.json`, or the ones the
   * shipped answerability model carries (trained and validated leave-one-corpus-out).
   */
  readonly thresholdsFrom: 'corpus' | 'shipped';
  /** Where `calibrate` writes this corpus's bands. */
  readonly thresholdsPath: string;
  /** `.md` files left out (not text, empty, over the size limit), each with why (issue 12, defect 10). */
  readonly skipped: readonly SkippedFile[];
}

/** A corpus file left out of the index, and the reason a person is told. */
export interface SkippedFile {
  /** Relative to the docs folder, like a document's id. */
  readonly doc: string;
  readonly file: string;
  readonly reason: string;
}

export interface LoadCorpusOptions {
  /** Told one line per skipped file; default stderr, so every command that reads a corpus says so. */
  readonly warn?: (line: string) => void;
}

/** The default corpus shipped with the repository. */
export const DEFAULT_CORPUS_DIR = resolve(import.meta.dirname, '../../../corpus');

const MAX_DOC_BYTES = 2_000_000;
const EMPTY = 'it is empty. Write the document or remove the file.';

/**
 * What sandscope itself reads and writes in the corpus folder (its estate, bands, question sets and their first runs,
 * a public corpus's SOURCE.json): not documents left out, so not named as such, beside flat markdown or not.
 */
const CORPUS_OWN_FILES = /^(estate\.json|thresholds\.json|SOURCE\.json|([\w-]+-)?questions\.jsonl|([\w-]+-)?first-run\.json)$/;

/** `.md, .markdown, … and .markdn`: the extensions read, as a person is told them. */
const READ_EXTENSIONS = `${MARKDOWN_EXTENSIONS.slice(0, -1).join(', ')} and ${MARKDOWN_EXTENSIONS.at(-1)}`;

/**
 * The markdown under `dir`, and every other file beside it; `notesAt` is the corpus folder, whose own README.md and
 * GAPS.md are its notes, not documents, and whose own files (CORPUS_OWN_FILES) are sandscope's.
 */
function markdownFiles(dir: string, notesAt: string): { files: string[]; others: string[]; unread: string[] } {
  const out: string[] = [];
  const others: string[] = [];
  /** Every file not read as a document, the notes named as such: what a folder with no markdown holds instead. */
  const unread: string[] = [];
  // A linked folder is walked like any other (a Dirent of a link is never isDirectory(), so a team's runbooks
  // linked into the corpus were silently left out); each real folder once, so a link to an ancestor ends.
  const walked = new Set<string>();
  const walk = (d: string) => {
    const real = realpathSync(d);
    if (walked.has(real)) return;
    walked.add(real);
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      // Hidden files and folders (.git, .obsidian, an editor's swap file, .DS_Store) and node_modules are no one's
      // documents: skipped without a word, as a listing leaves them out.
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = join(d, entry.name);
      if (entry.isDirectory() || (entry.isSymbolicLink() && isFolder(full))) walk(full);
      // Only the corpus folder's own README.md and GAPS.md are its notes (what it is, what it lacks); a sub-folder's
      // README.md is a document (GitLab's runbooks are docs/<service>/README.md) and was silently left out at every
      // depth. So is `docs/README.md` in the repository's layout, where the notes sit beside `docs/` (S-105: a
      // project's README copied in as docs/README.md was silently left out, and its questions lost their document).
      else if (d === notesAt && /^(GAPS|README)\.md$/i.test(entry.name)) unread.push(`${full} (the corpus's notes)`);
      else if (isMarkdownName(entry.name)) out.push(full);
      else {
        // Every other file is named, whatever its extension or none (S-147 named only .mdx, .txt, .rst and the like;
        // S-209: a README, a Makefile, an .html page or a .text file went unnamed, and the gate said the library did
        // not answer what they held).
        if (!(d === notesAt && CORPUS_OWN_FILES.test(entry.name))) others.push(full);
        unread.push(full);
      }
    }
  };
  walk(dir);
  return { files: out, others, unread };
}

/** Whether a link leads to a folder; a broken one does not, and is reported as a file when read (#13). */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The library a command reads: `--corpus DIR`, else CORPUS_DIR, else the bundled corpus (undefined). `ask` with
 * CORPUS_DIR set answered from the bundled corpus, though `serve` reads it (S-145). `from` names which was used.
 */
export function corpusDirOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): { dir?: string; from: 'flag' | 'CORPUS_DIR' | 'bundled' } {
  if (flag !== undefined) return { dir: flag, from: 'flag' };
  const fromEnv = env.CORPUS_DIR;
  return fromEnv !== undefined ? { dir: fromEnv, from: 'CORPUS_DIR' } : { from: 'bundled' };
}

/**
 * Read a corpus folder. Accepts the repository's layout (`docs/*.md` beside
 * `estate.json`) or any folder of markdown, nested or flat. Every failure is a
 * UserError naming the path and what to do.
 */
export function loadCorpusSource(dir: string = DEFAULT_CORPUS_DIR, options: LoadCorpusOptions = {}): CorpusSource {
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  // An empty --corpus "$DIR" (an unset shell variable) resolved to the working folder, and `ask` answered from whatever
  // markdown was there — in the repository, its own defect log (S-145).
  if (!dir.trim())
    throw new UserError(
      'the corpus folder is empty (--corpus "" or CORPUS_DIR=""): name the folder of markdown to read, or leave it out for the bundled corpus.',
    );
  const root = resolve(dir);
  if (!existsSync(root)) throw new UserError(`corpus folder not found: ${root}. Pass --corpus DIR with a folder of markdown files.`);
  if (!statSync(root).isDirectory()) throw new UserError(`--corpus must be a folder, but ${root} is a file. Pass the folder that holds the markdown.`);
  if (existsSync(join(root, 'SOURCE.json'))) {
    // A public corpus rebuilt from SOURCE.json (S-095): measured on part of its texts, its figures would be another corpus's.
    const absent = absentTexts(root, readCorpusSourceFile(join(root, 'SOURCE.json')));
    if (absent.length)
      throw new UserError(
        `${root}: ${absent.length} of the texts its SOURCE.json names are not here (${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', …' : ''}). Run \`npm run corpora -- ${shellArg(relative(process.cwd(), dirname(root)) || '.')}\` to rebuild them.`,
      );
  }
  const docsDir = existsSync(join(root, 'docs')) && statSync(join(root, 'docs')).isDirectory() ? join(root, 'docs') : root;
  const { files, others, unread } = markdownFiles(docsDir, root);
  // It said "no markdown (.md) files" of a folder of .txt: .markdown is read too, and what was there went unnamed.
  if (files.length === 0)
    throw new UserError(
      `no markdown (.md or .markdown) files in ${docsDir}${unread.length ? `; not read: ${namedFew(unread, docsDir)}` : ', nor any other file'}. Put the runbooks there as .md or .markdown, or pass --corpus DIR pointing at them.`,
    );
  if (others.length)
    warn(
      `corpus: ${others.length} file(s) not read, as only ${READ_EXTENSIONS} are: ${namedFew(others, docsDir)}. Save any that are documents as .md to have them indexed.`,
    );

  const documents: SourceDocument[] = [];
  const skipped: SkippedFile[] = [];
  const leaveOut = (doc: string, file: string, reason: string) => {
    skipped.push({ doc, file, reason });
    warn(`corpus: skipped ${file}: ${reason}`);
  };
  /** Each document id, and the file that holds it. */
  const named = new Map<string, string>();
  for (const file of files) {
    // A name macOS wrote decomposed (NFD: "cafe\u0301.md") is the name a person types composed (NFC: "café.md"). Kept
    // as the bytes on disk, a question naming the file found no document and two files of one visible name were two
    // documents citing alike; ids are composed, and a second file of the same id is left out, naming the first.
    const doc = relative(docsDir, file).split(sep).join('/').normalize('NFC');
    const twin = named.get(doc);
    if (twin !== undefined) {
      leaveOut(doc, file, sameName(twin));
      continue;
    }
    named.set(doc, file);
    let bytes: Buffer;
    try {
      const size = statSync(file).size;
      // One oversized file (a wiki exported as one page) stopped the whole corpus from loading; it is left out alone.
      if (size > MAX_DOC_BYTES) {
        leaveOut(doc, file, tooLarge(size));
        continue;
      }
      bytes = readFileSync(file);
    } catch (error) {
      throw new UserError(unreadable(file, error as NodeJS.ErrnoException));
    }
    // Defect 10: a binary file named .md is skipped with a warning naming it, never indexed as noise.
    const decoded = decodeCorpusText(bytes);
    if (!decoded.ok) {
      leaveOut(doc, file, decoded.reason);
      continue;
    }
    const text = decoded.text;
    // An empty file was dropped without a word: a runbook a failed sync left at 0 bytes was simply not in the
    // library, and its questions were refused as if it had never been written.
    if (!text.trim()) {
      leaveOut(doc, file, EMPTY);
      continue;
    }
    documents.push({ doc, title: documentTitle(doc, text), text });
  }
  if (documents.length === 0 && skipped.some((s) => s.reason !== EMPTY)) {
    throw new UserError(`no markdown file in ${docsDir} could be indexed: ${skipped.map((s) => `${s.file}: ${s.reason}`).join(' ')}`);
  }
  if (documents.length === 0) throw new UserError(`every markdown file in ${docsDir} is empty; there is nothing to answer from.`);

  const own = readThresholds(root);
  return {
    root,
    docsDir,
    documents,
    estate: readEstate(root),
    thresholds: own,
    thresholdsFrom: own ? 'corpus' : 'shipped',
    thresholdsPath: join(root, 'thresholds.json'),
    skipped,
  };
}

/** The first three files, relative to the folder, then how many more. */
function namedFew(files: readonly string[], dir: string): string {
  const shown = files
    .slice(0, 3)
    .map((f) => relative(dir, f))
    .join(', ');
  return `${shown}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`;
}

function sameName(twin: string): string {
  return `it has the same name as ${twin} in another Unicode form (composed or decomposed accents), so the two would be one document. Rename or remove one of them.`;
}

function tooLarge(size: number): string {
  return `it is ${size.toLocaleString('en')} bytes, over the 2 MB (${MAX_DOC_BYTES.toLocaleString('en')} bytes) limit for one document. Split it into smaller documents to have it indexed.`;
}

/** Why a corpus file cannot be read, in words that say what to do: a broken link is named as one (#13). */
function unreadable(file: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') {
    try {
      if (lstatSync(file).isSymbolicLink())
        return `${file} is a broken symbolic link: it points to ${readlinkSync(file)}, which does not exist. Fix the link or remove it.`;
    } catch {
      // gone between the listing and the read: fall through to the plain message
    }
    return `${file} disappeared while the corpus was being read. Run the command again.`;
  }
  return `cannot read ${file}: ${error.code ?? error.message}. Check its permissions.`;
}

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`${what} at ${path} is not valid JSON (${(error as Error).message}). Fix or remove it.`);
  }
}

function readEstate(root: string): Estate | null {
  const path = join(root, 'estate.json');
  if (!existsSync(path)) return null;
  const parsed = parseEstate(readJson(path, 'estate.json'));
  if (!parsed.ok) throw new UserError(`${parsed.message} (${path}). Fix the file or remove it; the estate is optional.`);
  return parsed.estate;
}

function readThresholds(root: string): BandsFile | null {
  const path = join(root, 'thresholds.json');
  if (!existsSync(path)) return null;
  const parsed = parseBands(readJson(path, 'thresholds.json'));
  if (!parsed.ok)
    throw new UserError(
      `${parsed.message} (${path}). Re-run \`npx sandscope calibrate --corpus ${shellArg(root)}\` to regenerate it, or delete it to use the shipped model's bands.`,
    );
  return parsed.bands;
}
