import type { Estate } from './estate.ts';

/**
 * Does this text name a class the entity belongs to? The estate's tier is such a
 * class: a policy rules by tier ("Normal changes to tier 1 and tier 2 services are
 * deployed Tuesday to Thursday"), and every tier-1 service is named by "tier 1".
 */
export type ClassNamer = (text: string, entity: string) => boolean;

/**
 * The estate's classes as a `ClassNamer`: each service (id and display name) is named
 * by its tier, "tier 1" or "tiers 1", never "tier 10". Without it, "how many approvals
 * does a normal change to payments-api need?" was refused: the approval rule never
 * names payments-api, only "tier 1 services" (S-134). Estate corpora only: a library
 * without an estate has no tiers to read.
 */
export function estateClassNamer(estate: Estate | null | undefined): ClassNamer | undefined {
  if (!estate?.services.length) return undefined;
  const tierOf = new Map<string, RegExp>();
  for (const s of estate.services) {
    const tier = new RegExp(`\\btiers?[\\s-]*${s.tier}\\b`, 'i');
    tierOf.set(s.id.toLowerCase(), tier);
    tierOf.set(s.name.toLowerCase(), tier);
  }
  return (text, entity) => tierOf.get(entity)?.test(text) ?? false;
}
