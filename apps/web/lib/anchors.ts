/**
 * Fragment ids on the data page. Chunk ids contain `#` (`runbook-x#signals`),
 * which cannot appear in a URL fragment, so each becomes `chunk-<doc>--<slug>`.
 */

const UNSAFE = /[^A-Za-z0-9_-]/g;

export function chunkAnchor(chunkId: string): string {
  const hash = chunkId.indexOf('#');
  const doc = hash < 0 ? chunkId : chunkId.slice(0, hash);
  const slug = hash < 0 ? '' : chunkId.slice(hash + 1);
  return `chunk-${doc.replace(UNSAFE, '_')}--${slug.replace(UNSAFE, '_')}`;
}

/** `runbook-consumer-lag.md` → `doc-runbook-consumer-lag`. */
export function docAnchor(doc: string): string {
  return `doc-${doc.replace(/\.(md|markdown)$/i, '').replace(UNSAFE, '_')}`;
}

export const chunkHref = (chunkId: string) => `/data#${chunkAnchor(chunkId)}`;
export const docHref = (doc: string) => `/data#${docAnchor(doc)}`;
export const serviceAnchor = (id: string) => `service-${id.replace(UNSAFE, '_')}`;
