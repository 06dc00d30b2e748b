import { API_ERRORS } from '@sandscope/api/errors';

/**
 * The replica is shutting down (SIGTERM or SIGINT, its grace over): what a run
 * it stopped, or a run it no longer admits, is told. An expected outcome, not
 * a bug — `shutting_down` at the HTTP boundary, a 503 before a stream opens and
 * an `event: error` after, saying to ask again.
 */
export class ReplicaStoppingError extends Error {
  override readonly name = 'ReplicaStoppingError';
  readonly code = 'shutting_down';
  constructor(
    /** What happened, without the remedy; `message` is this followed by the code's remedy. */
    readonly detail: string,
  ) {
    super(`${detail} ${API_ERRORS.shutting_down.remedy}`);
  }
}

/** How long a stopped run has to record that it was interrupted and release what it holds, once aborted. */
export const STOP_RUNS_TIMEOUT_MS = 3_000;

/** What is held: a run (POST /v1/runs) or an investigation turn (POST /v1/investigations/:id/turns). */
export type InFlightKind = 'run' | 'turn';

interface Held {
  readonly kind: InFlightKind;
  readonly controller: AbortController;
  readonly ended: Promise<void>;
}

/** What `stop` did: how many it stopped (`turns` of them investigation turns), and how many had not ended in time. */
export interface StoppedInFlight {
  readonly stopped: number;
  readonly turns: number;
  readonly unfinished: number;
}

/**
 * The runs this replica is carrying, each from the moment its stream opens to
 * the moment what was reserved for it is settled, and the one way to stop them.
 * Investigation turns are held here too, as `turn`s (S-269): one registry per
 * replica, shared by the run and the investigation services, so a shutdown
 * stops both before anything they write to closes.
 *
 * S-258: on SIGTERM the replica waited out its grace, cut the connections and
 * closed the store, the limiter and the spend ledger while a run waiting on a
 * slow provider went on — the client's stream ended with no `event: error`, and
 * the run, finishing after "stopped", failed writing its record to a closed
 * pool and settling its tokens on a closed limiter (its spend hold left to
 * expire). `stop` aborts every run still held and waits for each to record
 * itself interrupted, tell its client, and settle, BEFORE anything closes.
 */
export class RunsInFlight {
  readonly #held = new Set<Held>();
  #stopping = false;

  /** Set by `stop`: no new run is admitted (ReplicaStoppingError) and every held one is aborted. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /**
   * Runs `work` with the signal `stop` aborts, and keeps the replica from
   * closing until it ends. Work begun once the replica is stopping starts with
   * its signal aborted: a run admitted before the stop is ended the same way as
   * one that was running, never left without an answer.
   */
  async hold<T>(work: (signal: AbortSignal) => Promise<T>, kind: InFlightKind = 'run'): Promise<T> {
    const controller = new AbortController();
    let end = () => {};
    const held: Held = { kind, controller, ended: new Promise<void>((resolve) => (end = resolve)) };
    this.#held.add(held);
    if (this.#stopping) controller.abort(shuttingDown());
    try {
      return await work(controller.signal);
    } finally {
      this.#held.delete(held);
      end();
    }
  }

  /**
   * Stops every run held: aborted with a ReplicaStoppingError, then waited
   * for, up to `timeoutMs`. Resolves with how many were stopped and how many
   * had not ended by then (those end as the process does; another replica
   * marks their runs interrupted once this one's lease is gone).
   */
  async stop(timeoutMs = STOP_RUNS_TIMEOUT_MS): Promise<StoppedInFlight> {
    this.#stopping = true;
    const held = [...this.#held];
    for (const { controller } of held) controller.abort(shuttingDown());
    if (held.length === 0) return { stopped: 0, turns: 0, unfinished: 0 };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    await Promise.race([Promise.all(held.map((h) => h.ended)), timedOut]);
    clearTimeout(timer);
    return { stopped: held.length, turns: held.filter((h) => h.kind === 'turn').length, unfinished: held.filter((h) => this.#held.has(h)).length };
  }
}

function shuttingDown(): ReplicaStoppingError {
  return new ReplicaStoppingError('The run was stopped.');
}
