/*
 * The agent deployable's surface for the repository's own scripts, security
 * tests and deployment checks (`sandscope`): its config schema, its composition
 * root, its HTTP app, and the CLI's one-question path. Anything not here is
 * the agent's own business; import it by name, never by `../apps/agent/src/…`.
 * Lighter entries: `sandscope/corpus` (corpora and knowledge bases) and
 * `sandscope/user-error` (a script's boundary); test helpers are `sandscope/testing`.
 */
export {
  CONFIG_DEFAULTS,
  createAgentConfigSchema,
  loadConfig,
  providerVariables,
  type AgentConfig,
  type ConfigResult,
  type LoadConfigOptions,
  type ServeConfig,
} from './config.ts';
export { startAgentService, type AgentService, type AgentServiceOptions } from './service/compose.ts';
export { appDepsOf, createApp, type AppDeps } from './http/app.ts';
export { API_ERRORS, type ApiErrorCode } from './http/api-error.ts';
export { listen, type Listening } from './http/listen.ts';
export { InProcessLimiter } from './limits/in-process-limiter.ts';
export { RedisCacheStore } from './cache/redis-cache-store.ts';
export { LIMIT_ERROR_REMEDIES, type RefusalReason } from './limits/limiter.ts';
export { modelServicesFor, modelServicesFromEnv, runAgent, type ModelServices } from './run-agent.ts';
export * from './corpus.ts';
export { UserError } from './user-error.ts';
