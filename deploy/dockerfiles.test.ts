import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DockerStage, type K8sObject, parseDockerfile, parseYamlDocuments, REPO_ROOT } from './testing/manifests.ts';

/*
 * The two images (issue 11, section 3), checked statically: there is no Docker daemon
 * on these machines (STACK.md). What a build would do was replayed in plain
 * directories once (see the commit); these tests keep the files honest after that.
 */

const IMAGES = [
  {
    name: 'agent',
    file: 'deploy/agent.Dockerfile',
    port: 7860,
    healthRoute: () => /app\.get\('\/healthz'/.test(readFileSync(join(REPO_ROOT, 'apps/agent/src/http/app.ts'), 'utf8')),
  },
  { name: 'web', file: 'deploy/web.Dockerfile', port: 3000, healthRoute: () => existsSync(join(REPO_ROOT, 'apps/web/app/healthz/route.ts')) },
] as const;

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const instructions = (stage: DockerStage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);
/** `npm ci …` invocations of a stage (inside RUN lines joined with &&). */
const npmCi = (stage: DockerStage) =>
  instructions(stage, 'RUN').flatMap((i) =>
    i.args
      .split(/&&|;/)
      .map((c) => c.trim())
      .filter((c) => /(^|\s)npm\s+(ci|install|i)(\s|$)/.test(c)),
  );
const omitsDev = (command: string) => /--omit[= ]dev\b|--production\b|--only[= ]prod/.test(command);
/** COPY flags and operands: `--from=deps /app/node_modules ./node_modules` → from, sources, destination. */
function copyParts(args: string): { from: string | null; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
  const operands = words.filter((w) => !w.startsWith('--'));
  return { from, sources: operands.slice(0, -1), dest: operands[operands.length - 1]! };
}

/**
 * Whether the build context keeps a path, by .dockerignore's rules: patterns in order,
 * the last one that matches decides, `!` keeps; a pattern matching a directory
 * matches everything under it; `**` spans directories, `*` one name.
 */
function contextKeeps(path: string, patterns: readonly string[]): boolean {
  let kept = true;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, '');
    const source = pattern
      .split('**/')
      .map((part) =>
        part
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]'),
      )
      .join('(?:.*/)?');
    if (new RegExp(`^${source}(?:/.*)?$`).test(path)) kept = negated;
  }
  return kept;
}
const dockerignore = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const tracked = (dir: string) => execFileSync('git', ['ls-files', '--', dir], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

/** The base Deployments as written (the base is plain `resources`, so no kubectl is needed). */
const deployments = () => ['agent-deployment.yaml', 'web-deployment.yaml'].flatMap((f) => parseYamlDocuments(read(`deploy/k8s/base/${f}`), f)) as K8sObject[];

describe.each(IMAGES)('$file', ({ name, file, port, healthRoute }) => {
  const { stages } = parseDockerfile(read(file));
  const final = stages[stages.length - 1]!;
  const stageNamed = (n: string) => stages.find((s) => s.name === n);

  it('is multi-stage, every base image pinned to a full version (Node 20, STACK.md), none latest', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      expect(stage.from, `stage ${stage.name}`).toMatch(/:[^:/]*\d+\.\d+\.\d+/);
      expect(stage.from).not.toMatch(/:latest$/);
      if (stage.from.startsWith('node:')) expect(stage.from).toMatch(/^node:20\./);
    }
  });

  it('runs the final stage as a non-root numeric user — the uid the Deployment runs as', () => {
    const users = instructions(final, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1]!.args.split(':')[0]!;
    expect(user).toMatch(/^\d+$/);
    expect(Number(user)).toBeGreaterThan(0);
    const deployment = deployments().find((d) => d.spec.template.spec.containers[0].image.startsWith(`sandscope-${name}:`))!;
    expect(deployment.spec.template.spec.securityContext.runAsUser).toBe(Number(user));
  });

  it('has a HEALTHCHECK on /healthz, a route the app really serves, on the port it exposes and Kubernetes probes', () => {
    const [healthcheck, ...more] = instructions(final, 'HEALTHCHECK');
    expect(more).toEqual([]);
    expect(healthcheck?.args).toMatch(/\/healthz/);
    expect(healthRoute()).toBe(true);
    expect(instructions(final, 'EXPOSE').map((i) => Number(i.args))).toEqual([port]);
    const deployment = deployments().find((d) => d.spec.template.spec.containers[0].image.startsWith(`sandscope-${name}:`))!;
    expect(deployment.spec.template.spec.containers[0].ports[0].containerPort).toBe(port);
  });

  it('ships only production dependencies: node_modules comes from an `npm ci --omit=dev`, nothing from a full install', () => {
    // The final stage installs nothing with dev dependencies itself…
    for (const command of npmCi(final)) expect(omitsDev(command), command).toBe(true);
    const copies = instructions(final, 'COPY').map((i) => copyParts(i.args));
    const modules = copies.filter((c) => c.sources.some((s) => /node_modules/.test(s)));
    const installsHere = npmCi(final).length > 0;
    expect(installsHere || modules.length > 0, 'node_modules is installed or copied into the final stage').toBe(true);
    for (const copy of modules) {
      const source = stageNamed(copy.from ?? '');
      expect(source, `COPY --from=${copy.from}`).toBeDefined();
      const installs = npmCi(source!);
      expect(installs.length, `stage ${copy.from} installs`).toBeGreaterThan(0);
      for (const command of installs) expect(omitsDev(command), `stage ${copy.from}: ${command}`).toBe(true);
    }
    // …and takes nothing but named build outputs from a stage that installed dev dependencies.
    for (const copy of copies.filter((c) => c.from !== null)) {
      const source = stageNamed(copy.from!)!;
      if (npmCi(source).every(omitsDev)) continue;
      for (const s of copy.sources) {
        expect(s, `COPY --from=${copy.from} ${s}`).not.toMatch(/node_modules/);
        expect(s, `COPY --from=${copy.from} ${s}: a whole tree`).not.toMatch(/^\/?(app)?\/?\.?$/);
      }
    }
  });

  it('starts node directly (signals reach the app), not through npm', () => {
    const [cmd] = instructions(final, 'CMD');
    const argv = JSON.parse(cmd!.args) as string[];
    expect(argv[0]).toBe('node');
  });

  it('copies only what the build context keeps (.dockerignore is an allowlist)', () => {
    for (const stage of stages) {
      for (const { from, sources } of instructions(stage, 'COPY').map((i) => copyParts(i.args))) {
        if (from !== null) continue;
        for (const source of sources) {
          const kept = tracked(source).filter((f) => contextKeeps(f, dockerignore));
          expect(kept.length, `${file}: COPY ${source} — nothing of it reaches the build context`).toBeGreaterThan(0);
        }
      }
    }
  });
});

describe('.dockerignore', () => {
  it('keeps secrets, local state, installs, builds and tests out of the build context', () => {
    for (const path of [
      '.env',
      'apps/web/.env',
      'apps/web/.env.local',
      'packages/store/.sandscope/x',
      'node_modules/next/package.json',
      'apps/web/.next/BUILD_ID',
      '.sandscope/pglite/PG_VERSION',
      'apps/agent/src/config.test.ts',
      'apps/web/e2e/run.sh',
      'apps/web/playwright.config.ts',
      'scripts/load.ts',
      '.git/HEAD',
    ]) {
      expect(contextKeeps(path, dockerignore), path).toBe(false);
    }
    for (const path of [
      'package-lock.json',
      'apps/agent/src/config.ts',
      'apps/web/app/healthz/route.ts',
      'packages/store/migrations/0001_estate.sql',
      'corpus/estate.json',
      'docs/evaluation.json',
    ]) {
      expect(contextKeeps(path, dockerignore), path).toBe(true);
    }
  });
});
