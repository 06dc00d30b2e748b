import { graphDescription } from '@sandscope/engine/orchestrator';
import { parseCommandOptions } from './args.ts';

/** `sandscope graph [--json]` — the compiled orchestration graph: Mermaid, or `{ nodes, edges, mermaid }`. */
export async function graphCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandOptions('graph', argv, { json: { type: 'boolean', default: false } });
  const description = graphDescription();
  process.stdout.write(values.json ? `${JSON.stringify(description, null, 2)}\n` : `${description.mermaid.trimEnd()}\n`);
  return 0;
}
