/**
 * An incident across three formats, for tests (a colleague's black-box audit of the investigation CLI, 2026-12-07):
 * db-primary runs out of disk at 03:12:02 (events.jsonl, JSON lines), payments-svc is refused a second later and
 * checkout answers 502 (app.log, ISO stamps), and the edge logs the 5xx (nginx.log, combined log format). By file
 * name app.log comes first; by time events.jsonl line 2 does.
 */
export const CHECKOUT_APP_LOG = `2024-05-14T03:10:01Z INFO  checkout starting request id=a1 path=/api/cart
2024-05-14T03:10:05Z INFO  checkout GET /api/cart 200 12ms
2024-05-14T03:11:40Z WARN  checkout slow response from payments-svc 2300ms
2024-05-14T03:12:03Z ERROR payments-svc connection refused to db-primary:5432
2024-05-14T03:12:04Z ERROR checkout POST /api/checkout 502 upstream payments-svc failed
2024-05-14T03:12:05Z ERROR checkout POST /api/checkout 502 upstream payments-svc failed
2024-05-14T03:12:09Z ERROR checkout GET /api/orders 503 circuit open
2024-05-14T03:12:30Z INFO  checkout GET /api/cart 200 11ms
2024-05-14T03:13:00Z ERROR payments-svc pool exhausted max=20
2024-05-14T03:15:00Z INFO  payments-svc recovered, db-primary reachable
`;

export const CHECKOUT_EVENTS_JSONL = `{"ts":"2024-05-14T03:11:58Z","level":"info","service":"db-primary","msg":"checkpoint starting"}
{"ts":"2024-05-14T03:12:02Z","level":"error","service":"db-primary","msg":"out of disk space, shutting down"}
{"ts":"2024-05-14T03:12:03Z","level":"error","service":"payments-svc","msg":"connection refused"}
{"ts":"2024-05-14T03:12:04Z","level":"error","service":"checkout","msg":"upstream 502"}
`;

export const CHECKOUT_NGINX_LOG = `${[
  ['03:11:59', 'GET /api/cart', 200],
  ['03:12:04', 'POST /api/checkout', 502],
  ['03:12:05', 'POST /api/checkout', 502],
  ['03:12:09', 'GET /api/orders', 503],
  ['03:12:10', 'POST /api/checkout', 500],
  ['03:12:30', 'GET /api/cart', 200],
]
  .map(([time, request, status]) => `10.0.0.1 - - [14/May/2024:${time} +0000] "${request} HTTP/1.1" ${status} 512 "-" "curl"`)
  .join('\n')}\n`;
