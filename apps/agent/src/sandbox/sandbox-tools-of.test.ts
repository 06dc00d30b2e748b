import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { UserError } from '../user-error.ts';
import { sandboxToolsOf } from './sandbox-tools-of.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandscope-template-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configWith(env: Record<string, string>) {
  const parsed = loadConfig({ SANDSCOPE_DATA_DIR: dir, ...env });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

function template(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

describe('which sandboxed tools a process offers (seed #21)', () => {
  it('offers none, saying so, without TOOLS_TEMPLATE; TOOLS_DIR defaults under SANDSCOPE_DATA_DIR', () => {
    const config = configWith({});
    expect(config.tools).toEqual({ dir: join(dir, 'tools'), template: undefined });
    expect(sandboxToolsOf(config)).toEqual({
      option: undefined,
      note: expect.stringMatching(/^sandboxed tools: off \(TOOLS_TEMPLATE is not set/),
      notBuilt: [],
    });
  });

  it('where bwrap is missing, offers none and says so plainly — nothing is run unjailed', () => {
    const config = configWith({ TOOLS_TEMPLATE: 'apps/agent/tools/templates/log-tools.json' });
    const tools = sandboxToolsOf(config, { bwrap: join(dir, 'no-such-bwrap') });
    expect(tools.option).toEqual({
      unavailable: expect.stringMatching(/bubblewrap \(bwrap\) is not installed; install it \(Debian: apt-get install bubblewrap\)/),
    });
    expect(tools.note).toMatch(/^sandboxed tools: NOT OFFERED — bubblewrap \(bwrap\) is not installed/);
  });

  it('refuses a wrong template with one line naming TOOLS_TEMPLATE', () => {
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.json'), /TOOLS_TEMPLATE ".*missing\.json" cannot be read \(ENOENT\)/],
      [template('broken.json', '{ tools: '), /TOOLS_TEMPLATE ".*broken\.json" is not JSON/],
      [template('empty.json', '{"name":"x","tools":[]}'), /tools must name at least one tool/],
      [template('unknown.json', '{"name":"x","tools":["curl"]}'), /names "curl", which is not a declared tool; the declared tools are jq, log_summary/],
    ];
    for (const [path, message] of cases) {
      const attempt = () => sandboxToolsOf(configWith({ TOOLS_TEMPLATE: path }), { bwrap: join(dir, 'no-such-bwrap') });
      expect(attempt, path).toThrow(UserError);
      expect(attempt, path).toThrow(message);
    }
  });
});
