import type { TurnInterruption } from '@sandscope/api/investigations';

/**
 * S-270: a question whose turn was stopped (the agent shut down), failed or went silent, said under it. The
 * conversation showed the question and nothing after it, as if its answer were still coming, so nobody asked again.
 * The agent's `reason` says what happened; asking again is what to do.
 */
export function UnansweredQuestion({ interruption }: { interruption: TurnInterruption }) {
  return (
    <p className="notice notice-warn turn-interrupted" data-interrupted={interruption.code}>
      Not answered: {interruption.reason} Ask it again below.
    </p>
  );
}
