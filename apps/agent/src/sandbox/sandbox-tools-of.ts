import { readFileSync } from 'node:fs';
import type { SandboxToolsOption } from '@sandscope/engine/workspace';
import { z } from 'zod';
import type { AgentConfig } from '../config.ts';
import { UserError } from '../user-error.ts';
import { BwrapRunner, probeJail } from './bwrap-runner.ts';
import { TOOL_DECLARATIONS, type ToolDeclaration } from './tool-declarations.ts';
import { isBuilt } from './tools-build.ts';

/** A template: a data file naming the declared tools it turns on (TOOLS_TEMPLATE). */
const ToolTemplate = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  tools: z.array(z.string().min(1)).min(1, 'must name at least one tool'),
});

export interface SandboxTools {
  /** What the toolbox is given; undefined when no template turns any tool on. */
  readonly option: SandboxToolsOption | undefined;
  /** One line for start-up and `sandscope tools list`: what is offered, or plainly why not. */
  readonly note: string;
  /** The template's tools whose package is not built or is broken (a built file deleted), so not offered. */
  readonly notBuilt: readonly string[];
}

/**
 * The sandboxed tools this process offers: the template's tools, those built,
 * jailed by bubblewrap. Where no jail can be made they are NOT offered — the
 * note says so at start-up and the toolbox says so to the agent — and nothing
 * ever runs unjailed instead. A wrong template is a configuration error: one
 * line naming TOOLS_TEMPLATE, before anything starts.
 */
export function sandboxToolsOf(config: AgentConfig, options: { bwrap?: string; maxOutputChars?: number } = {}): SandboxTools {
  const path = config.tools.template;
  if (path === undefined)
    return {
      option: undefined,
      note: 'sandboxed tools: off (TOOLS_TEMPLATE is not set; apps/agent/tools/templates/log-tools.json turns on jq and log_summary).',
      notBuilt: [],
    };
  const wanted = readTemplate(path);
  const jail = probeJail(options.bwrap);
  if (!jail.ok) return { option: { unavailable: jail.reason }, note: `sandboxed tools: NOT OFFERED — ${jail.reason}`, notBuilt: [] };
  const missing = wanted.filter((t) => !isBuilt(config.tools.dir, t.name)).map((t) => t.name);
  const tools = wanted.filter((t) => !missing.includes(t.name));
  const unbuilt =
    missing.length === 0
      ? ''
      : ` Not built (or broken), so not offered: ${missing.join(', ')} — run \`npx sandscope tools build\` (TOOLS_DIR=${config.tools.dir}).`;
  if (tools.length === 0)
    return {
      option: { unavailable: `no package is built in ${config.tools.dir}; run \`npx sandscope tools build\`.` },
      note: `sandboxed tools: NOT OFFERED —${unbuilt}`,
      notBuilt: missing,
    };
  // The bwrap the probe found is the one every run uses.
  const runner = new BwrapRunner({
    toolsDir: config.tools.dir,
    bwrap: jail.bwrap,
    maxOutputChars: options.maxOutputChars ?? config.workspace.readFileMaxChars,
  });
  return {
    option: { runner, tools },
    note: `sandboxed tools: ${tools.map((t) => t.name).join(', ')} (bubblewrap jail, no network, /.tools read-only from ${config.tools.dir}).${unbuilt}`,
    notBuilt: missing,
  };
}

function readTemplate(path: string): ToolDeclaration[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(
      `TOOLS_TEMPLATE ${JSON.stringify(path)} ${code ? `cannot be read (${code})` : 'is not JSON'}. Point it at a template such as apps/agent/tools/templates/log-tools.json, or unset it.`,
    );
  }
  const parsed = ToolTemplate.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `TOOLS_TEMPLATE ${JSON.stringify(path)}: ${issue.path.join('.') || 'the template'} ${issue.message}. A template is {"name": "…", "tools": ["jq", "log_summary"]}.`,
    );
  }
  return parsed.data.tools.map((name) => {
    const tool = TOOL_DECLARATIONS.find((t) => t.name === name);
    if (!tool)
      throw new UserError(
        `TOOLS_TEMPLATE ${JSON.stringify(path)} names "${name}", which is not a declared tool; the declared tools are ${TOOL_DECLARATIONS.map((t) => t.name).join(', ')}.`,
      );
    return tool;
  });
}
