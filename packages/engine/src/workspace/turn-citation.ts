/** What a claim stands on: lines of a workspace file, or a runbook passage. */
export type TurnCitation =
  | { readonly kind: 'file'; readonly path: string; readonly startLine: number; readonly endLine: number }
  | { readonly kind: 'passage'; readonly chunkId: string };

/**
 * `app.log:4312-4318` for file lines, the passage id for a runbook passage: how a turn's answer, the CLI and the
 * website name a citation. A module of its own, with nothing to import, so the website takes it through the API
 * contract instead of keeping a copy (one that could drift from what the answer text prints).
 */
export function citationLabel(c: TurnCitation): string {
  if (c.kind === 'passage') return c.chunkId;
  return c.startLine === c.endLine ? `${c.path}:${c.startLine}` : `${c.path}:${c.startLine}-${c.endLine}`;
}
