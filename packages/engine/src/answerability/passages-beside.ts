/**
 * S-190: the passages an answer stands beside — those the decision found closest (`closest`, then `nextClosest`: at
 * most three, the most likely first, S-172) that the answer does not cite. Offline, about one answer in five cites a
 * passage other than the labelled one (the record's wrong-source answers), and such an answer looks exactly as sure as
 * a right one: the failure Sandscope exists to prevent, a confident, cited answer about the wrong service. A refusal
 * already names the closest passages to read (S-172); an answer named only its own sources, so a person had nothing
 * to check it against. Named, never cited: no claim rests on them and the verdict is not touched.
 *
 * Declared with ids only and importing nothing, so the evaluation's count, the CLI and the website (through
 * @sandscope/api) name the same passages by the same rule.
 */
export function passagesBeside(closest: readonly string[], cited: Iterable<string>): string[] {
  const citedIds = new Set(cited);
  return [...new Set(closest)].filter((id) => id !== '' && !citedIds.has(id));
}
