import { z } from 'zod';

/**
 * The invented company's estate: services, dependencies, fault types, and the
 * properties the corpus documents for each service. Validated at load so a typo
 * in estate.json is a clear message, not a wrong answer later.
 */
export const ServiceSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'service ids are kebab-case'),
  name: z.string().min(1),
  /** 1 is most critical. */
  tier: z.number().int().min(1).max(4),
  /** What sort of component it is; faults name the kinds that can exhibit them. */
  kind: z.string().min(1),
  owner: z.string().min(1),
  description: z.string().min(1),
});

export const DependencySchema = z.object({
  /** The service that depends … */
  from: z.string(),
  /** … on this one. */
  to: z.string(),
});

export const FaultSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  name: z.string().min(1),
  /** Symptom signals an on-call engineer would see (alert names, metric shapes, log lines). */
  signals: z.array(z.string().min(1)).min(1),
  /** Service kinds that can exhibit this fault. */
  serviceKinds: z.array(z.string().min(1)).min(1),
  /** File name of the runbook in docs/. */
  runbook: z.string().endsWith('.md'),
});

export const PropertySchema = z.object({
  service: z.string(),
  /** e.g. "connection pool ceiling". */
  name: z.string().min(1),
  value: z.string().min(1),
  unit: z.string(),
  doc: z.string().endsWith('.md'),
  heading: z.string().min(1),
});

export const PolicyValueSchema = z.object({
  /** e.g. "acknowledgement time for a SEV1 page". */
  name: z.string().min(1),
  value: z.string().min(1),
  unit: z.string(),
  doc: z.string().endsWith('.md'),
  heading: z.string().min(1),
});

export const EstateSchema = z
  .object({
    company: z.string().min(1),
    services: z.array(ServiceSchema).min(1),
    dependencies: z.array(DependencySchema),
    faults: z.array(FaultSchema),
    properties: z.array(PropertySchema),
    policyValues: z.array(PolicyValueSchema).default([]),
  })
  .superRefine((estate, ctx) => {
    const ids = new Set(estate.services.map((s) => s.id));
    estate.dependencies.forEach((d, i) => {
      for (const end of ['from', 'to'] as const) {
        if (!ids.has(d[end])) {
          ctx.addIssue({ code: 'custom', path: ['dependencies', i, end], message: `unknown service "${d[end]}"` });
        }
      }
    });
    estate.properties.forEach((p, i) => {
      if (!ids.has(p.service)) {
        ctx.addIssue({ code: 'custom', path: ['properties', i, 'service'], message: `unknown service "${p.service}"` });
      }
    });
  });

export type Estate = z.infer<typeof EstateSchema>;
export type Service = z.infer<typeof ServiceSchema>;
export type Fault = z.infer<typeof FaultSchema>;
export type Property = z.infer<typeof PropertySchema>;
export type PolicyValue = z.infer<typeof PolicyValueSchema>;

/** Parse an estate, returning a readable message on failure instead of a zod dump. */
export function parseEstate(raw: unknown): { ok: true; estate: Estate } | { ok: false; message: string } {
  const result = EstateSchema.safeParse(raw);
  if (result.success) return { ok: true, estate: result.data };
  const first = result.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return { ok: false, message: `estate.json is invalid — ${first.join('; ')}` };
}
