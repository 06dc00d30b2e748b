import type { Metadata } from 'next';
import { FileLink } from '@/components/file-link';
import { GraphDiagram } from '@/components/graph-diagram';
import { ProblemPanel } from '@/components/problem';
import { attempt, getGraph } from '@/lib/agent';
import { REQUEST_PATH } from './request-path';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Architecture' };

export default async function ArchitecturePage() {
  const graph = await attempt(getGraph);
  return (
    <>
      <header className="page-head">
        <h1>Architecture</h1>
        <p className="lede">
          Four pieces, each with one job. The browser never talks to the agent directly and never holds its credentials: everything goes through the website’s
          own server.
        </p>
      </header>

      <h2>The request path</h2>
      <ol className="request-path">
        {REQUEST_PATH.map((hop) => (
          <li key={hop.name} className="hop">
            <strong>{hop.name}</strong>
            {hop.secret ? <span className="tag tag-secret">{hop.secret}</span> : null}
            <p>{hop.what}</p>
            <ul className="hop-files">
              {hop.files.map((f) => (
                <li key={f}>
                  <FileLink path={f} />
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
          {/* The graph first, then the table at full width below it: side by side, the table was squeezed to a column
              its paths wrapped in every few characters (issue 13). */}
          <div className="figure-scroll">
            <GraphDiagram graph={graph.value} />
          </div>
          <h3>Where each node lives</h3>
          <div className="table-scroll">
            <table className="node-table">
              <thead>
                <tr>
                  <th>node</th>
                  <th>kind</th>
                  <th>file</th>
                  <th>goes to</th>
                </tr>
              </thead>
              <tbody>
                {graph.value.nodes
                  .filter((n) => n.id !== '__end__')
                  .map((n) => (
                    <tr key={n.id} data-node={n.id}>
                      <td>
                        <code>{n.id}</code>
                      </td>
                      <td>{n.terminal ? <span className="tag tag-terminal-emit">terminal</span> : n.id.startsWith('__') ? 'entry/exit' : 'step'}</td>
                      <td>{n.file ? <FileLink path={n.file} /> : '—'}</td>
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
        </>
      )}
    </>
  );
}
