/**
 * `GET /v1/runs/:id` of a run that stopped for approval, as the agent answers it: its page shows the Approve door and
 * "Was this right?". One shape for the tests that drive the approve route and the refusal words on that page.
 */
export function gatedRunDetail(id: string, options: { sessionOwned: boolean; children?: readonly { id: string; terminal: string; createdAt: string }[] }) {
  return {
    run: {
      id,
      question: 'Should we fail over orders-db to the replica?',
      workload: 'change',
      status: 'completed',
      terminal: 'await_approval',
      verdict: 'answered',
      outcome: 'awaiting_approval',
      band: 'sufficient',
      score: 0.9,
      costUsd: 0,
      createdAt: '2026-12-05T13:00:00Z',
      parentRunId: null,
      answer: 'Fail over [1].',
      action: 'Promote the replica [1].',
      risk: null,
      reasons: [],
      sessionOwned: options.sessionOwned,
    },
    spans: [],
    claims: [],
    providerEvents: [],
    spend: null,
    parent: null,
    children: options.children ?? [],
    feedback: null,
  };
}
