/**
 * Where the browser tests' servers listen (127.0.0.1). E2E_PORT_OFFSET moves
 * them all by the same amount, so two checkouts on one machine can run their
 * browser tests at once without taking each other's ports.
 */
const offset = Number(process.env.E2E_PORT_OFFSET ?? 0) || 0;
const DEFAULT_PORTS = { web: 3100, webFaults: 3101, webDown: 3102, agent: 7870, faultAgent: 7871, nothing: 7879, stubA: 7881, stubB: 7882 } as const;
export const PORTS = Object.fromEntries(Object.entries(DEFAULT_PORTS).map(([k, v]) => [k, v + offset])) as {
  readonly [K in keyof typeof DEFAULT_PORTS]: number;
};

/**
 * INVESTIGATION_FILE_MAX_BYTES of the agent under test: above the 5,000-line
 * log investigations.spec.ts uploads (about 0.4 MB), small enough that a spec
 * sends a file just over it rather than the production-sized upload the cap
 * exists for.
 */
export const UPLOAD_CAP_BYTES = 1_000_000;
