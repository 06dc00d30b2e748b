// The store's own folder check: one definition, so `tools build` refuses the folder that opening the store refuses,
// in the same words.
import { refuseForeignDataDir, StoreError } from '@sandscope/store';
import { type AgentConfig, loadConfig } from '../config.ts';
import { probeJail } from '../sandbox/bwrap-runner.ts';
import { sandboxToolsOf } from '../sandbox/sandbox-tools-of.ts';
import { TOOL_DECLARATIONS } from '../sandbox/tool-declarations.ts';
import { buildTools, packageState, ToolBuildError } from '../sandbox/tools-build.ts';
import { UserError } from '../user-error.ts';
import { parseCommandArgs } from './args.ts';
import { fsErrorWords } from './fs-error.ts';

const USAGE = 'Usage: npx sandscope tools build | list';

/** What making or writing TOOLS_DIR fails with when the folder named is one this process cannot have there. */
const FOLDER_REFUSALS: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT']);

/**
 * `sandscope tools build` builds every declared tool's package once into
 * TOOLS_DIR (the jail sees it read-only at /.tools); `sandscope tools list`
 * says, per tool, whether it is built and turned on, and — plainly — whether
 * this machine can jail it at all (seed #21).
 */
export async function toolsCommand(argv: string[]): Promise<number> {
  const { positionals } = parseCommandArgs('tools', argv, {});
  const [sub] = positionals;
  const parsed = loadConfig(process.env);
  if (!parsed.ok) throw new UserError(parsed.message.split('\n').join(' | '));
  const config = parsed.config;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (sub === 'build') {
    refuseForeignDatabaseFolder(config);
    let built;
    try {
      built = buildTools(config.tools.dir, TOOL_DECLARATIONS);
    } catch (error) {
      if (error instanceof ToolBuildError) throw new UserError(error.message);
      const e = error as NodeJS.ErrnoException;
      // S-237: TOOLS_DIR naming a file was "internal error: EEXIST: file already exists, mkdir … This is a bug".
      if (e.code === 'EEXIST')
        throw new UserError(`TOOLS_DIR ${config.tools.dir} is a file, not a folder; point TOOLS_DIR at a directory (it is made if missing).`);
      // S-271: a folder the file system will not make or write there (`/proc/nope`: ENOENT though /proc exists; `/sys/x`:
      // EPERM) is the setting's fault as much as a read-only or forbidden one is, and said the same way.
      if (e.code !== undefined && FOLDER_REFUSALS.has(e.code)) {
        // mkdir's ENOENT with the folder above it there is no missing file: the file system makes no folder there.
        const why = e.code === 'ENOENT' && e.syscall === 'mkdir' ? 'the file system there does not let a folder be made (ENOENT)' : fsErrorWords(e);
        const where = e.path && e.path !== config.tools.dir ? ` (making ${e.path})` : '';
        throw new UserError(`cannot write TOOLS_DIR ${config.tools.dir}${where}: ${why}; point TOOLS_DIR at a writable directory.`);
      }
      throw error;
    }
    for (const t of built) out(`built ${t.name} (${t.files} files) in ${t.dir}`);
    const jail = probeJail();
    if (!jail.ok) out(`note: ${jail.reason} Until then the tools are built but not offered.`);
    return 0;
  }
  if (sub === 'list') {
    const jail = probeJail();
    out(`jail: ${jail.ok ? 'bubblewrap works here' : `NONE — ${jail.reason} The sandboxed tools are not offered; nothing runs unjailed.`}`);
    out(`TOOLS_DIR: ${config.tools.dir}`);
    out(`TOOLS_TEMPLATE: ${config.tools.template ?? '(unset: no sandboxed tool is turned on)'}`);
    const on = sandboxToolsOf(config);
    const offered = on.option && 'tools' in on.option ? on.option.tools.map((t) => t.name) : [];
    for (const t of TOOL_DECLARATIONS) {
      const built = packageState(config.tools.dir, t.name);
      const state = built.state === 'broken' ? `broken (missing ${built.missing.join(', ')}; run \`npx sandscope tools build\` again)` : built.state;
      out(
        `  ${t.name}\t${state}\t${offered.includes(t.name) ? 'offered' : 'not offered'}\t${t.description.length > 100 ? `${t.description.slice(0, 100)}…` : t.description}`,
      );
    }
    out(on.note);
    return 0;
  }
  throw new UserError(sub ? `unknown subcommand "${sub}". ${USAGE}` : `name a subcommand. ${USAGE}`);
}

/**
 * The embedded database folder refused as every command that opens the store refuses it, in its words, before TOOLS_DIR
 * is written. `tools build` opens no store: with SANDSCOPE_DATA_DIR/pglite holding someone's files it built jq and
 * log_summary into SANDSCOPE_DATA_DIR/tools beside them, said "built" and exited 0, for an agent that cannot start
 * there (S-215; the folder check is S-205's). A Postgres database (DATABASE_URL) has no folder here to check.
 */
function refuseForeignDatabaseFolder(config: AgentConfig): void {
  if (config.database.kind !== 'pglite') return;
  try {
    refuseForeignDataDir(config.database.dir);
  } catch (error) {
    if (error instanceof StoreError) throw new UserError(`${error.message}. ${error.remedy}`);
    throw error;
  }
}
