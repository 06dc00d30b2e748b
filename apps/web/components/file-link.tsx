/**
 * Where the website shows a repository file or folder: the source page, one URL
 * segment per path segment (so `[id]` in a route's folder survives the trip).
 * The README promises every box on the architecture page links to its file;
 * there is no repository URL to link to, so the website shows the file itself.
 */
export function sourceHref(repoPath: string): string {
  return `/architecture/source/${repoPath.replace(/\/$/, '').split('/').map(encodeURIComponent).join('/')}`;
}

/** A repository path as a link to it, breakable only after a slash: a path split mid-name is misread. */
export function FileLink({ path }: { path: string }) {
  const parts = path.split('/');
  return (
    <a className="file-path" href={sourceHref(path)}>
      {parts.map((part, i) => (
        <span key={i}>
          {part}
          {i < parts.length - 1 ? (
            <>
              /<wbr />
            </>
          ) : null}
        </span>
      ))}
    </a>
  );
}
