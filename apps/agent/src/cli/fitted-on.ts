import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { BandsFile } from '@sandscope/engine';
import { questionKey } from '@sandscope/eval';

/**
 * What `calibrate` fitted a corpus's bands on, recorded by the questions' content, and how much of a scored set that
 * is. thresholds.json named only the path string of the file it was given, and `eval` called its figures in-sample only
 * when the same string came back: a copy of the file, the same file from another folder, the marks it was exported
 * from (`--feedback`) or a set sharing 12 of its 32 questions were each printed as "nothing was tuned on these
 * questions" (S-280). Each question is kept as a digest of its text, case and spacing aside (`questionKey`): the file
 * says what was fitted on without holding a team's questions.
 */
export const questionDigest = (question: string): string => createHash('sha256').update(questionKey(question)).digest('hex').slice(0, 16);

/** The digests calibrate writes to thresholds.json (`fittedOnQuestions`), sorted, each once. */
export const fittedOnDigests = (questions: readonly string[]): string[] => [...new Set(questions.map(questionDigest))].sort();

/** Of a scored set, which questions the corpus's bands were fitted on, or that the thresholds.json cannot say. */
export type FittedOn =
  /** `fitted` of the `of` questions scored are among the `recorded` calibrate fitted on (`isFitted` says which). */
  | { readonly recorded: number; readonly fitted: number; readonly of: number; readonly isFitted: (question: string) => boolean; readonly file?: string }
  /** An older thresholds.json, with only the path it was fitted on: in-sample only if the file scored is that path. */
  | { readonly recorded: null; readonly samePath: boolean; readonly file?: string };

export function fittedOnOf(bands: BandsFile, questions: readonly string[], questionsFile?: string): FittedOn {
  const file = bands.fittedOn;
  const digests = bands.fittedOnQuestions;
  if (Array.isArray(digests) && digests.every((d) => typeof d === 'string')) {
    const recorded = new Set(digests);
    const isFitted = (q: string) => recorded.has(questionDigest(q));
    return { recorded: recorded.size, fitted: questions.filter(isFitted).length, of: questions.length, isFitted, ...(file ? { file } : {}) };
  }
  return { recorded: null, samePath: file !== undefined && questionsFile !== undefined && resolve(file) === resolve(questionsFile), ...(file ? { file } : {}) };
}

/** How much of the scored set the bands were fitted on: all of it, some, none, or (an older file) not known. */
export function fittedShare(f: FittedOn): 'all' | 'some' | 'none' | 'unknown' {
  if (f.recorded === null) return f.samePath ? 'all' : 'unknown';
  return f.fitted === 0 ? 'none' : f.fitted === f.of ? 'all' : 'some';
}
