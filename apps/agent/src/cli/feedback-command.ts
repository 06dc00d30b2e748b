import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chunkCorpus, corpusVersion } from '@sandscope/engine';
import { toJsonl } from '@sandscope/eval';
import {
  type EarlierMark,
  FEEDBACK_LABELS,
  getRunRecord,
  isFeedbackLabel,
  listClaims,
  type MarkedRun,
  markRun,
  normalizeFeedback,
  type Store,
  StoreError,
} from '@sandscope/store';
import { openCacheStore } from '../cache/open-cache-store.ts';
import { loadConfig } from '../config.ts';
import { corpusDirOf, loadCorpusSource } from '../corpus-source.ts';
import { cacheRemovalOf, evictAnswer } from '../service/feedback-service.ts';
import { markEvidence } from '../service/mark-evidence.ts';
import { isUuid } from '@sandscope/store/values';
import { UserError } from '../user-error.ts';
import { shellArg } from '../shell-arg.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { parseCommandArgs } from './args.ts';
import { openCliStore } from './cli-store.ts';
import { leftOutWords, loadFeedbackQuestions, markTime, unconfirmedSourceWords } from './feedback-marks.ts';
import { fsErrorWords } from './fs-error.ts';

const USAGE =
  'Usage: npx sandscope feedback RUN_ID --label wrong-answer|wrong-refusal|right [--note TEXT] [--evidence PASSAGE_ID|TEXT [--corpus DIR]], or npx sandscope feedback --export FILE.jsonl|- [--force]';

/** `--export -`: the marks go to standard output, as a command's output conventionally does (S-290: it wrote a file named `-`). */
const STDOUT = '-';

/**
 * `sandscope feedback RUN_ID --label wrong-answer|wrong-refusal|right [--note TEXT] [--evidence PASSAGE_ID|TEXT]`
 * marks a run (replacing its previous mark: one per run, and saying which it replaced, S-289), and
 * `sandscope feedback --export FILE.jsonl [--force]` writes every mark as a line of the
 * question format `eval --questions` reads (an existing file only with --force; `-` for standard output). Everything a
 * person can get wrong — the label, the note, the id, the path — is checked before the database is
 * opened, so a typo costs milliseconds and one line.
 *
 * `--evidence` names the passage that answers (S-286): its id or a quotation of it, matched to one passage of the
 * library the agent reads (`--corpus DIR`, else CORPUS_DIR, else the bundled corpus) as eval matches evidence. With
 * `wrong-answer` it says the library answers, from that passage (an answer from the wrong passage); with `right` it
 * confirms the passage the run cited.
 */
export async function feedbackCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('feedback', argv, {
    label: { type: 'string' },
    note: { type: 'string' },
    evidence: { type: 'string' },
    corpus: { type: 'string' },
    export: { type: 'string' },
    force: { type: 'boolean', default: false },
  });
  if (values.export !== undefined) {
    if (positionals.length > 0 || values.label !== undefined || values.note !== undefined || values.evidence !== undefined || values.corpus !== undefined) {
      throw new UserError(`--export writes every mark; it takes no run id, --label, --note, --evidence or --corpus. ${USAGE}`);
    }
    return exportMarks(values.export, values.force);
  }
  if (values.force) throw new UserError(`--force lets --export replace an existing file; marking a run takes no --force. ${USAGE}`);
  if (values.corpus !== undefined && values.evidence === undefined) {
    throw new UserError(`--corpus names the library --evidence is matched against; without --evidence it does nothing. ${USAGE}`);
  }
  return markOne(positionals, values.label, values.note, values.evidence, values.corpus);
}

async function markOne(
  positionals: string[],
  label: string | undefined,
  note: string | undefined,
  evidence: string | undefined,
  corpus: string | undefined,
): Promise<number> {
  if (positionals.length !== 1) throw new UserError(`name exactly one run id. ${USAGE}`);
  const runId = positionals[0]!;
  if (label === undefined) throw new UserError(`--label is required: one of ${FEEDBACK_LABELS.join(', ')}. ${USAGE}`);
  if (!isFeedbackLabel(label)) throw new UserError(`--label must be one of ${FEEDBACK_LABELS.join(', ')} (got "${label}").`);
  if (!isUuid(runId)) throw new UserError(`"${runId}" is not a run id (a uuid). The website's Runs page lists them.`);
  const mark = normalized(label, note);
  // Read before the database is opened: a library folder that is not one fails in one line, costing no start-up.
  const library = evidence?.trim() ? libraryOf(corpus) : null;

  const store = await openCliStore();
  try {
    const passage = library ? await passageNamed(store, runId, evidence!, library) : null;
    const saved = await markRun(store.db, { runId, ...mark, evidence: passage });
    process.stdout.write(`${markedWords(saved)}\n`);
    const unconfirmed = saved.label === 'right' && saved.evidence === null ? await unconfirmedWords(store, runId) : null;
    if (unconfirmed) process.stdout.write(`${unconfirmed}\n`);
    if (saved.label === 'wrong-answer') await evictFromCache(store, runId);
    return 0;
  } catch (error) {
    if (error instanceof StoreError && error.code === 'run_not_found') throw noSuchRun(runId, store);
    if (error instanceof StoreError && error.code === 'run_without_verdict') throw new UserError(`${error.message}. ${error.remedy}`);
    // S-210: stored, such a mark became a question labelled against what the run did. S-286: likewise a right mark
    // naming a passage the run did not cite, which became a question scored right source by construction.
    if (error instanceof StoreError && (error.code === 'mark_contradicts_verdict' || error.code === 'evidence_not_cited')) {
      throw new UserError(`${error.message}. Nothing was marked.`);
    }
    throw error;
  } finally {
    await store.close();
  }
}

function noSuchRun(runId: string, store: Store): UserError {
  return new UserError(
    `there is no run ${runId} in ${store.db.description}. Check the id on the website's Runs page, or point SANDSCOPE_DATA_DIR (or DATABASE_URL) at the agent's database. A run that sandscope ask printed is not among them: ask records nothing; mark runs asked on the website or the API.`,
  );
}

/** What was marked, and what it replaced (S-289): a colleague's mark was replaced without a word. */
function markedWords(saved: MarkedRun): string {
  const what = `${saved.label}${saved.note ? ` (note: ${saved.note})` : ''}${saved.evidence ? ` (the passage that answers: ${saved.evidence})` : ''}`;
  return (
    `Marked run ${saved.runId} ${what}. ${saved.replaced ? `It replaced the earlier mark: ${earlierWords(saved.replaced)}.` : 'It had no earlier mark.'} ` +
    '`npx sandscope eval --feedback` scores every mark (with --corpus DIR, or CORPUS_DIR set, if the agent reads a library of your own).'
  );
}

/** `right, note "good", the passage that answers ledger-db#backups, made 2026-12-08 01:02 UTC`. */
function earlierWords(mark: EarlierMark): string {
  return `${mark.label}${mark.note ? `, note "${mark.note}"` : ''}${mark.evidence ? `, the passage that answers ${mark.evidence}` : ''}, made ${markTime(mark.createdAt)}`;
}

/** A right answer marked without its passage: not scored for source (S-286); said with the passage to confirm. */
async function unconfirmedWords(store: Store, runId: string): Promise<string | null> {
  const [cited] = (await listClaims(store.db, runId)).flatMap((c) => c.citations.map((x) => x.chunkId));
  if (!cited) return null;
  return `It names no passage that answers, so \`eval --feedback\` leaves its source unscored: the run's own citation would be right by construction. If ${cited}, which it cited, answers it, confirm it: \`npx sandscope feedback ${runId} --label right --evidence ${shellArg(cited)}\`.`;
}

interface Library {
  readonly root: string;
  readonly version: string;
  readonly chunks: ReturnType<typeof chunkCorpus>;
  readonly from: ReturnType<typeof corpusDirOf>['from'];
}

/** The library `--evidence` is matched against: --corpus, else CORPUS_DIR, else the bundled corpus; chunked as the agent chunks it. */
function libraryOf(corpus: string | undefined): Library {
  const where = corpusDirOf(corpus);
  const source = loadCorpusSource(where.dir);
  return { root: source.root, version: corpusVersion(source.documents), chunks: chunkCorpus(source.documents), from: where.from };
}

/**
 * The passage `--evidence` names, as its id. The run must have been answered from this library (its corpus version), as
 * `eval --feedback` requires (S-210): matched against the bundled corpus, a team's passage named in a quotation matched
 * nothing, or another library's passage. With a library named (--corpus or CORPUS_DIR) another version is matched with
 * a note, as a library edited since its runs must be.
 */
async function passageNamed(store: Store, runId: string, evidence: string, library: Library): Promise<string | null> {
  const run = await getRunRecord(store.db, runId);
  if (!run) throw noSuchRun(runId, store);
  if (run.corpusVersion !== library.version) {
    if (library.from === 'bundled') {
      throw new UserError(
        `run ${runId} was answered from corpus version ${run.corpusVersion}, but --evidence would be matched against the bundled corpus at ${library.root} (version ${library.version}). Pass --corpus DIR (or set CORPUS_DIR) for the library the agent answered it from. Nothing was marked.`,
      );
    }
    process.stderr.write(
      `sandscope: note: run ${runId} was answered from corpus version ${run.corpusVersion}, not the library at ${library.root} (version ${library.version}); --evidence is matched against its text as it is now.\n`,
    );
  }
  const named = markEvidence(evidence, library.chunks);
  if ('problem' in named) {
    throw new UserError(
      `--evidence: ${named.problem}. Nothing was marked. Name the passage by its id (\`npx sandscope passages${library.from === 'flag' ? ` --corpus ${shellArg(library.root)}` : ''}\` lists them), or quote a sentence only it holds.`,
    );
  }
  return named.passage;
}

/**
 * The marked answer leaves the semantic cache the agent serves from (S-132), the
 * one its settings name: Redis by REDIS_URL, else this database. Where that cache
 * cannot be reached the line says so, and that the answer is not served all the
 * same, the mark having withdrawn it (S-263, S-264): it said nothing on stdout,
 * and "mark it again once the cache is reachable" on stderr.
 */
async function evictFromCache(store: Store, runId: string): Promise<void> {
  const parsed = loadConfig(process.env);
  if (!parsed.ok) return; // openCliStore read the same settings and accepted them
  const cache = await openCacheStore(parsed.config, store, { log: (line) => process.stderr.write(`${line}\n`) });
  try {
    const eviction = await evictAnswer(store.db, cache.store, runId);
    // The description's first part names the cache; the rest is why it was not ready, which the failure says again.
    const where = eviction.failure === null ? cache.description : `${cache.description.split('; ')[0]} failed: ${eviction.failure}`;
    const removal = cacheRemovalOf(eviction, where);
    if (removal) process.stdout.write(`${removal.message}\n`);
  } finally {
    await cache.close();
  }
}

/** The store's own rule for a note, applied before the store is opened. */
function normalized(label: string, note: string | undefined) {
  try {
    return normalizeFeedback(label, note);
  } catch (error) {
    if (error instanceof StoreError) throw new UserError(`${error.message}. Shorten the --note.`);
    throw error;
  }
}

async function exportMarks(path: string, force: boolean): Promise<number> {
  if (path === STDOUT) {
    if (force) throw new UserError('--export - writes the marks to standard output, which --force has nothing to replace in. Leave out --force.');
  } else {
    checkExportPath(path, force);
  }
  const { questions, origin, marks, leftOut } = await loadFeedbackQuestions();
  const text = toJsonl(questions);
  if (path === STDOUT) {
    process.stdout.write(text);
  } else {
    try {
      writeFileAtomic(resolve(path), text);
    } catch (error) {
      throw new UserError(`cannot write ${path}: ${fsErrorWords(error)}. Pass --export with a path you can write to.`);
    }
  }
  // With the marks on standard output, what is said of them goes to standard error, out of the file a pipe writes.
  const say = (line: string) => (path === STDOUT ? process.stderr.write(`sandscope: ${line}\n`) : process.stdout.write(`${line}\n`));
  const answerable = questions.filter((q) => q.label === 'answerable').length;
  const written = leftOut.length ? `${questions.length} questions from the ${marks} marks` : `${questions.length} marks`;
  say(
    `Wrote ${written} from ${origin} to ${path === STDOUT ? 'standard output' : path} (${answerable} answerable, ${questions.length - answerable} unanswerable).`,
  );
  for (const line of leftOutWords(leftOut)) say(line);
  const unconfirmed = unconfirmedSourceWords(questions);
  if (unconfirmed) say(unconfirmed);
  const file = path === STDOUT ? 'FILE.jsonl' : shellArg(path);
  say(
    `Score them with \`npx sandscope eval --questions ${file}\` or \`npx sandscope eval --feedback\` (add --corpus DIR, or set CORPUS_DIR, if the agent reads a library of your own).`,
  );
  return 0;
}

/** A path --export may write: checked before the database is opened. */
function checkExportPath(path: string, force: boolean): void {
  // `--export ""` (an unset shell variable) resolved to the working folder: "sandscope:  is a folder." (S-210).
  if (!path.trim()) throw new UserError('--export was given an empty path. Pass --export with a file name, e.g. feedback.jsonl, or - for standard output.');
  const target = resolve(path);
  if (existsSync(target) && statSync(target).isDirectory()) throw new UserError(`${path} is a folder. Pass --export with a file name, e.g. feedback.jsonl.`);
  if (!existsSync(dirname(target)))
    throw new UserError(`cannot write ${path}: the folder ${dirname(target)} does not exist. Create it, or pass another --export path.`);
  // An existing file may be the person's own labelled set (the format is the one `eval --questions` reads):
  // written over, it was lost without a word.
  if (existsSync(target) && !force) throw new UserError(`${path} already exists. Pass --force to replace it, or another --export path.`);
}
