'use client';

/** When even the layout fails: a self-contained page, still never blank. */
export default function GlobalError({ error }: { error: Error & { digest?: string } }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', background: '#0d1117', color: '#e6edf3', padding: '2rem', lineHeight: 1.5 }}>
        <h1>Sandscope could not render this page</h1>
        <p>A bug in the website, not something you did. Reload the page; if it repeats, the website’s server log has the details.</p>
        {error.digest ? (
          <p>
            Reference: <code>{error.digest}</code>
          </p>
        ) : null}
        <p>
          <a href="/" style={{ color: '#58a6ff' }}>
            Back to the console
          </a>
        </p>
      </body>
    </html>
  );
}
