'use client';

import { usePathname } from 'next/navigation';

/**
 * `/runs/<id>` for a run the agent does not have. A client component only to
 * read the id from the path (a not-found page is given no params); it renders
 * on the server like any other, so the id is there with JavaScript off too.
 */
function idIn(pathname: string): string {
  const raw = pathname.replace(/^\/runs\//, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export default function RunNotFound() {
  const id = idIn(usePathname() ?? '');
  return (
    <div className="empty">
      <h1>No such run</h1>
      <p>
        The agent has no run {id ? <code className="run-id">{id}</code> : null}. A run id is the one in its link: check it was copied whole, and that this
        website talks to the agent (and the database) the run was asked on.
      </p>
      <p>
        <a href="/runs">All runs</a>
      </p>
    </div>
  );
}
