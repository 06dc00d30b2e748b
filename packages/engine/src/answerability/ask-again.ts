/**
 * A slip a refusal offers a word for (the respeller's `NearMiss`): the word as typed, where, and the library's words one
 * edit from it. Declared here, not imported, so that this file imports nothing: the website's compiler reads it through
 * @sandscope/api as it is.
 */
interface Slip {
  readonly written: string;
  readonly at: number;
  readonly library: readonly string[];
}

/** At most this many questions are offered to ask again: one per word the library writes for a slip, and no more. */
export const MAX_ASK_AGAIN = 3;

const andList = (items: readonly string[]) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? ''));

/**
 * S-179: a refusal's lines offering the library's words for each slip it left as typed, one line per word however
 * often it was typed ("the alret fired and the alret keeps firing" said the same line twice). Every refusal that
 * offers says it in these words, offline or by a reader (S-180: a reader's refusal said nothing of the slip).
 */
export function offerLines(nearMisses: readonly Slip[]): string[] {
  return [...new Set(nearMisses.map(offerLine))];
}

/** One slip's line (`offerLines`). */
export function offerLine(n: Slip): string {
  return n.library.length === 1
    ? `“${n.written}” is no word the library uses; it writes “${n.library[0]}”, one edit from it. If that is what you meant, ask again with it.`
    : `“${n.written}” is no word the library uses; it writes ${andList(n.library.map((w) => `“${w}”`))}, each one edit from it. If one is what you meant, ask again with it.`;
}

/**
 * S-180: the questions a refusal offers to ask again — the question as typed, each slip it left replaced by a word the
 * library writes one edit from it, in the slip's case, and nothing else changed. S-179's offer said "ask again with
 * it" and left a person at 3am to retype the question, which on a phone is where the slip came from. Offered, never
 * asked: the person chooses (a slip may be meant, "servce" may be service or serve). The first questions take each
 * slip's first word, the likeliest; at most `MAX_ASK_AGAIN`.
 */
export function askAgainQuestions(question: string, nearMisses: readonly Slip[]): string[] {
  const slips = nearMisses.filter((n) => n.library.length > 0 && question.startsWith(n.written, n.at)).sort((a, b) => a.at - b.at);
  if (slips.length === 0) return [];
  let choices: string[][] = [[]];
  for (const n of slips) choices = choices.flatMap((c) => n.library.map((w) => [...c, inCaseOf(n.written, w)])).slice(0, MAX_ASK_AGAIN);
  return choices.map((words) => {
    let out = '';
    let from = 0;
    slips.forEach((n, i) => {
      out += question.slice(from, n.at) + words[i]!;
      from = n.at + n.written.length;
    });
    return out + question.slice(from);
  });
}

/** The library's word as the slip was cased: "Alret" is typed again "Alert", "alret" "alert". */
function inCaseOf(written: string, word: string): string {
  return /^[A-Z][a-z]/.test(written) ? word.charAt(0).toUpperCase() + word.slice(1) : word;
}
