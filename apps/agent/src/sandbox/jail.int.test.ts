import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KnowledgeBase } from '@sandscope/engine';
import { WorkspaceToolbox, InMemoryWorkspaceFiles } from '@sandscope/engine/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BwrapRunner, probeJail } from './bwrap-runner.ts';
import { TOOL_DECLARATIONS } from './tool-declarations.ts';
import { buildTools } from './tools-build.ts';

/**
 * Seed #21 in the real jail. These need bubblewrap: .ci/run installs it, and
 * under CI a machine without a working jail FAILS this file rather than
 * skipping it. Elsewhere the suite skips and says why, on stderr.
 */
const jail = probeJail();
if (!jail.ok && process.env.CI) throw new Error(`CI must run the jail tests, but ${jail.reason}`);
if (!jail.ok) process.stderr.write(`\nSKIPPED jail.int.test.ts (seed #21): ${jail.reason}\n\n`);

const kb = {} as KnowledgeBase; // no runbook tool is called here
const LOG = [
  '{"time":"2026-03-02T10:00:00Z","level":"info","msg":"checkout started"}',
  '{"time":"2026-03-02T10:02:13Z","level":"error","msg":"orders-db pool exhausted (100/100)"}',
  '{"time":"2026-03-02T10:02:14Z","level":"warn","msg":"retrying order 4411"}',
  '{"time":"2026-03-02T10:02:19Z","level":"error","msg":"orders-db pool exhausted (100/100)"}',
].join('\n');

describe.skipIf(!jail.ok)('the sandboxed tools in the bubblewrap jail (seed #21)', () => {
  let toolsDir: string;
  let runner: BwrapRunner;
  const files = () => new InMemoryWorkspaceFiles({ 'app.log': `${LOG}\n`, 'conf/values.json': '{ "pool": { "max": 100 } }\n' });
  const sh = async (script: string) => runner.run({ argv: ['/bin/sh', '-c', script], files: files() });

  beforeAll(() => {
    toolsDir = mkdtempSync(join(tmpdir(), 'sandscope-tools-'));
    buildTools(toolsDir, TOOL_DECLARATIONS);
    runner = new BwrapRunner({ toolsDir });
  });
  afterAll(() => rmSync(toolsDir, { recursive: true, force: true }));

  it('runs both tools through the toolbox and returns their output', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: TOOL_DECLARATIONS } });
    const jq = await box.call('jq', { filter: 'select(.level=="error") | .time', path: 'app.log', raw: true });
    expect(jq).toMatchObject({ ok: true, tool: 'sandbox', name: 'jq', text: '2026-03-02T10:02:13Z\n2026-03-02T10:02:19Z' });
    const counted = await box.call('jq', { filter: 'map(.level) | group_by(.) | map({(.[0]): length}) | add', path: 'app.log', slurp: true });
    expect(JSON.parse(counted.text)).toEqual({ error: 2, info: 1, warn: 1 });
    const summary = await box.call('log_summary', { path: 'app.log' });
    expect(summary.ok, summary.text).toBe(true);
    expect(summary.text).toContain('By level: ERROR 2, WARN 1, INFO 1');
    expect(summary.text).toContain('First error: 2026-03-02T10:02:13Z (line 2)');
    expect(summary.text).toContain('Last error: 2026-03-02T10:02:19Z (line 4)');
    expect(summary.text).toContain('2× ERROR orders-db pool exhausted (100/100) (first at line 2)');
    const bad = await box.call('jq', { filter: '.[', path: 'app.log' });
    expect(bad.ok).toBe(false);
    expect(bad.text).toMatch(/^jq failed \(exit \d+\): jq: error/);
  });

  it('cannot write under /.tools; the workspace (cwd and HOME) and /tmp are writable', async () => {
    const before = readFileSync(join(toolsDir, 'jq', 'run'), 'utf8');
    // A remount first: with capabilities in its user namespace, the jail could make /.tools writable again.
    const out = await sh(
      'mount -o remount,bind,rw /.tools 2>/dev/null; (echo pwned > /.tools/jq/run) 2>/dev/null; a=$?; touch /.tools/new; b=$?; ' +
        '[ $a -ne 0 ] && [ $b -ne 0 ] && echo "both refused"; pwd; echo "$HOME"; touch note /tmp/cache && echo writable',
    );
    expect(out.stdout.split('\n').slice(0, 4)).toEqual(['both refused', '/root', '/root', 'writable']);
    expect(out.stdout + out.stderr).toMatch(/touch: cannot touch '\/.tools\/new': Read-only file system/);
    expect(readFileSync(join(toolsDir, 'jq', 'run'), 'utf8')).toBe(before);
  });

  it("cannot write the host's /usr either, even by remounting it", async () => {
    const out = await sh('mount -o remount,bind,rw /usr 2>/dev/null; touch /usr/sandscope-probe 2>/dev/null && echo wrote || echo refused');
    // Should the jail ever get through, leave the host as it was (then the assertion fails).
    if (out.stdout.trim() !== 'refused') rmSync('/usr/sandscope-probe', { force: true });
    expect(out.stdout.trim()).toBe('refused');
  });

  it('kills a run that outlives the time limit, and says so', async () => {
    const quick = new BwrapRunner({ toolsDir, timeoutMs: 300 });
    const started = Date.now();
    const out = await quick.run({ argv: ['/bin/sh', '-c', 'sleep 5; echo late'], files: files() });
    expect(out).toMatchObject({ exitCode: null, timedOut: true });
    expect(out.stdout).toBe('');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  // S-269: the turn stopped (the agent shutting down) kills its tool at once, not at the time limit after the store closed.
  it('kills a run whose turn is stopped, at once', async () => {
    const stop = new AbortController();
    const started = Date.now();
    const run = runner.run({ argv: ['/bin/sh', '-c', 'sleep 5; echo late'], files: files(), signal: stop.signal });
    setTimeout(() => stop.abort(new Error('stopped')), 300);
    const out = await run;
    expect(out).toMatchObject({ exitCode: null, timedOut: false, stdout: '' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('runs under memory, CPU-time and process limits, and a filter that builds a huge array is stopped by them', async () => {
    const limits = await sh('cat /proc/self/limits');
    expect(limits.stdout).toMatch(/^Max data size\s+536870912\s+536870912/m);
    expect(limits.stdout).toMatch(/^Max cpu time\s+10\s+10/m);
    expect(limits.stdout).toMatch(/^Max processes\s+64\s+64/m);
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: TOOL_DECLARATIONS } });
    // A string doubled 40 times (a TiB): refused by the memory limit at once, long before the time limit.
    const huge = await box.call('jq', { filter: 'reduce range(40) as $i ("x"; . + .) | length', path: 'conf/values.json' });
    expect(huge).toMatchObject({ ok: false, text: expect.stringMatching(/^jq failed \(exit \d+\): .*cannot allocate memory/) });
  });

  describe('the network', () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('is unreachable: a connect to a port the host listens on (127.0.0.1) fails', async () => {
      const out = await runner.run({ argv: ['/bin/bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`], files: files() });
      expect(out.stdout).not.toContain('hello from the host');
      expect(out.exitCode).not.toBe(0);
      expect(connections).toBe(0);
    });

    it('has no DNS either (no interface but a down loopback, no resolver configuration)', async () => {
      const out = await sh('getent hosts example.com; echo "rc=$?"; cat /sys/class/net/*/operstate 2>/dev/null; ls /etc 2>&1 | head -n1');
      expect(out.stdout).toMatch(/rc=2/);
      expect(out.stdout).toMatch(/No such file or directory/);
    });
  });

  it("lists only the user's files in the workspace: no tools, no caches, nothing of the host", async () => {
    const out = await sh('cd ~ && find . -mindepth 1 | sort; ls -A /root | tr "\\n" " "');
    expect(out.stdout.trimEnd().split('\n')).toEqual(['./app.log', './conf', './conf/values.json', 'app.log conf']);
  });

  it('refuses a path escape: before the jail (the toolbox) and inside it (no host file system to reach)', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: TOOL_DECLARATIONS } });
    for (const path of ['../../etc/passwd', '/etc/passwd', '~/../etc/passwd']) {
      const out = await box.call('log_summary', { path });
      expect(out.ok, path).toBe(false);
      expect(out.text, path).toMatch(/^log_summary: path: .*(leaves|outside) the workspace/);
    }
    const inside = await sh('cat /root/../etc/passwd || echo refused; ls /home 2>&1 || true; ls -A / | tr "\\n" " "');
    expect(inside.stdout).toContain('refused');
    expect(inside.stdout).not.toMatch(/root:x:0:0/);
    expect(inside.stdout.trimEnd().split('\n').at(-1)).toBe('.runtime .tools bin dev lib lib64 proc root sbin tmp usr');
  });
});
