import { z } from 'zod';

/*
 * `GET /v1/graph` (docs/API.md) as a zod schema: the engine's GraphDescription
 * on the wire, which the architecture page draws. graph.test.ts holds the
 * engine's type to it. No relative imports, for the reason runs.ts gives.
 */

/** A node of the graph as it runs; `file` is the repo path implementing it (null for `__start__`/`__end__`). */
export const graphNodeSchema = z.object({ id: z.string(), terminal: z.boolean(), file: z.string().nullable() });
export type GraphNode = z.infer<typeof graphNodeSchema>;

export const graphSchema = z.object({
  nodes: z.array(graphNodeSchema),
  edges: z.array(z.object({ from: z.string(), to: z.string(), conditional: z.boolean() })),
  mermaid: z.string(),
});
export type Graph = z.infer<typeof graphSchema>;
