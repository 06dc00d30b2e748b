/*
 * Fakes shipped with the engine (STYLE 12), for tests and scripts in any
 * package (`@sandscope/engine/testing`): a stub OpenAI-compatible server on
 * 127.0.0.1, a scripted model that records its calls, an incident's files.
 * Free of vitest, so a script run by tsx can import it. The contract suites,
 * which need vitest, are `@sandscope/engine/testing/contracts`.
 */
export * from './models/testing/stub-openai-server.ts';
export * from './models/testing/scripted-model.ts';
export * from './workspace/testing-incident-files.ts';
export * from './models/testing/contended-reservations.ts';
