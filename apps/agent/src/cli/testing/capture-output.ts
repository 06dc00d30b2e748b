import { afterEach, beforeEach, vi } from 'vitest';

/** What the CLI printed in the current test: stdout and stderr, captured at the boundary. */
export interface Captured {
  out: string;
  err: string;
}

/** Capture stdout/stderr for every test of the calling file (what a person sees, in-process). */
export function captureOutput(): Captured {
  const captured: Captured = { out: '', err: '' };
  beforeEach(() => {
    captured.out = '';
    captured.err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((captured.out += String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((captured.err += String(chunk)), true));
  });
  afterEach(() => vi.restoreAllMocks());
  return captured;
}
