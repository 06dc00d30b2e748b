import { z } from 'zod';

/*
 * `GET /v1/estate` (docs/API.md) as a zod schema: the wire shape of the
 * engine's estate (packages/engine/src/corpus/estate.ts), which validates
 * estate.json at load with its own rules (kebab-case ids, known services). This
 * one only checks what the website reads, so it carries none of those rules;
 * estate.test.ts holds the engine's type to it. No relative imports, for the
 * reason runs.ts gives.
 */

export const serviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** 1 is most critical. */
  tier: z.number(),
  kind: z.string(),
  owner: z.string(),
  description: z.string(),
});
export type Service = z.infer<typeof serviceSchema>;

export const faultSchema = z.object({
  id: z.string(),
  name: z.string(),
  signals: z.array(z.string()),
  /** Service kinds that can exhibit this fault. */
  serviceKinds: z.array(z.string()),
  /** File name of the runbook in docs/. */
  runbook: z.string(),
});
export type Fault = z.infer<typeof faultSchema>;

/** A documented value (a service's property, or a policy's): where the corpus says it. */
const documentedValue = { name: z.string(), value: z.string(), unit: z.string(), doc: z.string(), heading: z.string() };

export const estateSchema = z.object({
  company: z.string(),
  services: z.array(serviceSchema),
  dependencies: z.array(z.object({ from: z.string(), to: z.string() })),
  faults: z.array(faultSchema),
  properties: z.array(z.object({ service: z.string(), ...documentedValue })),
  policyValues: z.array(z.object(documentedValue)),
});
export type Estate = z.infer<typeof estateSchema>;
