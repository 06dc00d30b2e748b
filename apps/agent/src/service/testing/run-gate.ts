import type { RunInput, RunResult } from '@sandscope/engine/orchestrator';
import type { RunExecutor } from '../run-service.ts';

/** A run held at its start, until the test lets it go. */
export interface HeldRun {
  /** Resolves with the run's id once the run has been admitted and reached the graph. */
  readonly reached: Promise<string>;
  release(): void;
}

/**
 * Holds the next run before the graph starts, so a test can do something to
 * the world (take the database away) while a run is in flight.
 */
export class RunGate {
  #next: { reached(runId: string): void; wait: Promise<void> } | undefined;

  /** The next run to start waits until `release()`. */
  hold(): HeldRun {
    let reached!: (runId: string) => void;
    let release!: () => void;
    const reachedPromise = new Promise<string>((resolve) => (reached = resolve));
    const wait = new Promise<void>((resolve) => (release = resolve));
    this.#next = { reached, wait };
    return { reached: reachedPromise, release };
  }

  wrap(executor: RunExecutor): RunExecutor {
    return {
      run: async (input: RunInput): Promise<RunResult> => {
        const held = this.#next;
        if (held) {
          this.#next = undefined;
          held.reached(input.runId ?? '');
          await held.wait;
        }
        return executor.run(input);
      },
    };
  }
}
