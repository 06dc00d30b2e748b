// The agent's test helpers (`sandscope/testing`): read an SSE body, run a private redis-server, questions the adjudicator is tested on.
export { parseSse, readSse, type SseEvent } from './http/testing/sse-events.ts';
export { freePort, REDIS_SERVER_BIN, redisServerAvailable, startPrivateRedis, type PrivateRedisServer } from './limits/private-redis-server.ts';
export { ADJUDICATED_QUESTIONS } from './cli/testing/adjudicated-questions.ts';
// deploy/compose.test.ts: the compose file's stop grace must outlast the runs' grace and their stopping (S-258).
export { SHUTDOWN_GRACE_MS } from './cli/serve-command.ts';
export { STOP_RUNS_TIMEOUT_MS } from './service/runs-in-flight.ts';
