import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { toJsonl } from '@sandscope/eval';
import { FEEDBACK_LABELS, isFeedbackLabel, markRun, normalizeFeedback, type Store, StoreError } from '@sandscope/store';
import { openCacheStore } from '../cache/open-cache-store.ts';
import { loadConfig } from '../config.ts';
import { evictAnswer } from '../service/feedback-service.ts';
import { isUuid } from '@sandscope/store/values';
import { UserError } from '../user-error.ts';
import { shellArg } from '../shell-arg.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { parseCommandArgs } from './args.ts';
import { openCliStore } from './cli-store.ts';
import { loadFeedbackQuestions } from './feedback-marks.ts';
import { fsErrorWords } from './fs-error.ts';

const USAGE =
  'Usage: npx sandscope feedback RUN_ID --label wrong-answer|wrong-refusal|right [--note TEXT], or npx sandscope feedback --export FILE.jsonl [--force]';

/**
 * `sandscope feedback RUN_ID --label wrong-answer|wrong-refusal|right [--note TEXT]`
 * marks a run (replacing its previous mark: one per run), and
 * `sandscope feedback --export FILE.jsonl [--force]` writes every mark as a line of the
 * question format `eval --questions` reads (an existing file only with --force). Everything a person can get wrong
 * — the label, the note, the id, the path — is checked before the database is
 * opened, so a typo costs milliseconds and one line.
 */
export async function feedbackCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('feedback', argv, {
    label: { type: 'string' },
    note: { type: 'string' },
    export: { type: 'string' },
    force: { type: 'boolean', default: false },
  });
  if (values.export !== undefined) {
    if (positionals.length > 0 || values.label !== undefined || values.note !== undefined) {
      throw new UserError(`--export writes every mark; it takes no run id, --label or --note. ${USAGE}`);
    }
    return exportMarks(values.export, values.force);
  }
  if (values.force) throw new UserError(`--force lets --export replace an existing file; marking a run takes no --force. ${USAGE}`);
  return markOne(positionals, values.label, values.note);
}

async function markOne(positionals: string[], label: string | undefined, note: string | undefined): Promise<number> {
  if (positionals.length !== 1) throw new UserError(`name exactly one run id. ${USAGE}`);
  const runId = positionals[0]!;
  if (label === undefined) throw new UserError(`--label is required: one of ${FEEDBACK_LABELS.join(', ')}. ${USAGE}`);
  if (!isFeedbackLabel(label)) throw new UserError(`--label must be one of ${FEEDBACK_LABELS.join(', ')} (got "${label}").`);
  if (!isUuid(runId)) throw new UserError(`"${runId}" is not a run id (a uuid). The website's Runs page lists them.`);
  const mark = normalized(label, note);

  const store = await openCliStore();
  try {
    const saved = await markRun(store.db, { runId, ...mark });
    process.stdout.write(
      `Marked run ${saved.runId} ${saved.label}${saved.note ? ` (note: ${saved.note})` : ''}; it replaces any earlier mark. \`npx sandscope eval --feedback\` scores every mark (with --corpus DIR, or CORPUS_DIR set, if the agent reads a library of your own).\n`,
    );
    if (saved.label === 'wrong-answer') await evictFromCache(store, runId);
    return 0;
  } catch (error) {
    if (error instanceof StoreError && error.code === 'run_not_found') {
      throw new UserError(
        `there is no run ${runId} in ${store.db.description}. Check the id on the website's Runs page, or point SANDSCOPE_DATA_DIR (or DATABASE_URL) at the agent's database. A run that sandscope ask printed is not among them: ask records nothing; mark runs asked on the website or the API.`,
      );
    }
    if (error instanceof StoreError && error.code === 'run_without_verdict') throw new UserError(`${error.message}. ${error.remedy}`);
    // S-210: stored, such a mark became a question labelled against what the run did.
    if (error instanceof StoreError && error.code === 'mark_contradicts_verdict') throw new UserError(`${error.message}. Nothing was marked.`);
    throw error;
  } finally {
    await store.close();
  }
}

/**
 * The marked answer leaves the semantic cache the agent serves from (S-132), the
 * one its settings name: Redis by REDIS_URL, else this database.
 */
async function evictFromCache(store: Store, runId: string): Promise<void> {
  const parsed = loadConfig(process.env);
  if (!parsed.ok) return; // openCliStore read the same settings and accepted them
  const cache = await openCacheStore(parsed.config, store, { log: (line) => process.stderr.write(`${line}\n`) });
  try {
    const evicted = await evictAnswer(store.db, cache.store, runId, (line) => process.stderr.write(`${line}\n`));
    if (evicted > 0) process.stdout.write(`Its answer is no longer served from the semantic cache (${cache.description}).\n`);
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
  // `--export ""` (an unset shell variable) resolved to the working folder: "sandscope:  is a folder." (S-210).
  if (!path.trim()) throw new UserError('--export was given an empty path. Pass --export with a file name, e.g. feedback.jsonl.');
  const target = resolve(path);
  if (existsSync(target) && statSync(target).isDirectory()) throw new UserError(`${path} is a folder. Pass --export with a file name, e.g. feedback.jsonl.`);
  if (!existsSync(dirname(target)))
    throw new UserError(`cannot write ${path}: the folder ${dirname(target)} does not exist. Create it, or pass another --export path.`);
  // An existing file may be the person's own labelled set (the format is the one `eval --questions` reads):
  // written over, it was lost without a word.
  if (existsSync(target) && !force) throw new UserError(`${path} already exists. Pass --force to replace it, or another --export path.`);
  const { questions, origin } = await loadFeedbackQuestions();
  try {
    writeFileAtomic(target, toJsonl(questions));
  } catch (error) {
    throw new UserError(`cannot write ${path}: ${fsErrorWords(error)}. Pass --export with a path you can write to.`);
  }
  const answerable = questions.filter((q) => q.label === 'answerable').length;
  process.stdout.write(
    `Wrote ${questions.length} marks from ${origin} to ${path} (${answerable} answerable, ${questions.length - answerable} unanswerable). ` +
      `Score them with \`npx sandscope eval --questions ${shellArg(path)}\` or \`npx sandscope eval --feedback\` (add --corpus DIR, or set CORPUS_DIR, if the agent reads a library of your own).\n`,
  );
  return 0;
}
