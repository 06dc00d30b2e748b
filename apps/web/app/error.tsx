'use client';

/**
 * The last line: a bug while rendering a page. Agent refusals and outages are
 * rendered by the pages themselves (they know what happened); this boundary
 * catches what nobody expected, and still says what to do.
 */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="problem problem-operator" role="alert" data-problem="page_error">
      <strong className="problem-title">This page failed to render</strong>
      <p className="problem-remedy">
        Something unexpected went wrong while building this page — a bug, not something you did. Try again; if it repeats, the website’s server log has the
        details{error.digest ? ' under the reference below' : ''}. The other pages may still work.
      </p>
      {error.digest ? (
        <p className="problem-code">
          reference <code>{error.digest}</code>
        </p>
      ) : null}
      <p>
        <button type="button" className="button" onClick={() => reset()}>
          Try again
        </button>{' '}
        <a className="button" href="/">
          Console
        </a>
      </p>
    </div>
  );
}
