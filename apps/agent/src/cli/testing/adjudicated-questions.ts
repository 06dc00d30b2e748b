/**
 * Four questions on the bundled corpus, under the shipped model: one answerable and one unanswerable in the
 * adjudicated band, one of each outside it. `eval --adjudicator model` and `npm run eval:replayed` are tested on
 * them; each test checks which fall in the band, so a retrained model that moves them fails it plainly.
 */
export const ADJUDICATED_QUESTIONS = [
  {
    id: 'deferred-answerable',
    question: 'checkout is getting ConnectionAcquireTimeout errors',
    label: 'answerable',
    doc: 'runbook-connection-pool-exhaustion.md',
  },
  // 'what is the pool ceiling of catalog-db?' was here until the retrain with S-153 and S-155 rated it 0.168, below the
  // adjudicated band (from 0.205); inventory-db, a database of the estate whose ceiling no document states, is in it.
  { id: 'deferred-unanswerable', question: 'what is the pool ceiling of inventory-db?', label: 'unanswerable' },
  { id: 'answered', question: 'What is the connection pool ceiling for orders-db?', label: 'answerable', doc: 'architecture-order-path.md' },
  // 'how do I rotate the kafka broker certificates on the staging cluster?' was here until the retrain with S-078 rated
  // it 0.183, just inside the adjudicated band (from 0.182).
  { id: 'refused', question: 'how do I reboot the mainframe?', label: 'unanswerable' },
] as const;
