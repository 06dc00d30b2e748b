/** Where the browser tests' servers listen (127.0.0.1). */
export const PORTS = { web: 3100, webFaults: 3101, webDown: 3102, agent: 7870, faultAgent: 7871, nothing: 7879, stubA: 7881, stubB: 7882 } as const;
