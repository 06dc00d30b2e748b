import type { Metadata } from 'next';
import { GraphDiagram } from '@/components/graph-diagram';
import { ProblemPanel } from '@/components/problem';
import { attempt, getGraph } from '@/lib/agent';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Architecture' };

/** The request path. Each hop names the file that implements it, as a repository path. */
const PATH: readonly { name: string; what: string; files: readonly string[]; secret?: string }[] = [
  { name: 'Browser', what: 'Pages and forms. Holds no credentials and never talks to the agent.', files: ['apps/web/app/page.tsx', 'apps/web/app/_console/console-form.tsx'] },
  {
    name: 'Website server (BFF)',
    what: 'Route handlers and server components: the only code that knows where the agent lives and holds its token.',
    files: ['apps/web/app/api/runs/route.ts', 'apps/web/app/api/runs/[id]/approve/route.ts', 'apps/web/lib/agent.ts'],
    secret: 'holds the agent token',
  },
  {
    name: 'Agent service',
    what: 'HTTP API with server-sent events: bearer token, rate limits (fail closed), session cookie, one run per request.',
    files: ['apps/agent/src/http/', 'apps/agent/src/limits/limit-middleware.ts'],
  },
  { name: 'Graph', what: 'One compiled graph for every workload; drawn below from the running agent.', files: ['packages/engine/src/orchestrator/'] },
  {
    name: 'Store and models',
    what: 'Runs, spans, citations and spend in Postgres (embedded PGlite by default); models behind a failover router and a spend guard.',
    files: ['packages/store/src/store.ts', 'packages/engine/src/models/router.ts', 'packages/engine/src/models/spend-guard.ts'],
  },
];

function FilePath({ path }: { path: string }) {
  return (
    <code className="file-path" title={`In the repository: ${path}`}>
      {path.split('/').map((part, i, all) => (
        <span key={i}>
          {part}
          {i < all.length - 1 ? (
            <>
              /<wbr />
            </>
          ) : null}
        </span>
      ))}
    </code>
  );
}

export default async function ArchitecturePage() {
  const graph = await attempt(getGraph);
  return (
    <>
      <header className="page-head">
        <h1>Architecture</h1>
        <p className="lede">
          Four pieces, each with one job. The browser never talks to the agent directly and never holds its credentials: everything goes through the
          website’s own server.
        </p>
      </header>

      <h2>The request path</h2>
      <ol className="request-path">
        {PATH.map((hop) => (
          <li key={hop.name} className="hop">
            <strong>{hop.name}</strong>
            {hop.secret ? <span className="tag tag-secret">{hop.secret}</span> : null}
            <p>{hop.what}</p>
            <ul className="hop-files">
              {hop.files.map((f) => (
                <li key={f}>
                  <FilePath path={f} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>

      <h2>The graph</h2>
      {!graph.ok ? (
        <ProblemPanel problem={graph.problem} context="The graph is drawn from the running agent, which could not be reached." />
      ) : (
        <>
          <p>
            {graph.value.nodes.filter((n) => !n.id.startsWith('__')).length} nodes, {graph.value.edges.length} edges, read from the agent’s compiled graph.{' '}
            <code>await_approval</code> has no edge to a node that does work: approving creates a new run instead of resuming this one.
          </p>
          <div className="arch-grid">
          <div className="figure-scroll">
            <GraphDiagram graph={graph.value} />
          </div>
          <div>
          <h3>Where each node lives</h3>
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th>node</th>
                  <th>kind</th>
                  <th>file</th>
                  <th>goes to</th>
                </tr>
              </thead>
              <tbody>
                {graph.value.nodes.filter((n) => n.id !== '__end__').map((n) => (
                  <tr key={n.id} data-node={n.id}>
                    <td>
                      <code>{n.id}</code>
                    </td>
                    <td>{n.terminal ? <span className="tag tag-terminal-emit">terminal</span> : n.id.startsWith('__') ? 'entry/exit' : 'step'}</td>
                    <td>{n.file ? <FilePath path={n.file} /> : '—'}</td>
                    <td>
                      {n.terminal ? <span className="muted">ends the run</span> : null}
                      {graph.value.edges
                        .filter((e) => e.from === n.id && e.to !== '__end__')
                        .map((e) => (
                          <code key={e.to} className={`dep ${e.conditional ? 'dep-conditional' : ''}`} title={e.conditional ? 'conditional' : 'always'}>
                            {e.to}
                          </code>
                        ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          </div>
          </div>
        </>
      )}
    </>
  );
}
