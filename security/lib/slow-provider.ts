/**
 * The stub OpenAI-compatible provider behind a delay. The limits are about runs
 * that are in flight at the same time: the offline model answers in
 * milliseconds, so over a real socket 200 "concurrent" runs mostly finish one
 * after another and a limiter that charges at the end looks correct. A provider
 * that takes a few seconds keeps every run in flight at once, as a real one does.
 */
import { request, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStubOpenAIServer, type StubOpenAIServer, type StubOptions } from '@sandscope/engine/testing';
import { onExit } from './service.ts';

export interface SlowProvider {
  readonly baseURL: string;
  readonly stub: StubOpenAIServer;
}

export async function startSlowProvider(options: StubOptions & { delayMs: number }): Promise<SlowProvider> {
  const stub = await startStubOpenAIServer(options);
  onExit(() => stub.close());
  const target = new URL(stub.baseURL);
  const server = createServer((req, res) => {
    const pieces: Buffer[] = [];
    req.on('data', (d: Buffer) => pieces.push(d));
    req.on('end', () => {
      const timer = setTimeout(() => {
        const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        upstream.end(Buffer.concat(pieces));
      }, options.delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onExit(
    () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, stub };
}
