// Fault injection for tests in any package (`@sandscope/store/testing`): a TCP proxy that can cut a server off, a simulated outage.
export * from './tcp-proxy.ts';
export * from './simulated-outage.ts';
