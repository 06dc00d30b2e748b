/**
 * Three decimals: how every score and duration the engine records is rounded.
 * One function, because six hand-written copies had begun to differ (one took
 * null, one rounded milliseconds, one was called `round`) — issue 13, item 9.
 */
export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
