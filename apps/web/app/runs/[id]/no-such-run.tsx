/** What `/runs/<id>` says for a run the agent does not have: the not-found boundary's words, and the server's HTML's (page.tsx). */
export function NoSuchRun({ id }: { id: string }) {
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
