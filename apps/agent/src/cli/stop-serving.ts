import type { Listening } from '../http/listen.ts';
import type { AgentService } from '../service/compose.ts';

export interface StopServingOptions {
  readonly listening: Pick<Listening, 'close'>;
  readonly agent: Pick<AgentService, 'inFlight' | 'close'>;
  /** How long open runs have to finish on their own. */
  readonly graceMs: number;
  readonly log: (line: string) => void;
}

/**
 * `serve`'s shutdown, in the order that makes it correct (S-258): stop
 * accepting; give open runs `graceMs` to finish; stop the runs still going —
 * each recorded interrupted, its stream sent `event: error` `shutting_down`,
 * its tokens and spend hold settled — while the store, the limiter and the
 * spend ledger are open; only then cut what is left and close those. It used to
 * cut the connections at the grace's end and close everything with the runs
 * still going: the client's stream ended with no word, and each run, finishing
 * after "stopped", failed against a closed pool and a closed limiter.
 * Investigation turns are stopped the same way, in the same registry (S-269):
 * each turn's stream ends with `shutting_down`, and its question reads as
 * interrupted in the conversation.
 */
export async function stopServing(o: StopServingOptions): Promise<void> {
  await o.listening.close(o.graceMs, {
    whenGraceEnds: async () => {
      const { stopped, turns, unfinished } = await o.agent.inFlight.stop();
      if (stopped === 0) return;
      const runs = stopped - turns;
      const what = [runs > 0 ? `${runs} run(s)` : '', turns > 0 ? `${turns} investigation turn(s)` : ''].filter(Boolean).join(' and ');
      o.log(
        `${what} still going after ${o.graceMs / 1000} s stopped: each is recorded interrupted and its client told to ask again` +
          (unfinished > 0 ? `; ${unfinished} had not ended in time` : ''),
      );
    },
  });
  await o.agent.close();
}
