import type { Metadata } from 'next';
import { sourceHref } from '@/components/file-link';
import { NotFoundHere } from '@/components/not-found-here';
import { attempt, getGraph } from '@/lib/agent';
import { readSource, repositoryRoot, sourceAllowlist } from '@/lib/source-files';
import { REQUEST_PATH } from '../../request-path';
import SourceNotFound from './not-found';

export const dynamic = 'force-dynamic';

type Params = Promise<{ path: string[] }>;

/** The repository path the URL names; Next hands the segments over decoded, a stray `%` is left as it came. */
async function repoPathOf(params: Params): Promise<string> {
  const { path } = await params;
  return path
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: (await repoPathOf(params)).split('/').pop() ?? 'Source' };
}

/**
 * One file (or folder) the architecture page names, as it is in the checkout
 * the website runs from. The allowlist is the request path plus the graph the
 * agent reports; without the agent, the request path alone.
 */
export default async function SourcePage({ params }: { params: Params }) {
  const repoPath = await repoPathOf(params);
  const root = repositoryRoot();
  if (!root)
    return (
      <NotFoundHere>
        <SourceNotFound />
      </NotFoundHere>
    );
  const graph = await attempt(getGraph);
  const named = [...REQUEST_PATH.flatMap((hop) => hop.files), ...(graph.ok ? graph.value.nodes.flatMap((n) => (n.file ? [n.file] : [])) : [])];
  const entry = await readSource(root, repoPath, sourceAllowlist(named));
  if (!entry)
    return (
      <NotFoundHere>
        <SourceNotFound />
      </NotFoundHere>
    );
  const name = entry.path.split('/').pop();
  return (
    <article className="source-page">
      <header className="page-head">
        <p className="crumbs">
          <a href="/architecture">Architecture</a> /
        </p>
        <h1>
          <code>{entry.kind === 'folder' ? `${name}/` : name}</code>
        </h1>
        <p className="muted">
          <code className="file-path">{entry.kind === 'folder' ? `${entry.path}/` : entry.path}</code> in the repository, as it is in the checkout this website
          runs from.
        </p>
      </header>
      {entry.kind === 'folder' ? (
        entry.entries.length ? (
          <ul className="source-entries">
            {entry.entries.map((file) => (
              <li key={file}>
                <a href={sourceHref(`${entry.path}/${file}`)}>{file}</a>
              </li>
            ))}
          </ul>
        ) : (
          <p className="empty">This folder holds no TypeScript source.</p>
        )
      ) : (
        <pre className="source">
          <code>
            {lines(entry.text).map((line, i) => (
              <span key={i} id={`L${i + 1}`} className="source-line">
                {line}
                {'\n'}
              </span>
            ))}
          </code>
        </pre>
      )}
    </article>
  );
}

/** A file's lines, without the empty one after its final newline. */
function lines(text: string): string[] {
  const all = text.split('\n');
  return all.length > 1 && all[all.length - 1] === '' ? all.slice(0, -1) : all;
}
