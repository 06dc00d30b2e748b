import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from '../user-error.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { fsErrorWords } from './fs-error.ts';

/**
 * Checks that `path` can be a file the command writes, before the command does its work: a folder, or a file in a
 * folder that does not exist, is one line saying what to do (`questions --out` reached the write after indexing
 * and generating, then died as an "internal error … This is a bug"). So is a file already there, unless `force`:
 * `questions` wrote over a corpus's hand-labelled questions.jsonl without a word (as `feedback --export` refuses to).
 */
export function checkOutFile(path: string, flag: string, force: boolean): void {
  const target = resolve(path);
  if (existsSync(target) && statSync(target).isDirectory()) throw new UserError(`${path} is a folder. Pass ${flag} with a file name, e.g. questions.jsonl.`);
  if (!existsSync(dirname(target)))
    throw new UserError(`cannot write ${path}: the folder ${dirname(target)} does not exist. Create it, or pass another ${flag} path.`);
  if (existsSync(target) && !force) throw new UserError(`${path} already exists. Pass --force to replace it, or ${flag} with another path.`);
}

/**
 * Writes the file whole or not at all (a full disk left the file --force replaced destroyed and half a new one, S-209),
 * a refusal (read-only folder, full disk) said in one line naming the path and the flag.
 */
export function writeOutFile(path: string, text: string, flag: string): void {
  try {
    writeFileAtomic(path, text);
  } catch (error) {
    throw new UserError(`cannot write ${path}: ${fsErrorWords(error)}. Pass ${flag} with a path you can write to.`);
  }
}
