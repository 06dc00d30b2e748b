/**
 * Milliseconds now, injected wherever time decides something (cooldowns, cache
 * ages, trace timestamps), so a test advances a number instead of waiting. One
 * type for the whole engine: the orchestrator and the model layer each declared
 * their own (issue 13, item 9).
 */
export type Clock = () => number;
