import type { z } from 'zod';

/**
 * A JSON Lines text, each non-blank line checked against `schema`: every line, or the first bad one by its line number
 * and what is wrong with it. A caller that must not fail (the service) leaves the file out; a script stops with it.
 */
export function parseJsonl<T>(text: string, schema: z.ZodType<T>, what = 'line'): { rows: T[] } | { line: number; why: string } {
  const rows: T[] = [];
  for (const [i, l] of text.split('\n').entries()) {
    if (!l.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(l);
    } catch {
      return { line: i + 1, why: `not JSON (a line cut short?), not a ${what}` };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) return { line: i + 1, why: parsed.error.issues[0]?.message ?? `not a ${what}` };
    rows.push(parsed.data);
  }
  return { rows };
}
