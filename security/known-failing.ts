/**
 * Pen tests that fail on this branch because the defect they prove is being
 * fixed elsewhere, by step id, with the defect that makes them fail. The runner
 * still runs each one and prints its findings, but reports it as KNOWN FAILING
 * instead of failing the run — and fails the run the day it passes, so the entry
 * is removed when the fix merges rather than left to hide the next regression
 * (the way vitest's `it.fails` treats a test that starts passing).
 */
export const KNOWN_FAILING: Readonly<Record<string, string>> = {};
