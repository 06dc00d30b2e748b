/*
 * GET /healthz — the website's own liveness, for container HEALTHCHECKs and
 * Kubernetes probes (issue 11, deployment).
 *
 * It answers without calling the agent, on purpose: every page reads from the
 * agent, and the website is built to render an agent outage as a page that says
 * so (lib/problems.ts). A probe that followed the agent would take every website
 * replica out of rotation — or restart them — whenever the agent is down, and the
 * browser would get the proxy's error instead of that page. The agent has its own
 * /healthz for its own state.
 */

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
}
