/*
 * Imports types only, on purpose: the website reads this file through @sandscope/api (as it reads outcome.ts),
 * so the CLI, the agent's HTTP door and the website's console read a workload by one rule. They had three: the
 * CLI took `-w CHANGE`, the API refused "Change", and the console had a list of its own (S-140).
 */

/** The workloads, in the order the console offers them: the one list the type, the API's schema and every door read. */
export const WORKLOAD_IDS = ['triage', 'change', 'postmortem'] as const;
export type Workload = (typeof WORKLOAD_IDS)[number];

export const DEFAULT_WORKLOAD: Workload = 'triage';

export function isWorkload(value: unknown): value is Workload {
  return typeof value === 'string' && (WORKLOAD_IDS as readonly string[]).includes(value);
}

/**
 * A workload id from user input — any case, spaces around it ignored; absent or empty is the default — or a
 * one-line message naming the choices. A value, not a throw: the boundary (CLI, HTTP, console) reports it.
 */
export function parseWorkload(value: string | undefined): { ok: true; workload: Workload } | { ok: false; message: string } {
  if (value === undefined || value.trim() === '') return { ok: true, workload: DEFAULT_WORKLOAD };
  const id = value.trim().toLowerCase();
  if (isWorkload(id)) return { ok: true, workload: id };
  return { ok: false, message: `unknown workload "${value}". Choose one of: ${WORKLOAD_IDS.join(', ')} (default ${DEFAULT_WORKLOAD}).` };
}
