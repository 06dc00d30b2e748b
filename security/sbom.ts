/**
 * The SBOM: `npm sbom --sbom-format cyclonedx`, written to docs/sbom.cdx.json.
 *
 * Produced offline, and proven to be: `--offline` keeps npm to its cache, and
 * the registry is pointed at a closed loopback port, so any request npm tried
 * to make would fail the step instead of quietly succeeding online. The
 * inventory comes from package-lock.json and node_modules alone.
 *
 * Normalised so the committed file changes only when the dependencies do:
 * npm stamps each document with a time and a random serial number, and names
 * the root (and each workspace) after the folder it is checked out in
 * (`wt-security`, `agent`); here every name is taken from the component's own
 * bom-ref (`sandscope@0.0.0`), and the stamp and serial are left out (both
 * optional in CycloneDX 1.5). The root package carries version 0.0.0 so its
 * bom-ref differs from apps/agent's (`sandscope@0.1.0`): bom-refs must be unique.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort, REPO_ROOT } from './lib/service.ts';

interface Component {
  'bom-ref': string;
  name: string;
  [key: string]: unknown;
}

const OUT = join(REPO_ROOT, 'docs/sbom.cdx.json');

function nameOf(bomRef: string): string {
  return bomRef.slice(0, bomRef.lastIndexOf('@'));
}

async function main(): Promise<number> {
  const registry = `http://127.0.0.1:${await closedPort()}/`;
  const run = spawnSync('npm', ['sbom', '--sbom-format', 'cyclonedx', '--offline', '--registry', registry], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_registry: registry },
  });
  if (run.status !== 0) {
    console.log(`sbom: npm sbom failed (exit ${run.status}): ${run.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
    return 1;
  }
  const bom = JSON.parse(run.stdout) as {
    bomFormat?: string;
    specVersion?: string;
    serialNumber?: string;
    metadata?: { timestamp?: string; component?: Component };
    components?: Component[];
    dependencies?: unknown[];
  };
  if (bom.bomFormat !== 'CycloneDX' || !Array.isArray(bom.components) || bom.components.length === 0) {
    console.log(`sbom: npm printed no CycloneDX inventory (bomFormat ${bom.bomFormat}, ${bom.components?.length ?? 0} components)`);
    return 1;
  }
  delete bom.serialNumber;
  if (bom.metadata) delete bom.metadata.timestamp;
  for (const component of [bom.metadata?.component, ...bom.components]) if (component) component.name = nameOf(component['bom-ref']);
  const refs = [bom.metadata?.component?.['bom-ref'], ...bom.components.map((c) => c['bom-ref'])];
  const duplicates = refs.filter((r, i) => refs.indexOf(r) !== i);
  if (duplicates.length > 0) {
    console.log(`sbom: bom-refs are not unique: ${[...new Set(duplicates)].join(', ')}`);
    return 1;
  }
  const text = `${JSON.stringify(bom, null, 2)}\n`;
  let previous = '';
  try {
    previous = readFileSync(OUT, 'utf8');
  } catch {
    previous = '';
  }
  writeFileSync(OUT, text);
  const licences = new Set(
    bom.components.flatMap((c) =>
      ((c.licenses as { license?: { id?: string; name?: string } }[] | undefined) ?? []).map((l) => l.license?.id ?? l.license?.name ?? '?'),
    ),
  );
  console.log(
    `sbom: CycloneDX ${bom.specVersion}, ${bom.components.length} components, ${bom.dependencies?.length ?? 0} dependency entries, ${licences.size} licences; ` +
      `produced offline (registry pointed at a closed port); docs/sbom.cdx.json ${previous === text ? 'unchanged' : previous ? 'UPDATED — commit it' : 'written — commit it'}`,
  );
  return 0;
}

process.exit(await main());
