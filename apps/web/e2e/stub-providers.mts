/**
 * Two stub OpenAI-compatible providers on 127.0.0.1 for the browser tests, so a
 * real agent can fail over between them without the internet. Each answers the
 * draft prompt the way a well-behaved model would: one claim, the first sentence
 * of the first passage, citing that passage's id. `GET /health` says it is up.
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

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** One claim citing the first passage of the prompt; no passages → no claims (the prompt's own rule). */
export function draftFor(prompt: string): string {
  const m = /<passage id="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/passage>/.exec(prompt);
  if (!m) return JSON.stringify({ claims: [] });
  const body = unescape(m[2]!).replace(/^#+\s.*$/gm, '').replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '').trim();
  const sentences = body.split(/(?<=[.!?])\s+/).map((s) => s.trim());
  const sentence = sentences.find((s) => s.length >= 20) ?? sentences[0] ?? body;
  return JSON.stringify({ claims: [{ text: sentence, citations: [unescape(m[1]!)] }] });
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
    let body: { stream?: boolean; model?: string; messages?: unknown } = {};
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      /* empty */
    }
    const content = draftFor(textOf(body.messages));
    const model = body.model ?? 'stub-model';
    const usage = { prompt_tokens: 400, completion_tokens: 60, total_tokens: 460 };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: object, finish: string | null) =>
        res.write(`data: ${JSON.stringify({ id: 'stub', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: 'assistant', content }, null);
      chunk({}, 'stop');
      res.write(`data: ${JSON.stringify({ id: 'stub', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'stub', object: 'chat.completion', created: 1_700_000_000, model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage }));
  });
}

for (const [i, port] of ports.entries()) {
  const name = `stub-${i + 1}`;
  createServer((req, res) => reply(req, res, name)).listen(port, '127.0.0.1', () => process.stdout.write(`${name} on http://127.0.0.1:${port}/v1\n`));
}
