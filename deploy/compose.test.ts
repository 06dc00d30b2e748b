import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SHUTDOWN_GRACE_MS, STOP_RUNS_TIMEOUT_MS } from 'sandscope/testing';
import { imageParts, REPO_ROOT } from './testing/manifests.ts';
import { directives, type NginxDirective, parseNginx } from './testing/nginx.ts';

/*
 * compose.yaml, the second way to run Sandscope (issue 11, section 3), read as
 * `docker compose` reads it — YAML with merge keys, ${VAR} references filled from
 * .env — and its proxy's nginx config. No Docker daemon needed.
 */

type Service = Record<string, any>;
const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service>; networks: Record<string, Service> };
const services = compose.services;

const agentNames = Object.keys(services).filter((n) => services[n]!.build?.dockerfile === 'deploy/agent.Dockerfile');
const proxyName = Object.keys(services).find((n) => (services[n]!.volumes ?? []).some((v: string) => v.includes('deploy/compose/nginx.conf')))!;
const proxy = services[proxyName]!;
const nginx = parseNginx(read('deploy/compose/nginx.conf'));
const upstreams = new Map(directives(nginx, 'upstream').map((u) => [u.args[0]!, u.block!]));
const servers = directives(nginx, 'server').map((s) => s.block!);
const envOf = (s: Service) => (s.environment ?? {}) as Record<string, string>;
/** A service's networks, whether listed or keyed (`front: {ipv4_address: …}`). */
const networkNames = (s: Service): string[] => (Array.isArray(s.networks) ? s.networks : Object.keys(s.networks ?? {}));

/** The nginx upstream a location proxies to (`proxy_pass http://NAME;`). */
const proxiedUpstream = (location: readonly NginxDirective[]) => /^https?:\/\/([^/:]+)/.exec(directives(location, 'proxy_pass')[0]?.args[0] ?? '')?.[1];
/** The server block listening on a port, and its `location PATH` block. */
const serverOn = (port: number) => servers.find((s) => directives(s, 'listen').some((l) => l.args[0] === String(port)));
const location = (server: readonly NginxDirective[] | undefined, path: string) => directives(server ?? [], 'location').find((l) => l.args[0] === path)?.block;

describe('compose.yaml: two agent replicas behind the proxy', () => {
  it('runs exactly two agent services from one image', () => {
    expect(agentNames).toHaveLength(2);
    const images = new Set(agentNames.map((n) => services[n]!.image));
    expect(images.size).toBe(1);
  });

  it("waits for an agent to stop its runs before killing it: its stop grace outlasts the runs' grace and their stopping (S-258)", () => {
    // Docker's default is 10 s: SIGKILL at the moment the agent starts stopping the runs still going, none told or settled.
    const seconds = (period: unknown) => Number(/^(\d+)s$/.exec(String(period))?.[1] ?? Number.NaN);
    for (const name of agentNames)
      expect(seconds(services[name]!.stop_grace_period), name).toBeGreaterThanOrEqual((SHUTDOWN_GRACE_MS + STOP_RUNS_TIMEOUT_MS) / 1000 + 5);
  });

  it('the proxy balances over exactly those two, by consistent hash of the investigation id', () => {
    const agentsListener = serverOn(7860);
    const upstream = upstreams.get(proxiedUpstream(location(agentsListener, '/v1/')!)!);
    expect(upstream).toBeDefined();
    const members = directives(upstream!, 'server').map((s) => s.args[0]);
    expect(members.sort()).toEqual(agentNames.map((n) => `${n}:7860`).sort());
    expect(directives(upstream!, 'hash').map((h) => h.args)).toEqual([['$investigation_id', 'consistent']]);
  });

  it('takes the id from the /v1/investigations/<id> path segment, and no id elsewhere (round robin there)', () => {
    const [map] = directives(nginx, 'map').filter((m) => m.args[1] === '$investigation_id');
    expect(map?.args[0]).toBe('$uri');
    const entries = map!.block!.map((d) => [d.name, ...d.args]);
    const defaults = entries.filter(([key]) => key === 'default');
    expect(defaults).toEqual([['default', '']]);
    const patterns = entries.filter(([key]) => key!.startsWith('~'));
    expect(patterns).toHaveLength(1);
    const [pattern, value] = patterns[0]!;
    // nginx's PCRE and JavaScript agree on this syntax, named groups included.
    const re = new RegExp(pattern!.replace(/^~\*?/, ''));
    const key = (uri: string) => {
      const m = re.exec(uri);
      return m ? value!.replace(/\$(\w+)/g, (_, g: string) => (/^\d+$/.test(g) ? m[Number(g)] : m.groups?.[g]) ?? '') : '';
    };
    expect(key('/v1/investigations/3f2c-41/turns')).toBe('3f2c-41');
    expect(key('/v1/investigations/3f2c-41/files/logs/app.log')).toBe('3f2c-41');
    expect(key('/v1/investigations/3f2c-41')).toBe('3f2c-41');
    expect(key('/v1/investigations')).toBe('');
    expect(key('/v1/runs/3f2c-41')).toBe('');
  });

  it('streams: the agent and website locations do not buffer responses', () => {
    for (const [port, path] of [
      [7860, '/v1/'],
      [8080, '/'],
    ] as const) {
      expect(directives(location(serverOn(port), path)!, 'proxy_buffering').map((d) => d.args[0])).toEqual(['off']);
    }
  });

  it("the website reaches the agents only through the proxy, which trusts no one else's forwarding headers", () => {
    const web = Object.values(services).find((s) => s.build?.dockerfile === 'deploy/web.Dockerfile')!;
    expect(envOf(web).AGENT_URL).toBe(`http://${proxyName}:7860`);
    for (const s of Object.values(services)) for (const v of Object.values(envOf(s))) for (const a of agentNames) expect(String(v)).not.toContain(`${a}:`);
    const address = proxy.networks.front.ipv4_address as string;
    expect(envOf(web).TRUSTED_PROXIES).toBe(address);
    const subnet = new BlockList();
    const [net, bits] = (compose.networks.front!.ipam.config[0].subnet as string).split('/');
    subnet.addSubnet(net!, Number(bits));
    expect(subnet.check(address)).toBe(true);
    expect(location(serverOn(8080), '/')).toBeDefined();
    expect(proxiedUpstream(location(serverOn(8080), '/')!)).toBe('sandscope_web');
    expect(directives(upstreams.get('sandscope_web')!, 'server').map((s) => s.args[0])).toEqual(['web:3000']);
  });

  it('the proxy starts after both agents and the website are healthy', () => {
    for (const n of [...agentNames, 'web']) expect(proxy.depends_on?.[n]?.condition, n).toBe('service_healthy');
  });
});

describe('compose.yaml: the stores', () => {
  it('Postgres is the official pgvector image, pinned; the agents use it and share one Redis', () => {
    const { tag } = imageParts(services.postgres!.image);
    expect(services.postgres!.image).toMatch(/^pgvector\/pgvector:/);
    expect(tag).toMatch(/^\d+\.\d+\.\d+-pg\d+$/);
    for (const n of agentNames) {
      expect(envOf(services[n]!).DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(envOf(services[n]!).REDIS_URL).toBe('redis://redis:6379');
      expect(services[n]!.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    }
  });

  it('Postgres and Redis sit on an internal network the website and the proxy are not on', () => {
    expect(compose.networks.backend!.internal).toBe(true);
    for (const n of ['postgres', 'redis']) expect(services[n]!.networks).toEqual(['backend']);
    for (const n of ['web', proxyName]) expect(networkNames(services[n]!), n).not.toContain('backend');
  });
});

/** Names whose values are secrets: they may only be references to the env file. */
const SECRET_NAME = /_TOKEN$|_SALT$|PASSWORD|SECRET|_API_KEY$|^DATABASE_URL$|_BASE_URL$/;
const REFERENCE = /\$\{([A-Z0-9_]+)(:[?-][^}]*)?\}/g;

describe('compose.yaml: secrets come from the env file', () => {
  const example = read('deploy/compose.env.example');
  const exampleVars = new Map([...example.matchAll(/^#?\s*([A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const required = new Set([...read('compose.yaml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]!));

  it('no secret is written in compose.yaml: every secret value is made of ${…} references', () => {
    let checked = 0;
    for (const [name, s] of Object.entries(services)) {
      expect(s.env_file, `${name}: env_file would hand the service every secret in the file`).toBeUndefined();
      for (const [key, value] of Object.entries(envOf(s))) {
        if (!SECRET_NAME.test(key)) continue;
        checked++;
        const refs = [...String(value).matchAll(REFERENCE)];
        expect(refs.length, `${name} ${key}`).toBeGreaterThan(0);
        // `${X:-default}` would write the default, a secret, here: only required (`:?`) or empty defaults.
        for (const ref of refs) expect(ref[2] === undefined || ref[2].startsWith(':?') || ref[2] === ':-', `${name} ${key}: ${ref[0]}`).toBe(true);
        if (key === 'DATABASE_URL') {
          // Only the password is a secret in the URL; it must be the reference.
          expect(String(value), `${name} ${key}`).toMatch(/^postgres:\/\/[a-z]+:\$\{POSTGRES_PASSWORD:\?[^}]*\}@/);
        } else {
          expect(String(value).replace(REFERENCE, ''), `${name} ${key}: literal text beside the reference`).toBe('');
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('the secrets the stack cannot run without are required (`:?`), so an empty .env stops `up` naming them', () => {
    for (const name of ['AGENT_TOKEN', 'IP_SALT', 'POSTGRES_PASSWORD']) expect(required, name).toContain(name);
  });

  it('the example env file names every variable compose.yaml reads, the required ones left empty', () => {
    const referenced = new Set([...read('compose.yaml').matchAll(REFERENCE)].map((m) => m[1]!));
    for (const name of referenced) expect(exampleVars.has(name), `${name} missing from deploy/compose.env.example`).toBe(true);
    for (const name of required) expect(exampleVars.get(name), `${name} must be empty in the example`).toBe('');
  });

  it('.env, where the secrets go, is git-ignored', () => {
    expect(
      read('.gitignore')
        .split('\n')
        .map((l) => l.trim()),
    ).toContain('.env');
  });
});

describe('compose.yaml: images and exposure', () => {
  it('every image is pinned to a version, never latest', () => {
    for (const [name, s] of Object.entries(services)) {
      const { tag } = imageParts(s.image);
      expect(tag, `${name}: ${s.image}`).toMatch(/\d+\.\d+\.\d+/);
    }
  });

  it('ports are published on loopback only (whoever reaches the website asks with the agent token)', () => {
    const published = Object.values(services).flatMap((s) => (s.ports ?? []) as string[]);
    expect(published.length).toBeGreaterThan(0);
    for (const p of published) expect(p).toMatch(/^127\.0\.0\.1:/);
    expect(
      Object.entries(services)
        .filter(([, s]) => s.ports)
        .map(([n]) => n),
    ).toEqual([proxyName]);
  });

  it('the agents and the website run on a read-only root filesystem with a tmpfs /tmp', () => {
    for (const n of [...agentNames, 'web', proxyName]) {
      expect(services[n]!.read_only, n).toBe(true);
      expect(services[n]!.tmpfs, n).toContain('/tmp');
    }
  });
});
