import { NUMBERS_PREFIX } from '@sandscope/api';

/**
 * A decision's reasons as a person reads them (issue 13, item 3): the sentences first, the model's numbers
 * ("The numbers: answerability 35% (refuse below 87%…)") behind a disclosure. The engine starts that reason
 * with NUMBERS_PREFIX, shared through the contract.
 */
export function splitReasons(reasons: readonly string[]): { readonly plain: readonly string[]; readonly numbers: readonly string[] } {
  const numbers = reasons.filter((r) => r.startsWith(NUMBERS_PREFIX)).map((r) => r.slice(NUMBERS_PREFIX.length));
  return { plain: reasons.filter((r) => !r.startsWith(NUMBERS_PREFIX)), numbers };
}
