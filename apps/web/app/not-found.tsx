export default function NotFound() {
  return (
    <div className="empty">
      <h1>Not found</h1>
      <p>
        There is no page here. The <a href="/">console</a> asks questions; <a href="/runs">runs</a> lists every answer and refusal.
      </p>
    </div>
  );
}
