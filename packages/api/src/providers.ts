import { z } from 'zod';

/*
 * `GET /v1/providers` (docs/API.md) as a zod schema: the model providers the
 * agent may call, in the order it tries them, which the console lists for
 * failure injection. No relative imports, for the reason runs.ts gives.
 */

export const providerSchema = z.object({ name: z.string(), model: z.string(), configured: z.boolean() });
export type Provider = z.infer<typeof providerSchema>;

export const providerListSchema = z.object({ providers: z.array(providerSchema) });
