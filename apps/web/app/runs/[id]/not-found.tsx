'use client';

import { usePathname } from 'next/navigation';
import { NoSuchRun } from './no-such-run';

/**
 * `/runs/<id>` for a run the agent does not have. A client component only to
 * read the id from the path (a not-found page is given no params). Next draws
 * it in the browser only — its 404 for a dynamic page is a bare document — so
 * page.tsx puts the same words (NoSuchRun) in the server's HTML (NotFoundHere).
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
  return <NoSuchRun id={idIn(usePathname() ?? '')} />;
}
