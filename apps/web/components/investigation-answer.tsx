import { answerLayout } from '@sandscope/api';
import {
  citationLabel,
  type InvestigationMessage,
  type ToolCall,
  type TurnCitation,
  type TurnClaim,
  type TurnMetrics,
  type TurnResult,
} from '@sandscope/api/investigations';
import { chunkHref } from '@/lib/anchors';
import { isolateQuoted } from '@/lib/bidi';
import { ms, tokens, usd } from '@/lib/format';
import { AnswerBlocks } from './answer-blocks';

/**
 * The file view at the cited lines: highlighted by the query, scrolled to by the fragment. `citedAt` (when the answer
 * was written) lets the page say when the file was replaced since: a fuller export uploaded under the same name
 * moved an old citation onto an unrelated line without a word (a colleague's test, 2026-12-05).
 */
export function fileLinesHref(investigationId: string, path: string, startLine?: number, endLine?: number, citedAt?: string): string {
  const base = `/investigations/${encodeURIComponent(investigationId)}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
  if (startLine === undefined) return base;
  const at = citedAt ? `&at=${encodeURIComponent(citedAt)}` : '';
  return `${base}?lines=${startLine}-${endLine ?? startLine}${at}#L${startLine}`;
}

function CitationLink({ investigationId, citation, citedAt }: { investigationId: string; citation: TurnCitation; citedAt?: string }) {
  const href =
    citation.kind === 'file' ? fileLinesHref(investigationId, citation.path, citation.startLine, citation.endLine, citedAt) : chunkHref(citation.chunkId);
  return (
    <a className="cite-link" href={href} data-citation={citationLabel(citation)}>
      {citationLabel(citation)}
    </a>
  );
}

/**
 * Seed #22: what the answer cost, from the message as stored — so the line a
 * person reads right after asking is the line a reload shows. The offline
 * planner's tokens are estimates and cost nothing; the provider says which.
 */
export function TurnMetricsLine({ metrics }: { metrics: TurnMetrics }) {
  return (
    <dl className="turn-metrics" data-testid="turn-metrics">
      <div>
        <dt>prompt tokens</dt>
        <dd data-metric="promptTokens">{tokens(metrics.promptTokens)}</dd>
      </div>
      <div>
        <dt>completion tokens</dt>
        <dd data-metric="completionTokens">{tokens(metrics.completionTokens)}</dd>
      </div>
      <div>
        <dt>elapsed</dt>
        <dd data-metric="elapsedMs">{ms(metrics.elapsedMs)}</dd>
      </div>
      <div>
        <dt>cost</dt>
        <dd data-metric="costUsd">{usd(metrics.costUsd)}</dd>
      </div>
      <div>
        <dt>provider</dt>
        <dd data-metric="provider">{metrics.provider}</dd>
      </div>
    </dl>
  );
}

/** One tool call as a card: what the agent asked the tool, and whether the tool answered or refused. */
function ToolCallCard({ call }: { call: ToolCall }) {
  const args = Object.entries(call.args);
  return (
    <li className={`tool-card tool-card-${call.ok ? 'ok' : 'refused'}`} data-tool={call.tool}>
      <code className="tool-name">{call.tool}</code>
      {args.length > 0 ? (
        <span className="tool-args">
          {args.map(([k, v]) => (
            <span key={k} className="tool-arg">
              {k}=<code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
            </span>
          ))}
        </span>
      ) : null}
      {call.sandboxed ? (
        <span className="tag tag-sandboxed" title="run in the bubblewrap jail: no network, the workspace only, /.tools read-only">
          sandboxed
        </span>
      ) : null}
      <span className={`tag ${call.ok ? 'tag-provider-served' : 'tag-provider-failed'}`}>{call.ok ? 'ok' : 'refused'}</span>
    </li>
  );
}

/**
 * A turn's claims laid out as they stood in their passages (answerLayout, as the run page and the CLI print them): a
 * runbook's steps as a list numbered as in the runbook, a command's lines as one block with its citations after
 * it, and each finding on file lines a line of its own. One numbered list of every claim renumbered a procedure's
 * steps by the order they were found and split a command into lines nobody could paste (S-063).
 */
function TurnClaims({ investigationId, result, citedAt }: { investigationId: string; result: TurnResult; citedAt?: string }) {
  const texts = new Map(result.passages.map((p) => [p.chunkId, p.text]));
  const parts = answerLayout(result.claims, (claim) => {
    const first = claim.citations[0];
    const text = first?.kind === 'passage' ? texts.get(first.chunkId) : undefined;
    return first?.kind === 'passage' && text ? { id: first.chunkId, text } : undefined;
  });
  const cites = (group: readonly TurnClaim[]) => (
    <span className="claim-cites">
      {[...new Map(group.flatMap((c) => c.citations).map((c) => [citationLabel(c), c])).values()].map((c) => (
        <CitationLink key={citationLabel(c)} investigationId={investigationId} citation={c} {...(citedAt ? { citedAt } : {})} />
      ))}
    </span>
  );
  const text = (c: TurnClaim, key: number) => (
    <span key={key} className="claim">
      <span className="claim-text">{c.text}</span> {cites([c])}{' '}
    </span>
  );
  return (
    <div className="claims">
      <AnswerBlocks parts={parts} claim={text} cites={cites} proseApart />
    </div>
  );
}

/** An assistant message: its claims with their citations, what is unknown, notes, tool calls, and the metrics under it. */
export function InvestigationAnswer({ investigationId, message }: { investigationId: string; message: InvestigationMessage }) {
  const result = message.result;
  return (
    <div className="investigation-answer">
      {result && result.claims.length > 0 ? (
        <TurnClaims investigationId={investigationId} result={result} citedAt={message.createdAt} />
      ) : result ? null : (
        <p className="answer-text">{message.text}</p>
      )}
      {result && result.unknown.length > 0 ? (
        <ul className="unknowns">
          {result.unknown.map((u, i) => (
            <li key={i}>
              <b>Unknown:</b> {isolateQuoted(u)}
            </li>
          ))}
        </ul>
      ) : null}
      {result && result.notes.length > 0 ? (
        <ul className="turn-notes muted">
          {result.notes.map((n, i) => (
            // A note quotes the message's words and the files' lines: each isolated for direction (S-240).
            <li key={i}>{isolateQuoted(n)}</li>
          ))}
        </ul>
      ) : null}
      {result && result.toolCalls.length > 0 ? (
        <details className="tool-calls">
          <summary>
            {result.toolCalls.length} tool call{result.toolCalls.length === 1 ? '' : 's'} ({result.mode === 'offline' ? 'offline planner' : 'model'})
          </summary>
          <ol className="tool-cards">
            {result.toolCalls.map((call, i) => (
              <ToolCallCard key={i} call={call} />
            ))}
          </ol>
        </details>
      ) : null}
      {message.metrics ? <TurnMetricsLine metrics={message.metrics} /> : null}
    </div>
  );
}
