import { loadConfig } from '../config.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { isBearerToken, UNCARRIABLE_TOKEN } from '../http/bearer-auth.ts';
import { listen } from '../http/listen.ts';
import { startAgentService } from '../service/compose.ts';
import { UserError } from '../user-error.ts';
import { parseCommandOptions } from './args.ts';
import { ensurePortFree } from './port-check.ts';
import { stopServing } from './stop-serving.ts';

/** Open runs get this long to finish after SIGINT/SIGTERM before they are stopped (stop-serving.ts). */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * `AGENT_TOKEN=… npx sandscope serve [--port 7860] [--host 127.0.0.1] [--corpus DIR]`
 * — the agent service alone. The configuration is parsed once (config.ts); a
 * wrong or missing value stops start-up with one line per variable naming it.
 * Runs until SIGINT or SIGTERM, then drains open streams — stopping the runs
 * still going when the grace ends, each told so — and releases the database lease.
 */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandOptions('serve', argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    corpus: { type: 'string' },
  });
  const env = {
    ...process.env,
    ...(values.port !== undefined ? { PORT: values.port } : {}),
    ...(values.host !== undefined ? { HOST: values.host } : {}),
    ...(values.corpus !== undefined ? { CORPUS_DIR: values.corpus } : {}),
  };
  const parsed = loadConfig(env, { requireToken: true });
  if (!parsed.ok) throw new UserError(parsed.message.split('\n').join(' | '));
  const { config } = parsed;
  // Checked before anything starts: the HTTP layer would refuse it too, but only after the store and corpus loaded.
  if (!isBearerToken(config.agentToken)) throw new UserError(UNCARRIABLE_TOKEN);
  const log = (line: string) => process.stdout.write(`sandscope: ${line}\n`);
  for (const note of parsed.notes) log(note);

  // The port first: a second `serve` beside a running one stopped at its port only after it had opened the
  // database and loaded the corpus (S-135). The bind below still decides; this only spares the work and the risk.
  await ensurePortFree({ what: 'agent API', port: config.port, host: config.host, flag: '--port', hostFlag: '--host' });
  const agent = await startAgentService({ config, log });
  const serverLog = (line: string) => process.stderr.write(`sandscope: ${line}\n`);
  const app = createApp(appDepsOf(agent, { log: serverLog }));
  let listening;
  try {
    listening = await listen(app, { port: config.port, host: config.host, log: serverLog, counted: (status) => agent.metrics.response(status) });
  } catch (error) {
    await agent.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UserError(`port ${config.port} on ${config.host} is already in use. Stop what is using it, or pass --port with a free port.`);
    if (code === 'EADDRNOTAVAIL') throw new UserError(`cannot listen on ${config.host}: no such address on this machine. Pass --host 127.0.0.1 or 0.0.0.0.`);
    // HOST=not.a.host reached "internal error … This is a bug" (a colleague's test): a name that resolves to nothing.
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new UserError(
        `cannot listen on ${config.host}: the name resolves to no address. Set HOST (or --host) to 127.0.0.1, 0.0.0.0 or an address of this machine.`,
      );
    throw error;
  }
  log(`listening on ${listening.url} (every /v1 route needs the bearer token; /healthz and /metrics do not)`);

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    // Ctrl-C under `sandscope start` reaches this process twice (the terminal's process group, then the
    // parent forwarding it): the first one stops it gracefully, later ones must not kill it mid-drain.
    let first: NodeJS.Signals | undefined;
    const stop = (received: NodeJS.Signals) => {
      if (first) return;
      first = received;
      resolve(received);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  log(`${signal}: stopping — open runs and investigation turns have ${SHUTDOWN_GRACE_MS / 1000} s to finish`);
  await stopServing({ listening, agent, graceMs: SHUTDOWN_GRACE_MS, log });
  log('stopped');
  return 0;
}
