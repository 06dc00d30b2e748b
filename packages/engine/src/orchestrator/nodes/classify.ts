import type { NodeSpec } from '../node-context.ts';
import { servicesNamed } from '../risk-scorer.ts';
import { DEFAULT_WORKLOAD, isWorkload } from '../workloads.ts';

/**
 * classify: fixes the run's workload (the one asked for, triage by default) and
 * names what the question is about — the entities the corpus knows, and the
 * estate services among them. Nothing downstream branches on the workload; it
 * only looks up that workload's data.
 */
export const classify: NodeSpec = {
  id: 'classify',
  run(state, { kb }) {
    const workload = state.workload ?? DEFAULT_WORKLOAD;
    if (!isWorkload(workload))
      throw new Error(`classify: unknown workload "${String(workload)}" reached the graph; the boundary must parse it (parseWorkload)`);
    return {
      workload,
      entities: kb.lexicon.entitiesIn(state.question),
      services: servicesNamed(state.question, kb.estate).map((s) => s.id),
    };
  },
  summarise: (update) => ({ workload: update.workload, entities: update.entities, services: update.services }),
};
