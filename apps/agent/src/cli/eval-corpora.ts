import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { askAgainQuestions, tokenize } from '@sandscope/engine';
import { type EvalQuestion, type EvidenceError, type Measured, measureAll, resolveEvidence, withOneSlip } from '@sandscope/eval';
import { type CorpusSource, DEFAULT_CORPUS_DIR, loadCorpusSource } from '../corpus-source.ts';
import { knowledgeBaseOf } from '../knowledge-base-of.ts';
import { UserError } from '../user-error.ts';
import { absentTexts, readCorpusSourceFile } from './corpus-source-file.ts';
import { readQuestionFile } from './eval-support.ts';

/** The repository's development corpora: hand-written questions over libraries the product was not built on. */
export const DEFAULT_EVAL_CORPORA_DIR = resolve(import.meta.dirname, '../../../../eval-corpora');
/** The bundled corpus's generated set: always in training, never held out. */
export const GENERATED = 'larkspur-generated';

export interface EvalCorpus {
  readonly name: string;
  readonly dir: string;
  /** The README's "Status:" line: seen (its errors were read while developing) or unseen, and since when. */
  readonly status: string;
  /** Null when its texts are not here (public libraries are rebuilt from SOURCE.json by `npm run corpora`). */
  readonly measured: Measured[] | null;
  readonly evidenceErrors: readonly EvidenceError[];
  readonly missing?: string;
  /** The same questions with one slip of the keys each (`typedQuestions`), measured; only when asked for. */
  readonly typed?: Measured[];
  /**
   * For each typed question whose slip is left as typed: the first question its refusal would offer (S-180), measured
   * under the typed question's id, label and evidence. Whether it is offered depends on the verdict, which depends on
   * the model, so leave-one-corpus-out decides which are asked; only when typed questions are asked for.
   */
  readonly askedAgain?: Measured[];
}

/**
 * The questions with one slip of the keys each (`withOneSlip`), in words the library's own texts use: what
 * `npm run -s eval:typos` writes and what the record measures, one definition for both.
 */
export function typedQuestions(source: CorpusSource, questions: readonly EvalQuestion[], seed: number) {
  const library = new Set(source.documents.flatMap((d) => tokenize(d.text)));
  return withOneSlip(questions, (t) => library.has(t), seed);
}

export function statusOf(dir: string): string {
  const readme = join(dir, 'README.md');
  const line = existsSync(readme)
    ? readFileSync(readme, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('Status:'))
    : undefined;
  return line ? line.replace(/^Status:\s*/, '').trim() : 'no status recorded';
}

/**
 * The corpora under `base`: each folder with a questions.jsonl, texts here or not. Read before anything is measured, so
 * a name given to --exclude that is none of them is refused in a moment, as --held-out's is.
 */
export function evalCorpusNames(base: string = DEFAULT_EVAL_CORPORA_DIR): string[] {
  if (!existsSync(base)) throw new UserError(`no development corpora at ${base}: pass --corpora DIR (a folder of corpora, each with questions.jsonl).`);
  return readdirSync(base)
    .sort()
    .filter((name) => existsSync(join(base, name, 'questions.jsonl')));
}

/** Every corpus under `base` with a questions.jsonl, measured once (retrieval + features). */
export async function loadEvalCorpora(
  base: string = DEFAULT_EVAL_CORPORA_DIR,
  only?: (name: string) => boolean,
  options: { readonly typedSeed?: number } = {},
): Promise<EvalCorpus[]> {
  const out: EvalCorpus[] = [];
  for (const name of evalCorpusNames(base)) {
    const dir = join(base, name);
    if (only && !only(name)) continue;
    // Every text SOURCE.json names (S-095): with only docs/ checked, a folder copied while it was still being written
    // was measured on part of its texts, and a model trained on it differed from the record's without a word.
    const absent = existsSync(join(dir, 'SOURCE.json')) ? absentTexts(dir, readCorpusSourceFile(join(dir, 'SOURCE.json'))) : [];
    if (absent.length) {
      const which = existsSync(join(dir, 'docs'))
        ? `${absent.length} of its texts are not here (${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', …' : ''})`
        : 'its texts are not here';
      out.push({
        name,
        dir,
        status: statusOf(dir),
        measured: null,
        evidenceErrors: [],
        missing: `${which}: run \`npm run corpora\` to rebuild ${name}/docs from SOURCE.json`,
      });
      continue;
    }
    const source = loadCorpusSource(dir);
    const kb = await knowledgeBaseOf(source, { shippedBands: true });
    const written = readQuestionFile(join(dir, 'questions.jsonl'), false);
    const { questions, errors } = resolveEvidence(written, kb.chunks);
    const measured = await measureAll(kb, questions, name);
    if (options.typedSeed === undefined) {
      out.push({ name, dir, status: statusOf(dir), measured, evidenceErrors: errors });
      continue;
    }
    const slipped = typedQuestions(source, written, options.typedSeed).questions;
    const typed = await measureAll(kb, resolveEvidence(slipped, kb.chunks).questions, name);
    const offered = typed.flatMap((m) => {
      const again = askAgainQuestions(m.question.question, m.features.nearMisses)[0];
      return again ? [{ ...m.question, question: again }] : [];
    });
    const askedAgain = await measureAll(kb, offered, name);
    out.push({ name, dir, status: statusOf(dir), measured, evidenceErrors: errors, typed, askedAgain });
  }
  return out;
}

/** The bundled corpus's generated question set (corpus/questions.jsonl), measured. */
export async function loadGeneratedSet(
  corpusDir: string = DEFAULT_CORPUS_DIR,
): Promise<{ name: string; measured: Measured[]; evidenceErrors: readonly EvidenceError[] }> {
  const source = loadCorpusSource(corpusDir);
  const kb = await knowledgeBaseOf(source, { shippedBands: true });
  const { questions, errors } = resolveEvidence(readQuestionFile(join(source.root, 'questions.jsonl'), false), kb.chunks);
  return { name: GENERATED, measured: await measureAll(kb, questions, GENERATED), evidenceErrors: errors };
}

/** `--exclude a,b`: corpora kept out of a run (a held-out check not yet made). */
export function parseExclude(raw: string | undefined): Set<string> {
  return new Set(
    (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}
