/**
 * Where the agent and the website listen when nobody says otherwise: part of the
 * contract, because the website looks for the agent at the agent's default. Each
 * deployable once typed its own 7860 and 3000 (issue 13, item 1: no duplicated
 * constants); both schemas read them from here.
 */
export const DEFAULT_AGENT_PORT = 7860;
export const DEFAULT_WEB_PORT = 3000;
/** Loopback: opened to a network only on request. */
export const DEFAULT_HOST = '127.0.0.1';
