import { livePgliteOwner, type Store } from '@sandscope/store';
import { type AgentConfig, loadConfig } from '../config.ts';
import { type ModelServices, type ModelServicesOptions, modelServicesFor } from '../run-agent.ts';
import { type OpenedSpendLedger, openSpendLedger } from '../spend/open-spend-ledger.ts';
import { UserError } from '../user-error.ts';
import { openCliStore } from './cli-store.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A CLI command's model layer, booked on the deployment's daily ledger; close it when the command ends. */
export interface CliModelServices {
  readonly services: ModelServices;
  /** Where priced calls are booked (`database (embedded PGlite …)`); null when no priced provider is configured. */
  readonly bookedIn: string | null;
  close(): Promise<void>;
}

export interface CliModelServicesOptions extends Pick<ModelServicesOptions, 'fetch' | 'timeoutMs'> {
  /**
   * When the ledger cannot be opened (the embedded database is held by a running agent, the database is unreachable):
   * `offline` leaves the priced providers out of this command and says so on stderr (`ask` still answers, and spends
   * nothing it could not book); `refuse` stops the command with one line (`eval --adjudicator model`, which without its
   * providers would measure nothing).
   */
  readonly unbookable: 'offline' | 'refuse';
}

const priced = (p: AgentConfig['providers'][number]) => p.pricing.inputUsdPerToken > 0 || p.pricing.outputUsdPerToken > 0;

/**
 * S-260: `ask` and `eval --adjudicator model` built their models with no spend ledger, so DAILY_SPEND_CEILING_USD —
 * "every replica books each priced call against it before sending it … a call it cannot afford is not made" — did not
 * hold for them: four `ask` runs at $0.007 each were all served under a $0.02 ceiling, and a `serve` started afterwards
 * on the same data directory still had the whole $0.02. The CLI now books every priced call on the ledger `serve`
 * books on for the same settings (openSpendLedger): Redis with REDIS_URL, else the agent's database (`spend_day`),
 * DATABASE_URL or the embedded PGlite under SANDSCOPE_DATA_DIR — created if it is not there yet, since the money spent
 * must be on the books the agent reads when it starts. With no priced provider (the offline model, a free Ollama)
 * nothing is booked and no database is opened: free calls book nothing.
 */
export async function openCliModelServices(env: Env, options: CliModelServicesOptions): Promise<CliModelServices> {
  const parsed = loadConfig(env);
  if (!parsed.ok) throw new UserError(parsed.message.split('\n').join(' | '));
  const { config } = parsed;
  const http = { ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
  const paid = config.providers.filter(priced).map((p) => p.name);
  if (paid.length === 0) return { services: modelServicesFor(config, http), bookedIn: null, close: async () => {} };

  const log = (line: string) => process.stderr.write(`sandscope: ${line}\n`);
  let store: Store | undefined;
  let opened: OpenedSpendLedger;
  try {
    if (!config.redisUrl) {
      const owner = config.database.kind === 'pglite' ? livePgliteOwner(config.database.dir) : null;
      if (owner !== null)
        throw new UserError(
          `the daily spend ceiling (DAILY_SPEND_CEILING_USD) is booked in the database at ${config.database.kind === 'pglite' ? config.database.dir : ''}, which another process holds (pid ${owner}: is \`npm start\` or \`npx sandscope serve\` running?)`,
        );
      store = await openCliStore(env, { create: true });
    }
    opened = await openSpendLedger(config, store?.db, log);
  } catch (error) {
    await store?.close().catch(() => {});
    if (!(error instanceof UserError)) throw error;
    const why = error.message.replace(/\.$/, '');
    if (options.unbookable === 'refuse')
      throw new UserError(`${why}. Priced model calls (${paid.join(', ')}) are booked there before they are made; stop it and run this again.`);
    log(
      `note: ${paid.join(', ')} not called: ${why}, and a priced call is booked there before it is made. The offline model answers; ask on the website, or stop it and ask again.`,
    );
    return { services: modelServicesFor({ ...config, providers: config.providers.filter((p) => !priced(p)) }, http), bookedIn: null, close: async () => {} };
  }
  const ledger = opened.ledger;
  return {
    services: modelServicesFor(config, { ...http, ledger }),
    bookedIn: ledger.description,
    async close() {
      await opened.close().catch(() => {});
      await store?.close();
    },
  };
}
