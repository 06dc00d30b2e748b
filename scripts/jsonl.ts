import { readFileSync } from 'node:fs';
import { UserError } from 'sandscope/user-error';
import type { z } from 'zod';

/** A JSON Lines file of recorded judgements, each line checked against `schema`; a bad line is named by file and number. */
export const readJsonl = <T>(file: string, schema: z.ZodType<T>, what = 'line'): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      let json: unknown = null;
      try {
        json = JSON.parse(l);
      } catch {
        // a line cut short falls through to the message below, not a bug report
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw new UserError(`${file}:${i + 1}: ${parsed.error.issues[0]?.message ?? `not a ${what}`}`);
      return parsed.data;
    });
