import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../user-error.ts';

/**
 * A public development corpus's SOURCE.json: the repository, the commit and the files its texts are rebuilt from
 * (`npm run corpora`); the texts themselves are not committed.
 */
export const CorpusSourceFile = z.object({
  repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  licence: z.string().min(1),
  // A ".." segment would climb out of docs/ (and out of the corpus): `docs/../../x.md` matched the pattern alone.
  files: z
    .array(
      z.object({
        from: z.string().min(1),
        to: z
          .string()
          .regex(/^docs\/[^/].*\.md$/)
          .refine((to) => !to.split('/').includes('..'), 'must stay inside docs/ (no ".." segment)'),
      }),
    )
    .min(1),
});
export type CorpusSourceFile = z.infer<typeof CorpusSourceFile>;

/** The corpus's SOURCE.json, checked; a clear error naming the file and field when it is not one. */
export function readCorpusSourceFile(sourcePath: string): CorpusSourceFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(sourcePath, 'utf8'));
  } catch (error) {
    // The parser quotes a short file back, line breaks and all: the message stays one line.
    const why = (error as Error).message.replace(/\s+/g, ' ');
    throw new UserError(`${sourcePath} is not valid JSON (${why}). Fix it: it names the repository, commit, licence and files.`);
  }
  const parsed = CorpusSourceFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UserError(`${sourcePath}: ${issue?.path.join('.') || '(the whole file)'}: ${issue?.message}. Fix the field.`);
  }
  return parsed.data;
}

/**
 * The texts SOURCE.json names that are not in the corpus folder. Every file, not the folder: a rebuild cut short, or
 * a copy of a folder still being written, leaves docs/ with some of them (S-095).
 */
export function absentTexts(dir: string, source: CorpusSourceFile): string[] {
  return source.files.filter((f) => !existsSync(join(dir, f.to))).map((f) => f.to);
}
