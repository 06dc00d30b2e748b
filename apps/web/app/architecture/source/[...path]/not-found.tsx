/** A 404 that says why: the source page shows only the files the architecture page names. */
export default function SourceNotFound() {
  return (
    <div className="empty">
      <h1>Not found: no such source file here</h1>
      <p>
        This website shows only the files the <a href="/architecture">architecture page</a> names — the request path’s and the graph’s — read from the checkout
        it runs from. Anything else, or a website running without its repository, is not shown.
      </p>
    </div>
  );
}
