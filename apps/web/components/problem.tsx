import type { ReactNode } from 'react';
import { isolateQuoted } from '@/lib/bidi';
import { renderInline } from '@/lib/markdown';
import { explain, type Problem, retryPhrase } from '@/lib/problems';

/** An agent refusal or outage, said as what it is, with what to do. Never a blank page. `children`: where to go next, after the remedy. */
export function ProblemPanel({ problem, context, children }: { problem: Problem; context?: string; children?: ReactNode }) {
  const { title, remedy, who } = explain(problem);
  const retry = retryPhrase(problem.retryAfterSeconds);
  return (
    <div className={`problem problem-${who}`} role="alert" data-problem={problem.code}>
      <strong className="problem-title">{title}</strong>
      {context ? <p className="problem-context">{context}</p> : null}
      {/* S-244: the agent's message often quotes the person's own text (a question, a file name): isolated like S-240's. */}
      {problem.message ? (
        <p className="problem-message">
          The agent says: “<bdi>{problem.message}</bdi>”
        </p>
      ) : null}
      {problem.detail ? <p className="problem-message">{isolateQuoted(problem.detail)}</p> : null}
      <p className="problem-remedy">
        {renderInline(remedy)}
        {retry ? ` You can try again ${retry}.` : ''}
      </p>
      {children}
      <p className="problem-code">
        <code>{problem.code}</code>
        {problem.status ? <> · HTTP {problem.status}</> : null}
      </p>
    </div>
  );
}

/**
 * A problem said inline after the site's own line (a form's refusal): the agent's words, direction-isolated (S-246),
 * and what the website observed. Said once here; the feedback form and the investigation forms both use it.
 */
export function InlineProblemWords({ problem }: { problem: Problem }) {
  return (
    <>
      {problem.message ? (
        <span className="problem-message">
          {' '}
          The agent says: “<bdi>{problem.message}</bdi>”
        </span>
      ) : null}
      {problem.detail ? <span className="problem-message"> {problem.detail}</span> : null}
    </>
  );
}
