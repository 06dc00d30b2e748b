import { z } from 'zod';

export type Label = 'answerable' | 'unanswerable';

/** One evaluation question. Answerable ones carry the passage they were made from (the evidence by construction). */
export interface EvalQuestion {
  readonly id: string;
  readonly question: string;
  readonly label: Label;
  readonly mechanism: string;
  /** File name of the answering document, when known. */
  readonly doc?: string;
  /** Chunk id of the answering passage, when known. */
  readonly evidence?: string;
  /**
   * The writer's quotation of the evidence, when it was quoted text (`resolveEvidence` turns it into the
   * passage's id): it places the labelled section inside a passage that merges several.
   */
  readonly quoted?: string;
  /** The source item it was made from; cross-validation keeps a group in one fold. */
  readonly group?: string;
  /** What the writer says the question asks for (`procedure`, `value`, …): procedure answers are checked for their steps. */
  readonly intent?: string;
}

const ExternalQuestion = z.object({
  id: z.string().min(1).optional(),
  question: z.string().trim().min(1, 'question must be a non-empty string'),
  label: z.enum(['answerable', 'unanswerable']),
  mechanism: z.string().min(1).optional(),
  doc: z.string().min(1).optional(),
  evidence: z.string().min(1).optional(),
  group: z.string().min(1).optional(),
  intent: z.string().min(1).optional(),
});

const FIELDS = Object.keys(ExternalQuestion.shape);

/**
 * A field that is one of the format's misspelt or in another case: `"evidense"` or `"Evidence"` was ignored like a
 * note, and the question was scored with no labelled passage (S-147). Other fields (a writer's `"why"`) stay notes.
 */
function misspeltField(value: Record<string, unknown>): string | null {
  for (const key of Object.keys(value)) {
    if (FIELDS.includes(key)) continue;
    const meant = FIELDS.find((f) => f.toLowerCase() === key.toLowerCase() || (key.length >= 3 && oneEditApart(f, key.toLowerCase())));
    if (meant) return `field "${key}" is not one this format reads: did you mean "${meant}"? (the fields are ${FIELDS.join(', ')})`;
  }
  return null;
}

/** One letter added, dropped, changed, or two neighbours swapped. */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return (
    a.slice(i + 1) === b.slice(i + 1) || // changed
    a.slice(i + 1) === b.slice(i) || // dropped
    a.slice(i) === b.slice(i + 1) || // added
    (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)) // swapped
  );
}

export interface BadLine {
  readonly line: number;
  readonly message: string;
}

/**
 * Parse a JSONL question file. Every malformed line is reported with its line
 * number; the caller decides whether to stop (the default) or skip them.
 * `refuse` is the caller's own rule for a question it would not take (the CLI's length limit, which `ask` refuses by):
 * a question it names a reason for is a bad line like any other.
 */
export function parseQuestionsJsonl(
  text: string,
  options: { readonly refuse?: (question: string) => string | null } = {},
): { questions: EvalQuestion[]; bad: BadLine[] } {
  const questions: EvalQuestion[] = [];
  const bad: BadLine[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      bad.push({ line, message: `not JSON (${(error as Error).message})` });
      return;
    }
    const parsed = ExternalQuestion.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      bad.push({ line, message: `${issue.path.join('.') || 'line'}: ${issue.message}` });
      return;
    }
    const misspelt = misspeltField(value as Record<string, unknown>);
    if (misspelt) {
      bad.push({ line, message: misspelt });
      return;
    }
    const q = parsed.data;
    const refused = options.refuse?.(q.question);
    if (refused) {
      bad.push({ line, message: refused });
      return;
    }
    const id = q.id ?? `q${line}`;
    if (ids.has(id)) {
      bad.push({ line, message: `duplicate id "${id}"` });
      return;
    }
    ids.add(id);
    questions.push({
      id,
      question: q.question,
      label: q.label,
      mechanism: q.mechanism ?? `external-${q.label}`,
      ...(q.doc ? { doc: q.doc } : {}),
      ...(q.evidence ? { evidence: q.evidence } : {}),
      ...(q.group ? { group: q.group } : {}),
      ...(q.intent ? { intent: q.intent } : {}),
    });
  });
  return { questions, bad };
}

export function toJsonl(questions: readonly EvalQuestion[]): string {
  return questions.map((q) => JSON.stringify(q)).join('\n') + '\n';
}
