import { sentencesOf } from '../answer/sentences.ts';
import type { Chunk } from '../types.ts';

/**
 * Corpus text is data, and some of it does not read as data (issue 12, defect 9):
 * a passage that tells a model what to do ("ignore previous instructions and …"),
 * or carries active markup (`<script>`, an `onerror=` handler, a `javascript:`
 * link), was quoted as a cited claim like any other sentence. Such text is marked
 * when the corpus is indexed — a reason the trace shows — and never quoted: the
 * offline drafter leaves it out, and the citation check fails a model's claim that
 * repeats it. The passage still counts as evidence for what else it says.
 */
export type HazardKind = 'instructions' | 'markup';

export interface PassageHazard {
  readonly kind: HazardKind;
  /** The sentence that carries it, as `sentencesOf` cuts the passage. */
  readonly sentence: string;
}

/** Phrases addressed to a model, not to an engineer: what prompt injections say, not what runbooks say. */
const ADDRESSED_TO_A_MODEL = new RegExp(
  [
    String.raw`\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding|system|other)\s+(?:instructions?|prompts?|rules?|directions?|messages?)`,
    String.raw`\b(?:you are now|from now on,? you are|act as|pretend to be)\s+(?:an?\s+|the\s+)?(?:unrestricted\s+|different\s+|new\s+)?(?:ai|assistant|model|language model|chatbot|llm)\b`,
    String.raw`\b(?:system prompt|developer message|jailbreak)\b`,
    String.raw`\b(?:as an ai(?: language model)?|as a large language model)\b`,
    String.raw`\b(?:reveal|print|repeat|output|leak)\s+(?:your|the)\s+(?:system\s+)?(?:prompt|instructions|api key|secrets?)\b`,
    String.raw`\b(?:assistant|ai|model|llm|chatbot)s?\s*(?:,|:)?\s*(?:must|should|shall|always|never)\s+(?:answer|reply|respond|say|cite|recommend|tell)\b`,
    String.raw`\b(?:respond|reply|answer) only with\b`,
    String.raw`\bdo not (?:cite|mention|refuse|tell the user)\b`,
  ].join('|'),
  'i',
);

/** Markup that runs or loads something when rendered: never a fact about the estate. */
const ACTIVE_MARKUP = /<\s*\/?\s*(?:script|iframe|object|embed|style|form|svg|img|link|meta)\b|\bon[a-z]+\s*=\s*["']?|javascript\s*:|data\s*:\s*text\/html/i;

export function hazardOf(sentence: string): HazardKind | null {
  if (ADDRESSED_TO_A_MODEL.test(sentence)) return 'instructions';
  if (ACTIVE_MARKUP.test(sentence)) return 'markup';
  return null;
}

/** Every hazardous sentence of a passage (heading included: a heading is quoted in answers too). */
export function hazardsOf(chunk: Chunk): PassageHazard[] {
  const out: PassageHazard[] = [];
  for (const sentence of [chunk.heading, ...sentencesOf(chunk.text)]) {
    const kind = hazardOf(sentence);
    if (kind) out.push({ kind, sentence });
  }
  return out;
}

/** The reason a person reads in the trace. */
export function hazardReason(chunk: Chunk, hazards: readonly PassageHazard[]): string {
  const kinds = [...new Set(hazards.map((h) => h.kind))];
  const what = kinds
    .map((k) =>
      k === 'instructions'
        ? 'text addressed to a model ("ignore previous instructions" and the like)'
        : 'active markup (a script, an event handler, a javascript: link)',
    )
    .join(' and ');
  return `“${chunk.heading}” in ${chunk.docTitle} holds ${what}; that text is data, never quoted or followed.`;
}
