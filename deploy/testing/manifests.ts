import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/**
 * Reading the deployment files the way their consumers do, for the tests beside
 * them (deploy/*.test.ts): kustomize output, Kubernetes objects, Dockerfile stages.
 * Nothing here needs a cluster or a Docker daemon.
 */

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A Kubernetes object as YAML gives it: only kind and metadata are certain. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly [field: string]: any;
}

/** Every document of a multi-document YAML text; a syntax error throws, naming it. */
export function parseYamlDocuments(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as K8sObject | null;
    return value === null ? [] : [value];
  });
}

/** Whether `kubectl` (with its built-in kustomize) is on this machine. */
export function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** `kubectl kustomize DIR`, offline: the objects the cluster would get. */
export function kubectlKustomize(dir: string): K8sObject[] {
  const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  return parseYamlDocuments(text, `kubectl kustomize ${dir}`);
}

/** The kustomization fields the fallback reader understands; anything else needs kustomize itself. */
const PLAIN_FIELDS = new Set(['apiVersion', 'kind', 'resources']);

/**
 * A kustomization that only lists `resources` renders to those files' objects, in
 * order: this reads it so, without kustomize, for a machine that has no kubectl.
 * Any other field (patches, namespace, generators) throws — that needs the real tool.
 * Where kubectl exists, a test checks this reading equals kubectl's.
 */
export function readPlainKustomization(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const [kustomization] = parseYamlDocuments(readFileSync(file, 'utf8'), file) as unknown as [Record<string, unknown>];
  const unknown = Object.keys(kustomization).filter((k) => !PLAIN_FIELDS.has(k));
  if (unknown.length > 0) throw new Error(`${file} uses ${unknown.join(', ')}: only kustomize renders that (install kubectl)`);
  return ((kustomization.resources as string[] | undefined) ?? []).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? readPlainKustomization(path) : parseYamlDocuments(readFileSync(path, 'utf8'), path);
  });
}

/** The rendered objects of a kustomization: kubectl's rendering where it exists, else the plain reading. */
export function renderKustomization(dir: string): { readonly objects: K8sObject[]; readonly renderer: 'kubectl' | 'plain' } {
  return hasKubectl() ? { objects: kubectlKustomize(dir), renderer: 'kubectl' } : { objects: readPlainKustomization(dir), renderer: 'plain' };
}

/** Objects in a stable order, for comparing two renderings. */
export function sortedObjects(objects: readonly K8sObject[]): K8sObject[] {
  return [...objects].sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
}

/** Every string anywhere inside a value, with the path that reaches it. */
export function* stringsIn(value: unknown, path = ''): Generator<{ readonly path: string; readonly value: string }> {
  if (typeof value === 'string') yield { path, value };
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* stringsIn(item, `${path}[${i}]`);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* stringsIn(v, path ? `${path}.${k}` : k);
}

/**
 * Hosts a manifest may name: in-cluster names (no dot, or under `.svc` /
 * `.svc.cluster.local`) and names reserved for examples and local use (RFC 2606,
 * RFC 6761). Anything else would be a real, probably paid, service baked into the
 * deployment — an external database, a model API — which belongs in a Secret.
 */
export function isAllowedHost(host: string): boolean {
  const h = host.toLowerCase();
  if (!h.includes('.')) return true;
  if (/\.svc(\.cluster\.local)?$/.test(h)) return true;
  return /(^|\.)(example|localhost|test|invalid)$/.test(h) || /^(example\.(com|net|org))$/.test(h) || /\.example\.(com|net|org)$/.test(h);
}

/** The host of each URL in a text (`scheme://user:pass@host:port/...`). */
export function urlHosts(text: string): string[] {
  return [...text.matchAll(/[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s]*@)?(\[[^\]]+\]|[^:/\s?#]+)/gi)].map((m) => m[1]!);
}

/** An image reference's registry host, if it names one (`ghcr.io/x/y:1` → ghcr.io), and its tag. */
export function imageParts(image: string): { readonly registry: string | null; readonly tag: string | null; readonly digest: string | null } {
  const [withoutDigest, digest = null] = image.split('@') as [string, string?];
  const slash = withoutDigest.indexOf('/');
  const first = slash === -1 ? '' : withoutDigest.slice(0, slash);
  const registry = first.includes('.') || first.includes(':') || first === 'localhost' ? first : null;
  const lastPart = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  const colon = lastPart.indexOf(':');
  return { registry, tag: colon === -1 ? null : lastPart.slice(colon + 1), digest };
}

/** One instruction of a Dockerfile: the keyword upper-cased, the rest as written (continuations joined). */
export interface DockerInstruction {
  readonly keyword: string;
  readonly args: string;
}

/** One build stage: `FROM image [AS name]` and what follows it. */
export interface DockerStage {
  readonly from: string;
  readonly name: string | null;
  readonly instructions: readonly DockerInstruction[];
}

/**
 * The stages of a Dockerfile, with `ARG` defaults declared before the first FROM
 * substituted into FROM lines (as the builder does when no --build-arg is given).
 */
export function parseDockerfile(text: string): { readonly stages: DockerStage[]; readonly globalArgs: Record<string, string> } {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (pending === '' && /^\s*#/.test(line)) continue; // a comment (or parser directive)
    if (pending !== '' && /^\s*#/.test(line)) continue; // comments inside a continued instruction are dropped too
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full !== '') lines.push(full);
  }
  const globalArgs: Record<string, string> = {};
  const stages: { from: string; name: string | null; instructions: DockerInstruction[] }[] = [];
  for (const line of lines) {
    const match = /^(\S+)\s*(.*)$/s.exec(line)!;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!;
    if (keyword === 'FROM') {
      const [image = '', as, name] = args.replace(/--platform=\S+\s+/, '').split(/\s+/);
      const resolved = image.replace(/\$\{?(\w+)\}?/g, (_, v: string) => globalArgs[v] ?? '');
      stages.push({ from: resolved, name: as?.toUpperCase() === 'AS' ? (name ?? null) : null, instructions: [] });
    } else if (stages.length === 0) {
      if (keyword === 'ARG') {
        const [key, value = ''] = args.split('=', 2);
        globalArgs[key!.trim()] = value.trim();
      }
    } else {
      stages[stages.length - 1]!.instructions.push({ keyword, args });
    }
  }
  return { stages, globalArgs };
}
