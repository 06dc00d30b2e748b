import type { Intent } from '@sandscope/engine';
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
 * Fields a writer keeps for people, which the parser carries past: `note` (what `feedback --export` writes beside a
 * mark) and `why` (the development corpora's reason for a label). Any other field is an error line (S-282): a writer's
 * `"answer"` or `"source"` holding the labelled passage was ignored like a note, the question was scored with no
 * labelled passage, and it dropped out of right source, MRR and steps without a word (right source 94.4% → 100%).
 */
const NOTE_FIELDS = ['note', 'why'];

/**
 * The intents a question may be labelled with: the answerability model's (`questionIntent`), and `what-to-do`, which
 * the development corpora use. Only `procedure` changes how a question is scored (its answer must carry the labelled
 * section's steps); a value outside these, or one in another case, was not a procedure and said nothing (S-283).
 */
export const INTENTS = ['procedure', 'diagnosis', 'impact', 'cause', 'value', 'meaning', 'yes-no', 'lookup', 'what-to-do'] as const satisfies readonly (
  | Intent
  | 'what-to-do'
)[];

/**
 * A question as compared with another: case, spacing and Unicode forms aside. The same question twice was scored twice
 * (S-284), and calibrate records the questions it fitted bands on by this key, not by the file's path (S-280).
 */
export const questionKey = (question: string): string => question.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * A field that is one of the format's misspelt or in another case: `"evidense"` or `"Evidence"` was ignored like a
 * note, and the question was scored with no labelled passage (S-147). Any other field is refused by `unknownField`.
 */
function misspeltField(value: Record<string, unknown>): string | null {
  const known = [...FIELDS, ...NOTE_FIELDS];
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const meant = known.find((f) => f.toLowerCase() === key.toLowerCase() || (key.length >= 3 && oneEditApart(f, key.toLowerCase())));
    if (meant)
      return `field "${key}" is not one this format reads: did you mean "${meant}"? (the fields are ${FIELDS.join(', ')}; notes go in ${NOTE_FIELDS.join(' or ')})`;
  }
  return null;
}

/** Any other field than the format's and its notes' (S-282): said with where a labelled passage goes, which is what such fields held. */
function unknownField(value: Record<string, unknown>): string | null {
  const key = Object.keys(value).find((k) => !FIELDS.includes(k) && !NOTE_FIELDS.includes(k));
  return key === undefined
    ? null
    : `field "${key}" is not one this format reads: the answering passage goes in "evidence" (a passage id or a quotation of it), its file in "doc", a note in ${NOTE_FIELDS.map((f) => `"${f}"`).join(' or ')}`;
}

/** The intent as the format reads it, in any case; the reason, naming those it reads, when it is none of `INTENTS` (S-283). */
function intentOf(raw: string): { intent: string } | { problem: string } {
  const intent = raw.trim().toLowerCase();
  return (INTENTS as readonly string[]).includes(intent)
    ? { intent }
    : {
        problem: `intent "${raw}" is not one this format reads: it is one of ${INTENTS.join(', ')} (only "procedure" changes the scoring: the answer must carry the labelled section's steps)`,
      };
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
  /**
   * The earlier line this one labels the other way (the same question, answerable there and unanswerable here). Left
   * out, either line would leave the other's label standing unchecked: such a pair stops the run even under
   * `--skip-bad`, which cannot tell which label is wrong (S-284).
   */
  readonly contradicts?: number;
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
  /** Each question's first line and label, by `questionKey`: a second is a duplicate or, labelled otherwise, a contradiction. */
  const asked = new Map<string, { line: number; label: Label }>();
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
    const problem = misspeltField(value as Record<string, unknown>) ?? unknownField(value as Record<string, unknown>);
    if (problem) {
      bad.push({ line, message: problem });
      return;
    }
    const q = parsed.data;
    const intent = q.intent === undefined ? undefined : intentOf(q.intent);
    if (intent && 'problem' in intent) {
      bad.push({ line, message: intent.problem });
      return;
    }
    const refused = options.refuse?.(q.question);
    if (refused) {
      bad.push({ line, message: refused });
      return;
    }
    // S-285: an answering passage named for a question labelled unanswerable contradicts the label. It was ignored when
    // it matched a passage and dropped the question as "not scored" when it did not: one file, two readings. Either
    // the label or the evidence is wrong, and which one decides a false answer, so the writer is asked to choose.
    if (q.label === 'unanswerable' && (q.evidence || q.doc)) {
      bad.push({
        line,
        message: `labelled unanswerable but names an answering ${q.evidence ? 'passage in "evidence"' : 'document in "doc"'}: an unanswerable question has none. If the library answers it, label it answerable; if not, drop "${q.evidence ? 'evidence' : 'doc'}" (a note goes in "note")`,
      });
      return;
    }
    const id = q.id ?? `q${line}`;
    if (ids.has(id)) {
      bad.push({ line, message: `duplicate id "${id}"` });
      return;
    }
    // S-284: the same question twice was scored twice, its verdict counted double; labelled both ways, the pair made a
    // false answer or a false refusal by itself, whatever the product did.
    const key = questionKey(q.question);
    const first = asked.get(key);
    if (first) {
      bad.push(
        first.label === q.label
          ? { line, message: `the same question as line ${first.line} (case and spacing aside): scored twice it would count twice; keep one` }
          : {
              line,
              contradicts: first.line,
              message: `the same question as line ${first.line} (case and spacing aside), labelled ${q.label} here and ${first.label} there: decide which is right and keep that line alone`,
            },
      );
      return;
    }
    asked.set(key, { line, label: q.label });
    ids.add(id);
    questions.push({
      id,
      question: q.question,
      label: q.label,
      mechanism: q.mechanism ?? `external-${q.label}`,
      ...(q.doc ? { doc: q.doc } : {}),
      ...(q.evidence ? { evidence: q.evidence } : {}),
      ...(q.group ? { group: q.group } : {}),
      ...(intent ? { intent: intent.intent } : {}),
    });
  });
  return { questions, bad };
}

export function toJsonl(questions: readonly EvalQuestion[]): string {
  return questions.map((q) => JSON.stringify(q)).join('\n') + '\n';
}
