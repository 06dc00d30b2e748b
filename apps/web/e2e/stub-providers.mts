/**
 * Two stub OpenAI-compatible providers on 127.0.0.1 for the browser tests, so a
 * real agent can fail over between them without the internet. Each answers the
 * draft prompt the way a well-behaved model would: one claim, the first sentence
 * of the first passage, citing that passage's id. `GET /health` says it is up.
 * Asked with tools (an investigation turn), each is a small investigator
 * instead: it searches the files for ERROR, then answers with the lines it got
 * back — the burst on a first question, where it started on a follow-up (a
 * conversation that already has an answer in it) — so a browser test drives the
 * agent's real tool-calling loop and its citation check.
 *
 *   STUB_PORTS=7881,7882 tsx apps/web/e2e/stub-providers.mts
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const ports = (process.env.STUB_PORTS ?? '7881,7882').split(',').map(Number);

function textOf(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  return messages
    .map((m: { content?: unknown }) =>
      typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '').join('\n') : '',
    )
    .join('\n');
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** One claim citing the first passage of the prompt; no passages → no claims (the prompt's own rule). */
export function draftFor(prompt: string): string {
  const m = /<passage id="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/passage>/.exec(prompt);
  if (!m) return JSON.stringify({ claims: [] });
  const body = unescapeHtml(m[2]!)
    .replace(/^#+\s.*$/gm, '')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .trim();
  const sentences = body.split(/(?<=[.!?])\s+/).map((s) => s.trim());
  const sentence = sentences.find((s) => s.length >= 20) ?? sentences[0] ?? body;
  return JSON.stringify({ claims: [{ text: sentence, citations: [unescapeHtml(m[1]!)] }] });
}

type ChatMessage = { role?: string; content?: unknown; tool_calls?: unknown };

/** A tool result's text, whether the SDK sent it as the string itself or JSON-encoded. */
function toolText(content: unknown): string {
  const text = typeof content === 'string' ? content : textOf([{ content }]);
  if (!text.startsWith('"')) return text;
  try {
    return String(JSON.parse(text));
  } catch {
    return text;
  }
}

/** The investigator's next step: a search_files call, or the final JSON answer citing what the search returned. */
export function investigatorStep(messages: ChatMessage[]): { call: { name: string; args: Record<string, unknown> } } | { content: string } {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const results = messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
  if (results.length === 0) return { call: { name: 'search_files', args: { pattern: 'ERROR' } } };
  const hits = [...toolText(results.at(-1)!.content).matchAll(/^(.+?):(\d+): (.*)$/gm)].map((m) => ({ path: m[1]!, line: Number(m[2]), text: m[3]! }));
  if (hits.length === 0) return { content: JSON.stringify({ claims: [], unknown: ['No line in the files contains ERROR.'] }) };
  const followUp = messages.slice(0, lastUser).some((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content.trim() !== '');
  const first = hits[0]!;
  if (followUp)
    return { content: JSON.stringify({ claims: [{ text: `It started with: ${first.text}`, citations: [`${first.path}:${first.line}`] }], unknown: [] }) };
  // The first run of consecutive lines: the burst, cited as one range.
  let end = 0;
  while (end + 1 < hits.length && end < 29 && hits[end + 1]!.path === first.path && hits[end + 1]!.line === hits[end]!.line + 1) end++;
  const last = hits[end]!;
  return {
    content: JSON.stringify({
      claims: [{ text: `The log has a burst of errors: ${last.text}`, citations: [`${first.path}:${first.line}-${last.line}`] }],
      unknown: [],
    }),
  };
}

function reply(req: IncomingMessage, res: ServerResponse, name: string) {
  const parts: Buffer[] = [];
  req.on('data', (p: Buffer) => parts.push(p));
  req.on('end', () => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, name, data: [{ id: 'stub-model', object: 'model' }] }));
      return;
    }
    let body: { stream?: boolean; model?: string; messages?: unknown; tools?: unknown } = {};
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      /* empty */
    }
    const model = body.model ?? 'stub-model';
    const usage = { prompt_tokens: 400, completion_tokens: 60, total_tokens: 460 };
    const step = Array.isArray(body.tools) && body.tools.length > 0 ? investigatorStep(Array.isArray(body.messages) ? body.messages : []) : null;
    if (step && 'call' in step) {
      const toolCall = { id: `call-${Date.now()}`, type: 'function', function: { name: step.call.name, arguments: JSON.stringify(step.call.args) } };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const data = (o: object) =>
          res.write(`data: ${JSON.stringify({ id: 'stub', object: 'chat.completion.chunk', created: 1_700_000_000, model, ...o })}\n\n`);
        data({ choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, ...toolCall }] }, finish_reason: null }] });
        data({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
        data({ choices: [], usage });
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'stub',
          object: 'chat.completion',
          created: 1_700_000_000,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [toolCall] }, finish_reason: 'tool_calls' }],
          usage,
        }),
      );
      return;
    }
    const content = step ? step.content : draftFor(textOf(body.messages));
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: object, finish: string | null) =>
        res.write(
          `data: ${JSON.stringify({ id: 'stub', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        );
      chunk({ role: 'assistant', content }, null);
      chunk({}, 'stop');
      res.write(`data: ${JSON.stringify({ id: 'stub', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'stub',
        object: 'chat.completion',
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage,
      }),
    );
  });
}

for (const [i, port] of ports.entries()) {
  const name = `stub-${i + 1}`;
  createServer((req, res) => reply(req, res, name)).listen(port, '127.0.0.1', () => process.stdout.write(`${name} on http://127.0.0.1:${port}/v1\n`));
}
