import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, normalize, relative, resolve, sep } from 'node:path';
import { remedyOf } from '@sandscope/api/errors';
import { citationLabel, exactFileName, printableName } from '@sandscope/engine/workspace';
import type { Store } from '@sandscope/store';
import { loadConfig } from '../config.ts';
import { loadCorpusSource } from '../corpus-source.ts';
import { knowledgeBaseOf } from '../knowledge-base-of.ts';
import { modelServicesFor } from '../run-agent.ts';
import { sandboxToolsOf } from '../sandbox/sandbox-tools-of.ts';
import { fileEmbedderOf } from '../service/file-embedder-of.ts';
import { InvestigationService, investigationFileText, investigationTitle } from '../service/investigation-service.ts';
import { ServiceError } from '../service/service-error.ts';
import { UserError } from '../user-error.ts';
import { parseCommandArgs } from './args.ts';
import { embeddedDatabaseAt, openCliStore } from './cli-store.ts';
import { fsErrorWords } from './fs-error.ts';
import { terminalText } from './terminal-text.ts';

const USAGE = 'Usage: npx sandscope investigation new TITLE | list | show ID [--json] | rename ID TITLE | rm ID | add ID FILE... | ask ID MESSAGE [--json]';

/** What each subcommand needs after its name: checked before the database is opened, so a missing id is not looked up. */
const NEEDS: Readonly<Record<string, readonly [number, string]>> = {
  new: [1, 'a TITLE'],
  list: [0, ''],
  show: [1, 'an investigation id'],
  rename: [2, 'an investigation id and a TITLE'],
  rm: [1, 'an investigation id'],
  add: [2, 'an investigation id and at least one FILE'],
  ask: [2, 'an investigation id and a MESSAGE'],
};

/**
 * `sandscope investigation …` (issue 10): the workspace in-process, offline by
 * default, over the same database the agent uses (SANDSCOPE_DATA_DIR or
 * DATABASE_URL). A person's mistake — an unknown id, a binary or oversized
 * file, a path escape, an empty message — is one line saying what to do, and
 * is refused before anything is written.
 */
export async function investigationCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('investigation', argv, { json: { type: 'boolean', default: false } });
  const [sub, ...args] = positionals;
  if (!sub) throw new UserError(`name a subcommand. ${USAGE}`);
  const parsed = loadConfig(process.env);
  if (!parsed.ok) throw new UserError(parsed.message.split('\n').join(' | '));
  const config = parsed.config;
  const needs = Object.hasOwn(NEEDS, sub) ? NEEDS[sub] : undefined;
  if (!needs) throw new UserError(`unknown subcommand "${sub}". ${USAGE}`);
  if (args.length < needs[0]) throw new UserError(`investigation ${sub} needs ${needs[1]}. ${USAGE}`);
  // The title is checked before the database is opened, and `new` opens it by making it: an empty, blank or
  // over-long title made .sandscope/ in the folder the command ran in and was refused only then, leaving it behind.
  if (sub === 'new') {
    try {
      investigationTitle(args.join(' '));
    } catch (error) {
      if (error instanceof ServiceError) throw cliError(error);
      throw error;
    }
  }
  // S-192: the embedded database is .sandscope/ of the folder the command runs in (or SANDSCOPE_DATA_DIR), so
  // the folder a person stands in decides which investigations exist; said by its full path wherever that matters.
  const dataDir = config.database.kind === 'pglite' ? resolve(config.dataDir) : undefined;
  // Only `new` makes a database: opening one for any other subcommand made an empty .sandscope/ in whatever folder
  // the person stood in, and an id from another folder's was "not found" with nothing to say why (S-192). Asked
  // before the files are checked, so two files of one name are not given advice for a folder holding no investigation.
  if (sub !== 'new' && config.database.kind === 'pglite' && !embeddedDatabaseAt(config.database.dir)) {
    if (sub !== 'list') throw new UserError(notInThisDatabase(args[0]!, `there is no Sandscope database in ${dataDir}`));
    process.stdout.write(
      values.json === true
        ? '[]\n'
        : `No investigations: there is no Sandscope database in ${dataDir}. Start one with \`npx sandscope investigation new TITLE\`, or run from the folder you started them in (or set SANDSCOPE_DATA_DIR to its .sandscope).\n`,
    );
    return 0;
  }
  // Local files are checked before the database is opened: a typo costs milliseconds.
  if (sub === 'add') {
    // S-231: a refusal of one file left the others unadded too, and said so of none: `add ID ok.log b.bin` printed only
    // that b.bin was not added, and ok.log was not there either.
    try {
      // An investigation keeps files by name: `host1/app.log host2/app.log` kept only the second, and the next turn
      // found no 502 in the log that had four (a colleague's black-box test, 2026-12-05). Refused before anything is added.
      const byName = new Map<string, Set<string>>();
      for (const file of args.slice(1)) byName.set(storedName(file), (byName.get(storedName(file)) ?? new Set()).add(file));
      const clash = [...byName].find(([, files]) => files.size > 1);
      if (clash) {
        throw new UserError(
          `${[...clash[1]].join(' and ')} are both named ${clash[0]}: an investigation keeps one file per name, so the last would replace the others. ${sameNameAdvice(args[0]!, [...clash[1]], dataDir)}, or copy each to its own name.`,
        );
      }
      for (const file of args.slice(1)) {
        // The name it would be kept under is checked here too (a relative path over 255 characters, a backslash in a
        // folder's name), so a refusal comes before any file is added, not after the first ones. The API's rule for a
        // kept name (S-213): a bidi control or a name the store would trim is refused, not kept or kept as another.
        const named = exactFileName(storedName(file));
        if (!named.ok) throw new UserError(`${printableName(file)} was not added: ${named.reason}. Add it from its own folder, or copy it to a plain name.`);
        let size: number;
        try {
          const stat = statSync(file);
          if (!stat.isFile()) throw new UserError(`${file} is not a file. Add files one by one (logs, configs, command output).`);
          size = stat.size;
        } catch (error) {
          if (error instanceof UserError) throw error;
          throw new UserError(`cannot read ${file}: ${fsErrorWords(error)}. Check the path.`);
        }
        if (size > config.workspace.fileMaxBytes) {
          throw new UserError(
            `${file} is ${size} bytes; the limit is ${config.workspace.fileMaxBytes} (INVESTIGATION_FILE_MAX_BYTES). Add a smaller excerpt, or raise the limit.`,
          );
        }
        // Binary or not UTF-8: refused here, before any file is added, as the service would refuse it after the others.
        try {
          investigationFileText(storedName(file), readFileSync(file), config.workspace.fileMaxBytes);
        } catch (error) {
          if (error instanceof ServiceError) throw cliError(error);
          // Found by stat, not readable (permissions): said as stat's failures are, not as a bug.
          throw new UserError(`cannot read ${file}: ${fsErrorWords(error)}. Check the path.`);
        }
      }
    } catch (error) {
      const files = args.length - 1;
      if (error instanceof UserError && files > 1) throw new UserError(`${error.message} None of the ${files} files was added.`, error.exitCode);
      throw error;
    }
  }

  // With a provider key in the environment a turn is the tool-calling loop; with none, the offline planner.
  // A provider or budget variable that is set but unusable is one line, before the database opens.
  const services = sub === 'ask' ? modelServicesFor(config) : null;
  // Seed #21: the template's jailed tools; where no jail can be made that is said here, once, and none is offered.
  const sandbox = sub === 'ask' ? sandboxToolsOf(config) : null;
  // A template's tool not offered because its package is not built or broken (S-243: the built jq deleted) is said too.
  if (sandbox && ((sandbox.option && 'unavailable' in sandbox.option) || sandbox.notBuilt.length > 0)) process.stderr.write(`${sandbox.note}\n`);
  const fileEmbedder = fileEmbedderOf(config, globalThis.fetch);
  const store = await openCliStore(process.env, { create: sub === 'new' });
  try {
    const kb = sub === 'ask' ? await knowledgeBaseOf(loadCorpusSource(undefined, { warn: () => {} })) : null;
    const service = new InvestigationService({
      db: store.db,
      // Only `ask` reads the runbooks; the other subcommands never touch the knowledge base.
      kb: kb as never,
      settings: { ...config.workspace, maxMessageChars: config.maxQuestionChars },
      ...(services ? { models: { candidates: services.candidates, health: services.health, budgetUsd: services.budgetUsd, scrub: services.scrub } } : {}),
      ...(sandbox?.option ? { sandbox: sandbox.option } : {}),
      // The same embedder as the service (KB_EMBED_BASE_URL, else hashing), so files added here are searched by meaning there.
      ...(fileEmbedder ? { embedder: fileEmbedder } : {}),
    });
    // Any id is unknown to a database that holds no investigations: the likely mistake is the folder, not the id (S-192).
    if (sub !== 'new' && sub !== 'list' && (await service.list()).length === 0) {
      const where = dataDir === undefined ? `${store.db.description} (DATABASE_URL)` : `the database in ${dataDir}`;
      throw new UserError(notInThisDatabase(args[0]!, `${where} holds no investigations at all`, dataDir === undefined));
    }
    return await run(service, store, sub, args, values.json === true);
  } catch (error) {
    if (error instanceof ServiceError) throw cliError(error);
    throw error;
  } finally {
    await store.close();
  }
}

async function run(service: InvestigationService, store: Store, sub: string, args: string[], json: boolean): Promise<number> {
  // S-229: files' lines, titles and messages are printed safe for a terminal, JSON included (terminal-text.ts).
  const out = (text: string) => process.stdout.write(`${terminalText(text)}\n`);
  switch (sub) {
    case 'new': {
      out((await service.create(args.join(' '))).id);
      return 0;
    }
    case 'list': {
      const all = await service.list();
      if (json) out(JSON.stringify(all, null, 2));
      else if (all.length === 0) out(`No investigations in ${store.db.description}. Start one with \`npx sandscope investigation new TITLE\`.`);
      else for (const i of all) out(`${i.id}  ${i.title}  (${i.fileCount} files, ${i.messageCount} messages)`);
      return 0;
    }
    case 'show': {
      const detail = await service.show(args[0]!);
      if (json) {
        out(JSON.stringify(detail, null, 2));
        return 0;
      }
      out(`${detail.investigation.title} (${detail.investigation.id})`);
      out(`Files:${detail.files.length === 0 ? ' none' : ''}`);
      for (const f of detail.files) out(`  ${f.path}  ${f.sizeBytes} bytes  ${f.status === 'ok' ? 'ok' : `error: ${f.error}`}`);
      for (const m of detail.messages) {
        out(`\n${m.role === 'user' ? 'You' : 'Sandscope'}: ${m.text}`);
        if (m.metrics) out(`  — ${metricsLine(m.metrics)}`);
        // S-270: a question whose turn was cut short read as if an answer were still coming.
        if (m.interrupted) out(`  — Not answered: ${m.interrupted.reason} Ask it again: \`npx sandscope investigation ask ${detail.investigation.id} …\``);
      }
      return 0;
    }
    case 'rename': {
      const renamed = await service.rename(args[0]!, args.slice(1).join(' '));
      out(`Renamed ${renamed.id} to "${renamed.title}".`);
      return 0;
    }
    case 'rm': {
      await service.remove(args[0]!);
      out(`Deleted investigation ${args[0]} with its files and conversation.`);
      return 0;
    }
    case 'add': {
      const [id, ...files] = args;
      // The same name again replaces the file (as the API's PUT does); said so, with what it replaced.
      const before = new Map((await service.show(id!)).files.map((f) => [f.path, f.sizeBytes]));
      for (const file of [...new Set(files)]) {
        const added = await service.addFile(id!, storedName(file), readFileSync(file));
        const was = before.get(added.path);
        out(
          was === undefined
            ? `Added ${added.path} (${added.sizeBytes} bytes) to ${id}.`
            : `Replaced ${added.path} in ${id}: it was ${was} bytes, it is now ${file} (${added.sizeBytes} bytes).`,
        );
      }
      return 0;
    }
    case 'ask': {
      const turn = await askStoppably(service, args[0]!, args.slice(1).join(' '));
      // --json prints the turn as the API gives it (its `turn`): five of its fields left a script blind to what is
      // unknown, to the notes (a provider fallen back to offline) and to the turn id its events replay under.
      if (json) out(JSON.stringify(turn, null, 2));
      else {
        out(turn.answer);
        out(`\nTools: ${turn.toolCalls.map((t) => `${t.tool}${t.sandboxed ? ' (sandboxed)' : ''}${t.ok ? '' : ' (refused)'}`).join(', ')}`);
        if (turn.citations.length > 0) out(`Cited: ${turn.citations.map(citationLabel).join(', ')}`);
        out(`— ${metricsLine(turn.metrics)}`);
      }
      return 0;
    }
  }
  return 2;
}

/**
 * A turn that Ctrl-C (or SIGTERM) stops rather than kills (S-270): killed outright, the command left its question in
 * the conversation with no word for TURN_STALE_MS (ten minutes), as if an answer were still coming. Stopped, the turn
 * stores why it ended — the question reads as not answered at once — and the command says so in one line (exit 130,
 * a shell's number for Ctrl-C). A second Ctrl-C kills the command as ever: the handler is there for the first only.
 */
async function askStoppably(service: InvestigationService, id: string, message: string) {
  const stop = new AbortController();
  const interrupt = (signal: NodeJS.Signals) =>
    stop.abort(
      new ServiceError('interrupted', `The turn was stopped at the command line (${signal === 'SIGINT' ? 'Ctrl-C' : signal}) before it was answered.`),
    );
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    return await service.ask(id, message, { signal: stop.signal });
  } catch (error) {
    if (stop.signal.aborted && error instanceof ServiceError) throw new UserError(`${error.detail} ${remedyOf(error.code, 'cli')}`, 130);
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

function metricsLine(m: { promptTokens: number; completionTokens: number; elapsedMs: number; costUsd: number; provider: string }): string {
  return `${m.promptTokens} prompt + ${m.completionTokens} completion tokens, ${Math.round(m.elapsedMs)} ms, $${m.costUsd.toFixed(4)}, ${m.provider}`;
}

/**
 * The name a file is kept under: the path as typed when it is relative and inside the working folder
 * (`hosts/web-1/nginx.log`, so two hosts' logs stay apart, as the API keeps them), else its file name. The CLI kept
 * only file names, so it could not add two hosts' nginx.log at all (a colleague's test, 2026-12-05).
 */
function storedName(file: string): string {
  const relative = normalize(file).split(sep).join('/');
  return isAbsolute(file) || relative === '..' || relative.startsWith('../') ? basename(file) : relative;
}

/**
 * A service refusal as the command line says it: what happened, then the CLI's remedy for its code. S-191: the CLI
 * printed the service's message, whose remedy is the API's, so a person at a terminal was sent to docs/API.md and
 * GET /v1/investigations.
 */
function cliError(error: ServiceError): UserError {
  return new UserError(`${error.detail} ${remedyOf(error.code, 'cli')}`);
}

/** An id this database cannot hold, and why: the person is likely in another folder than the one they made it in. */
function notInThisDatabase(id: string, why: string, server = false): string {
  return server
    ? `There is no investigation ${id}: ${why}. Check that DATABASE_URL names the database it was made in.`
    : `There is no investigation ${id}: ${why}. Investigations are kept in .sandscope/ of the folder \`sandscope investigation new\` ran in (or in SANDSCOPE_DATA_DIR): run this from that folder, or set SANDSCOPE_DATA_DIR to that .sandscope.`;
}

/**
 * How to add two files of one name so both are kept, as a command that works from here. S-192: the advice was
 * `cd /var/log/incident && sandscope investigation add ID …`, and from that folder the CLI opened (and made) that
 * folder's empty database, so the investigation was "not found". Relative paths are kept only from inside the working
 * folder (`storedName`): below it, the paths from here; elsewhere, from the folder above both, with this database.
 */
function sameNameAdvice(id: string, files: readonly string[], dataDir: string | undefined): string {
  const here = process.cwd();
  const absolute = files.map((file) => resolve(file));
  const above = commonFolder(absolute.map((file) => dirname(file)));
  const fromHere = relative(here, above);
  if (fromHere !== '..' && !fromHere.startsWith(`..${sep}`) && !isAbsolute(fromHere)) {
    return `Add them by their paths from this folder: \`sandscope investigation add ${id} ${absolute.map((file) => shellWord(relative(here, file))).join(' ')}\``;
  }
  const database = dataDir === undefined ? '' : `SANDSCOPE_DATA_DIR=${shellWord(dataDir)} `;
  return (
    `Add them by their paths from a folder above both, ${dataDir === undefined ? 'with DATABASE_URL as it is now' : "naming this folder's database"}: ` +
    `\`cd ${shellWord(above)} && ${database}sandscope investigation add ${id} ${absolute.map((file) => shellWord(relative(above, file))).join(' ')}\``
  );
}

/** The deepest folder that holds every one of `folders` (absolute paths). */
function commonFolder(folders: readonly string[]): string {
  const [first = [], ...rest] = folders.map((folder) => folder.split(sep));
  let shared = 0;
  while (shared < first.length && rest.every((parts) => parts[shared] === first[shared])) shared++;
  return first.slice(0, shared).join(sep) || sep;
}

/** A path as a shell reads it back: quoted only when it has to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
