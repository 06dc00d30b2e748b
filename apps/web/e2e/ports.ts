/**
 * Where the browser tests' servers listen (127.0.0.1). E2E_PORT_OFFSET moves
 * them all by the same amount, so two checkouts on one machine can run their
 * browser tests at once without taking each other's ports.
 */
const offset = Number(process.env.E2E_PORT_OFFSET ?? 0) || 0;
const DEFAULT_PORTS = { web: 3100, webFaults: 3101, webDown: 3102, agent: 7870, faultAgent: 7871, nothing: 7879, stubA: 7881, stubB: 7882 } as const;
export const PORTS = Object.fromEntries(Object.entries(DEFAULT_PORTS).map(([k, v]) => [k, v + offset])) as { readonly [K in keyof typeof DEFAULT_PORTS]: number };
