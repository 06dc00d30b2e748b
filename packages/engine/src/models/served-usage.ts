import type { LanguageModelV3CallOptions, LanguageModelV3Usage } from '@ai-sdk/provider';
import { promptTokenBound } from './pricing.ts';

/** A served reply's usage as it is charged, and why it is not the usage the provider reported, when it is not. */
export interface ServedUsage {
  readonly usage: LanguageModelV3Usage;
  /** Set when a part was taken at its bound: what the provider reported and what it is charged at instead. */
  readonly note?: string;
}

/**
 * The usage a served reply is charged at: what the provider reported, except a count that cannot be true of a reply
 * that said something, which is taken at its bound.
 *
 * S-265: a reply reporting `usage: {prompt_tokens: 0, completion_tokens: 0}` (or `usage: {}`, which the client reads
 * as 0/0) for a real answer was charged $0, while the same reply with no `usage` at all was charged the whole
 * reservation by the spend guard's fail-safe. No prompt is 0 tokens (the chat template alone is several), and a reply
 * with text or a tool call in it is at least one output token, so a count of 0 (or less, or not a number) is not a
 * count: it is read as unreported, as a missing one is, and both are charged at the bound a timeout and an unreadable
 * 200 reply are (S-141, S-255): the prompt as sent (`promptTokenBound`) and the output tokens the call was allowed.
 *
 * Why the bound and not an estimate from the reply's text: the text is not all a provider bills. A reasoning model
 * (gemini-2.5-flash among the defaults) bills thinking tokens it never returns, and a tokenizer may spend several
 * tokens on a character, so an estimate from what came back can be below what was billed; the bound cannot be, as a
 * provider honouring max_tokens bills no more output than that. Only the part reported as none is replaced: a reply
 * reporting 0 prompt tokens and 20 output tokens is charged the prompt's bound and the 20.
 *
 * Without an output cap on the call (a router used without the spend guard, which always sends one) the output has
 * no bound, and a missing output count stays unknown: the spend guard's fail-safe, the whole reservation, applies.
 */
export function servedUsage(reported: LanguageModelV3Usage | undefined, call: LanguageModelV3CallOptions): ServedUsage {
  const input = reported?.inputTokens.total;
  const output = reported?.outputTokens.total;
  const inputCounted = isCount(input);
  const outputCounted = isCount(output);
  if (reported && inputCounted && outputCounted) return { usage: reported };

  const promptBound = promptTokenBound(call);
  const outputBound = call.maxOutputTokens;
  const usage: LanguageModelV3Usage = {
    inputTokens: inputCounted && reported ? reported.inputTokens : { total: promptBound, noCache: promptBound, cacheRead: undefined, cacheWrite: undefined },
    outputTokens:
      outputCounted && reported
        ? reported.outputTokens
        : outputBound === undefined
          ? { total: undefined, text: undefined, reasoning: undefined }
          : { total: outputBound, text: outputBound, reasoning: undefined },
    ...(reported?.raw !== undefined ? { raw: reported.raw } : {}),
  };
  const said = input === undefined && output === undefined ? 'no usage reported' : `reported ${shown(input)} prompt and ${shown(output)} output tokens`;
  const taken = [
    ...(inputCounted ? [] : [`the prompt as sent, ${promptBound} tokens`]),
    ...(outputCounted
      ? []
      : [outputBound === undefined ? 'its output unknown, as no max_tokens was sent to bound it' : `the ${outputBound} output tokens it was allowed`]),
  ];
  return { usage, note: `${said} for a reply that said something; charged at its bound (${taken.join(', and ')})` };
}

/** A token count a provider could have billed: a number above 0. */
function isCount(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value > 0;
}

function shown(value: number | undefined): string {
  return value === undefined ? 'no' : String(value);
}
