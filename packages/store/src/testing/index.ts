// Fault injection for tests in any package (`@sandscope/store/testing`): a TCP proxy that can cut a server off, a simulated outage;
// and a folder's snapshot, to say a refused data folder was left as it was.
export * from './tcp-proxy.ts';
export * from './simulated-outage.ts';
export * from './folder-snapshot.ts';
