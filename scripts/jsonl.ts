import { readFileSync } from 'node:fs';
import { parseJsonl } from '@sandscope/eval';
import { UserError } from 'sandscope/user-error';
import type { z } from 'zod';

/** A JSON Lines file of recorded judgements, each line checked against `schema`; a bad line is named by file and number. */
export function readJsonl<T>(file: string, schema: z.ZodType<T>, what = 'line'): T[] {
  const parsed = parseJsonl(readFileSync(file, 'utf8'), schema, what);
  if ('why' in parsed) throw new UserError(`${file}:${parsed.line}: ${parsed.why}`);
  return parsed.rows;
}
