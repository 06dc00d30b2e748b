import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentConfigSchema, loadConfig } from 'sandscope';
import {
  hasKubectl,
  imageParts,
  isAllowedHost,
  type K8sObject,
  kubectlKustomize,
  parseYamlDocuments,
  REPO_ROOT,
  readPlainKustomization,
  renderKustomization,
  sortedObjects,
  stringsIn,
  urlHosts,
} from '../testing/manifests.ts';

/*
 * The Kubernetes deployment (issue 11, section 3), checked on what kustomize renders —
 * `kubectl kustomize deploy/k8s/base` where kubectl exists (it does on the project's
 * machines and CI), the plain reading of its `resources` elsewhere. No cluster needed.
 */

const BASE = join(REPO_ROOT, 'deploy/k8s/base');
const LOCAL = join(REPO_ROOT, 'deploy/k8s/overlays/local');
const kubectl = hasKubectl();

/*
 * The website's config schema, loaded at run time: apps/web is type-checked by its own
 * tsconfig (bundler resolution); a static import would pull it into the root's NodeNext check.
 */
const webConfigModule = join(REPO_ROOT, 'apps/web/lib/web-config.ts');
type LoadWebConfig = (env: Record<string, string | undefined>) => { ok: true } | { ok: false; problems: readonly { message: string }[] };

const { objects: base, renderer } = renderKustomization(BASE);

const all = (objects: readonly K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
function one(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendering (${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')})`);
  return found;
}
/** Whether a label selector (matchLabels) selects a set of labels. */
const selects = (selector: { matchLabels?: Record<string, string> } | undefined, labels: Record<string, string> | undefined) =>
  selector?.matchLabels !== undefined &&
  Object.keys(selector.matchLabels).length > 0 &&
  Object.entries(selector.matchLabels).every(([k, v]) => labels?.[k] === v);

/** Every workload's pod template, whatever the kind. */
const podTemplates = (objects: readonly K8sObject[]) =>
  objects
    .filter((o) => ['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(o.kind))
    .map((o) => ({ owner: `${o.kind}/${o.metadata.name}`, template: o.spec.template }));

/** Names looking like a secret: their value must come from a Secret, never a literal. */
const SECRET_NAME = /_TOKEN$|_SALT$|PASSWORD|SECRET|_API_KEY$|^DATABASE_URL$|^REDIS_URL$|_BASE_URL$/;

const agentDeployment = one(base, 'Deployment', 'sandscope-agent');
const webDeployment = one(base, 'Deployment', 'sandscope-web');
const agentPodLabels = agentDeployment.spec.template.metadata.labels as Record<string, string>;
const webPodLabels = webDeployment.spec.template.metadata.labels as Record<string, string>;

describe(`deploy/k8s/base renders (${renderer})`, () => {
  it.skipIf(!kubectl)('kubectl kustomize deploy/k8s/base renders, and the plain reading of its resources is the same objects', () => {
    const rendered = kubectlKustomize(BASE);
    expect(rendered.length).toBeGreaterThan(0);
    // The fallback used where kubectl is missing must not drift from the real thing.
    expect(sortedObjects(readPlainKustomization(BASE))).toEqual(sortedObjects(rendered));
  });

  it('holds the agent and website Deployments, their Services, Ingress, HPA, PDB and NetworkPolicy — and no Secret', () => {
    const kinds = new Set(base.map((o) => o.kind));
    for (const kind of ['Deployment', 'Service', 'Ingress', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'NetworkPolicy']) expect(kinds).toContain(kind);
    // secret.example.yaml is documentation; a real Secret is created in the cluster, never rendered from git.
    expect(all(base, 'Secret')).toEqual([]);
    const kustomization = readFileSync(join(BASE, 'kustomization.yaml'), 'utf8');
    expect(kustomization).not.toMatch(/^\s*-\s*secret\.example\.yaml/m);
  });
});

describe('every container', () => {
  const containers = podTemplates(base).flatMap(({ owner, template }) =>
    [...(template.spec.initContainers ?? []), ...template.spec.containers].map((c: K8sObject) => ({ owner, pod: template.spec, c })),
  );

  it('runs as non-root, cannot escalate, and has a read-only root filesystem with /tmp on an emptyDir', () => {
    expect(containers.length).toBeGreaterThanOrEqual(2);
    for (const { owner, pod, c } of containers) {
      const where = `${owner} ${c.name}`;
      expect(c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, where).toBe(true);
      const uid = c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
      expect(uid, `${where}: a numeric non-zero uid, so the kubelet can check runAsNonRoot`).toBeGreaterThan(0);
      expect(c.securityContext?.readOnlyRootFilesystem, where).toBe(true);
      expect(c.securityContext?.allowPrivilegeEscalation, where).toBe(false);
      expect(c.securityContext?.capabilities?.drop, where).toContain('ALL');
      const tmp = (c.volumeMounts ?? []).find((m: K8sObject) => m.mountPath === '/tmp');
      expect(tmp, `${where}: tsx caches under /tmp`).toBeDefined();
      expect(pod.volumes.find((v: K8sObject) => v.name === tmp.name)?.emptyDir, where).toBeDefined();
    }
  });

  it('has CPU and memory requests and a memory limit', () => {
    for (const { owner, c } of containers) {
      expect(c.resources?.requests?.cpu, `${owner} ${c.name}`).toBeTruthy();
      expect(c.resources?.requests?.memory, `${owner} ${c.name}`).toBeTruthy();
      expect(c.resources?.limits?.memory, `${owner} ${c.name}`).toBeTruthy();
    }
  });

  it('has readiness and liveness (and start-up) probes on /healthz, on a port it declares', () => {
    for (const { owner, c } of containers) {
      const ports = new Map<string | number, number>(
        (c.ports ?? []).flatMap((p: K8sObject) => [
          [p.name, p.containerPort],
          [p.containerPort, p.containerPort],
        ]),
      );
      for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
        const where = `${owner} ${c.name} ${probe}`;
        expect(c[probe]?.httpGet?.path, where).toBe('/healthz');
        expect(ports.has(c[probe].httpGet.port), `${where}: port ${c[probe].httpGet.port} is declared`).toBe(true);
      }
    }
  });

  it('takes every secret-looking variable from a Secret, never a literal value; config maps hold none', () => {
    for (const { owner, c } of containers) {
      for (const e of c.env ?? []) {
        if (SECRET_NAME.test(e.name)) {
          expect(e.value, `${owner} ${c.name} ${e.name} is inlined`).toBeUndefined();
          expect(e.valueFrom?.secretKeyRef?.name, `${owner} ${c.name} ${e.name}`).toBeTruthy();
        }
      }
    }
    for (const map of all(base, 'ConfigMap')) {
      for (const key of Object.keys(map.data ?? {})) expect(key, `ConfigMap ${map.metadata.name}`).not.toMatch(SECRET_NAME);
    }
  });

  it('names an image with a pinned tag (never latest) and no registry host', () => {
    for (const { owner, c } of containers) {
      const { registry, tag } = imageParts(c.image);
      expect(tag, `${owner} ${c.name}: ${c.image}`).toMatch(/^\d+\.\d+\.\d+/);
      expect(tag).not.toBe('latest');
      expect(registry, `${owner} ${c.name}: ${c.image}`).toBeNull();
    }
  });
});

describe('no manifest names a paid host', () => {
  it('every URL and Ingress host is in-cluster or reserved for examples', () => {
    const hosts = [
      ...base.flatMap((o) => [...stringsIn(o)].flatMap((s) => urlHosts(s.value))),
      ...all(base, 'Ingress').flatMap((i) => (i.spec.rules ?? []).map((r: K8sObject) => r.host).filter(Boolean)),
    ];
    expect(hosts.length).toBeGreaterThan(0);
    for (const host of hosts) expect(isAllowedHost(host), host).toBe(true);
  });

  it('the check itself tells a paid host from an in-cluster one', () => {
    for (const paid of ['api.groq.com', 'mydb.abc123.us-east-1.rds.amazonaws.com', 'redis-12345.c1.cloud.redislabs.com'])
      expect(isAllowedHost(paid)).toBe(false);
    for (const fine of ['sandscope-agent', 'ingress-nginx-controller.ingress-nginx.svc.cluster.local', 'sandscope.example', 'sandscope.localhost'])
      expect(isAllowedHost(fine)).toBe(true);
  });
});

describe('the agent Deployment', () => {
  it('runs 3 replicas with a RollingUpdate that never drops below them', () => {
    expect(agentDeployment.spec.replicas).toBe(3);
    expect(agentDeployment.spec.strategy.type).toBe('RollingUpdate');
    expect(agentDeployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });

  it('requires the shared stores: DATABASE_URL and REDIS_URL from the Secret, not optional', () => {
    const env = agentDeployment.spec.template.spec.containers[0].env as K8sObject[];
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'AGENT_TOKEN', 'IP_SALT']) {
      const ref = env.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
      expect(ref, name).toBeDefined();
      expect(ref.optional ?? false, `${name}: a missing key must stop the pod, not start a replica on its own state`).toBe(false);
    }
  });
});

/** A container's environment as the process sees it: literal env, config-map entries, and a stand-in for each secret. */
function environmentOf(objects: readonly K8sObject[], container: K8sObject): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, one(objects, 'ConfigMap', source.configMapRef.name).data);
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) {
      env[e.name] = /_URL$/.test(e.name)
        ? e.name === 'REDIS_URL'
          ? 'redis://user:secret@stand-in/0' // a Redis database is a number (S-256)
          : 'postgres://user:secret@stand-in/db'
        : 'a-stand-in-secret-of-32-characters';
    }
  }
  return env;
}

describe('the manifests set only variables the deployables already read', () => {
  it("agent: every variable is in the agent's config schema (providers' included), and the whole parses", () => {
    const container = agentDeployment.spec.template.spec.containers[0];
    const env = environmentOf(base, container);
    const schemaKeys = Object.keys((createAgentConfigSchema() as unknown as { in: { shape: Record<string, unknown> } }).in.shape);
    for (const name of Object.keys(env)) expect([...schemaKeys, 'NODE_ENV'], name).toContain(name);
    const parsed = loadConfig(env, { requireToken: true });
    expect(parsed.ok ? 'ok' : parsed.message).toBe('ok');
    if (parsed.ok) {
      expect(parsed.config.host).toBe('0.0.0.0');
      expect(parsed.config.database.kind).toBe('postgres');
      expect(parsed.config.redisUrl).toBeDefined();
    }
  });

  it("website: every variable is in the website's config schema, and the whole parses", async () => {
    const { loadWebConfig } = (await import(webConfigModule)) as { loadWebConfig: LoadWebConfig };
    const container = webDeployment.spec.template.spec.containers[0];
    const env = environmentOf(base, container);
    for (const name of Object.keys(env))
      expect(['AGENT_URL', 'AGENT_TOKEN', 'TRUSTED_PROXIES', 'WEB_PORT', 'WEB_HOST', 'NEXT_TELEMETRY_DISABLED', 'NODE_ENV'], name).toContain(name);
    const parsed = loadWebConfig(env);
    expect(parsed.ok ? 'ok' : parsed.problems.map((p) => p.message).join(' | ')).toBe('ok');
  });
});

describe('the Ingress hashes on the investigation id', () => {
  const ingresses = all(base, 'Ingress');
  const hashed = ingresses.filter((i) => i.metadata.annotations?.['nginx.ingress.kubernetes.io/upstream-hash-by'] !== undefined);
  const services = all(base, 'Service');
  const backendsOf = (i: K8sObject): string[] => (i.spec.rules ?? []).flatMap((r: K8sObject) => r.http.paths.map((p: K8sObject) => p.backend.service.name));

  it('with consistent hashing by the id captured from /v1/investigations/<id>', () => {
    expect(hashed).toHaveLength(1);
    const [ingress] = hashed as [K8sObject];
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/upstream-hash-by']).toBe('$investigation_id');
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/use-regex']).toBe('true');
    const paths = ingress.spec.rules.flatMap((r: K8sObject) => r.http.paths) as K8sObject[];
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) {
      expect(p.pathType).toBe('ImplementationSpecific');
      // nginx matches a regex location from the start of the path; the capture is what the balancer hashes.
      const location = new RegExp(`^${p.path}`, 'i');
      expect(location.exec('/v1/investigations/3f2c-41/turns')?.groups?.investigation_id).toBe('3f2c-41');
      expect(location.exec('/v1/investigations/3f2c-41/files/logs/app.log')?.groups?.investigation_id).toBe('3f2c-41');
      expect(location.exec('/v1/investigations/3f2c-41')?.groups?.investigation_id).toBe('3f2c-41');
      // Routes with no investigation id are not hashed (they would all land on one pod).
      expect(location.test('/v1/investigations')).toBe(false);
      expect(location.test('/v1/runs/3f2c-41')).toBe(false);
    }
  });

  it('onto agent pods, through a Service no unhashed route uses (ingress-nginx shares one balancer per Service)', () => {
    const hashedBackends = new Set(hashed.flatMap(backendsOf));
    const otherBackends = new Set(ingresses.filter((i) => !hashed.includes(i)).flatMap(backendsOf));
    for (const name of hashedBackends) {
      expect(otherBackends.has(name), name).toBe(false);
      expect(selects({ matchLabels: services.find((s) => s.metadata.name === name)?.spec.selector }, agentPodLabels), name).toBe(true);
    }
  });

  it('while the rest of /v1 reaches the agent and / the website', () => {
    const routes = ingresses.flatMap((i) =>
      (i.spec.rules ?? []).flatMap((r: K8sObject) => r.http.paths.map((p: K8sObject) => ({ path: p.path, service: p.backend.service.name }))),
    );
    expect(routes).toContainEqual({ path: '/v1', service: 'sandscope-agent' });
    expect(routes).toContainEqual({ path: '/', service: 'sandscope-web' });
  });
});

describe('the agent NetworkPolicy', () => {
  const policy = all(base, 'NetworkPolicy').find((p) => selects(p.spec.podSelector, agentPodLabels));

  it('admits only the website pods and the ingress controller, on the HTTP port', () => {
    expect(policy).toBeDefined();
    expect(policy!.spec.policyTypes).toContain('Ingress');
    const rules = policy!.spec.ingress as K8sObject[];
    expect(rules.length).toBeGreaterThan(0);
    const peers = rules.flatMap((rule) => {
      // A rule without `from` admits every source.
      expect(rule.from?.length ?? 0).toBeGreaterThan(0);
      expect(rule.ports?.map((p: K8sObject) => p.port)).toEqual(['http']);
      return rule.from as K8sObject[];
    });
    expect(peers).toHaveLength(2);
    const website = peers.find((p) => !p.namespaceSelector && selects(p.podSelector, webPodLabels));
    const controller = peers.find((p) => p.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'ingress-nginx');
    expect(website, 'the website pods, in this namespace').toBeDefined();
    expect(controller, 'the ingress controller namespace').toBeDefined();
    expect(controller!.podSelector?.matchLabels?.['app.kubernetes.io/name']).toBe('ingress-nginx');
    expect(peers.some((p) => p.ipBlock !== undefined)).toBe(false);
  });
});

describe('the PDB and the HPA target the agent', () => {
  it('PDB: selects the agent pods and no others, and lets a drain proceed', () => {
    const [pdb, ...others] = all(base, 'PodDisruptionBudget');
    expect(others).toEqual([]);
    expect(selects(pdb!.spec.selector, agentPodLabels)).toBe(true);
    expect(selects(pdb!.spec.selector, webPodLabels)).toBe(false);
    expect(pdb!.spec.maxUnavailable).toBe(1);
  });

  it('HPA: scales the agent Deployment, never below its replicas', () => {
    const [hpa, ...others] = all(base, 'HorizontalPodAutoscaler');
    expect(others).toEqual([]);
    expect(hpa!.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'sandscope-agent' });
    expect(hpa!.spec.minReplicas).toBeGreaterThanOrEqual(agentDeployment.spec.replicas);
    expect(hpa!.spec.maxReplicas).toBeGreaterThan(hpa!.spec.minReplicas);
  });
});

describe('secret.example.yaml', () => {
  it('names every key the manifests reference from sandscope-secrets, and no real value', () => {
    const [example] = parseYamlDocuments(readFileSync(join(BASE, 'secret.example.yaml'), 'utf8'), 'secret.example.yaml') as [K8sObject];
    const referenced = new Set(
      podTemplates(base).flatMap(({ template }) =>
        template.spec.containers.flatMap((c: K8sObject) =>
          (c.env ?? [])
            .map((e: K8sObject) => e.valueFrom?.secretKeyRef)
            .filter((r: K8sObject | undefined) => r?.name === 'sandscope-secrets')
            .map((r: K8sObject) => r.key),
        ),
      ),
    );
    expect(Object.keys(example.stringData).sort()).toEqual([...referenced].sort());
    for (const value of Object.values(example.stringData) as string[]) expect(value).toMatch(/<[^>]+>/);
  });
});

describe.skipIf(!kubectl)('deploy/k8s/overlays/local (kubectl kustomize)', () => {
  const local = kubectl ? kubectlKustomize(LOCAL) : [];

  it('runs one replica of each, without an autoscaler, in its own namespace', () => {
    expect(one(local, 'Deployment', 'sandscope-agent').spec.replicas).toBe(1);
    expect(one(local, 'Deployment', 'sandscope-web').spec.replicas).toBe(1);
    expect(all(local, 'HorizontalPodAutoscaler')).toEqual([]);
    for (const o of local.filter((x) => x.kind !== 'Namespace')) expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toBe('sandscope');
  });

  it('brings its own Postgres (the pgvector image) and Redis, reachable from the agent only, still with no Secret', () => {
    expect(all(local, 'Secret')).toEqual([]);
    const images = podTemplates(local).flatMap(({ template }) => template.spec.containers.map((c: K8sObject) => c.image as string));
    expect(images.some((i) => i.startsWith('pgvector/pgvector:'))).toBe(true);
    expect(images.some((i) => i.startsWith('redis:'))).toBe(true);
    for (const name of ['sandscope-postgres', 'sandscope-redis']) {
      const policy = one(local, 'NetworkPolicy', name);
      expect(policy.spec.ingress.flatMap((r: K8sObject) => r.from)).toEqual([
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'sandscope-agent' } } },
      ]);
    }
  });

  it('keeps every container non-root with a read-only root filesystem and resources, its images pinned', () => {
    for (const { owner, template } of podTemplates(local)) {
      for (const c of template.spec.containers) {
        expect(c.securityContext?.runAsNonRoot ?? template.spec.securityContext?.runAsNonRoot, owner).toBe(true);
        expect(c.securityContext?.readOnlyRootFilesystem, owner).toBe(true);
        expect(c.resources?.limits?.memory, owner).toBeTruthy();
        expect(imageParts(c.image).tag, c.image).toMatch(/^\d+\.\d+\.\d+/);
      }
    }
  });

  it('serves the website on sandscope.localhost', () => {
    expect(one(local, 'Ingress', 'sandscope-web').spec.rules[0].host).toBe('sandscope.localhost');
  });
});
