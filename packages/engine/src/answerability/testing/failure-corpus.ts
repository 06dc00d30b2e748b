import type { SourceDocument } from '../../types.ts';

/**
 * A small library the failure-class tests build themselves (issue 9: each class
 * handled on a corpus the test makes, not on the shipped one): two alert
 * runbooks — one with every section written, one whose Mitigation is a
 * placeholder — an architecture note stating a value for one database only, and
 * a postmortem whose action items must never be offered as a remedy.
 */
export const FAILURE_CORPUS: readonly SourceDocument[] = [
  {
    doc: 'runbook-orders-db-pool.md',
    title: 'OrdersDbPoolSaturated',
    text: `# OrdersDbPoolSaturated

Fires when orders-db has used more than 90% of its connection pool for five minutes.

## Impact

Checkout requests queue behind the pool and customers see slow or failed checkouts while the pool is exhausted.

## Diagnosis

1. Open the orders-db pool dashboard and check which client holds the most connections.
2. Look for long-running transactions with \`SELECT pid, now() - xact_start FROM pg_stat_activity ORDER BY 2 DESC LIMIT 5;\`.

## Mitigation

1. Scale the checkout-api deployment down to 4 replicas to shed connection load.
2. Terminate idle-in-transaction sessions older than ten minutes with \`sandctl db kill-idle --db orders-db --older-than 10m\`.
3. If saturation persists, raise the pooler limit to 150 with \`sandctl pooler set orders-db --max 150\` and page the database on-call.
`,
  },
  {
    doc: 'runbook-payments-db-disk.md',
    title: 'PaymentsDbDiskFull',
    text: `# PaymentsDbDiskFull

Fires when the payments-db data volume is more than 85% full.

## Impact

Writes to payments-db fail once the volume is full, and card captures are rejected until space is freed.

## Diagnosis

Check the volume usage graph on the payments-db dashboard and list the largest tables with the storage report.

## Mitigation

To be added.
`,
  },
  {
    doc: 'architecture-databases.md',
    title: 'Databases',
    text: `# Databases

## orders-db

orders-db is the Postgres primary behind checkout-api. Its connection pool ceiling is 100 connections, enforced by the pooler in front of it.

## payments-db

payments-db stores card captures and refunds. It runs on a dedicated volume with nightly snapshots kept for 14 days.
`,
  },
  {
    doc: 'postmortem-2024-03-14-orders-db.md',
    title: 'Postmortem: orders-db pool saturation, 2024-03-14',
    text: `# Postmortem: orders-db pool saturation, 2024-03-14

## Summary

A retry storm from checkout-api saturated the orders-db connection pool for forty minutes.

## Timeline

- 14:02 OrdersDbPoolSaturated fired and paged the on-call engineer.
- 14:20 The on-call engineer restarted the pooler, which did not help.

## Action items

- Add a circuit breaker to checkout-api so retries back off when the pool is saturated.
- Review the pool alert threshold with the database team.
`,
  },
];
