import type { Chunk, Estate, SourceDocument } from '@sandscope/engine';
import type { CitedPassage } from './citation-repository.ts';
import type { CorpusEmbeddings } from './corpus-repository.ts';

/** A three-document corpus small enough to read, shaped like the real one. */
export const FIXTURE_DOCUMENTS: SourceDocument[] = [
  {
    doc: 'runbook-pool.md',
    title: 'Connection pool exhaustion',
    text: '# Connection pool exhaustion\n\n## Symptoms\nWaits climb.\n\n## Ceiling\norders-db allows 100 connections.',
  },
  { doc: 'policy-paging.md', title: 'Paging policy', text: '# Paging policy\n\n## Acknowledgement\nSEV1 pages are acknowledged within 5 minutes.' },
  { doc: 'service-events-bus.md', title: 'events-bus', text: '# events-bus\n\n## Overview\nThe events bus carries order events.\n\n## Retention\nSeven days.' },
];

export const FIXTURE_CHUNKS: Chunk[] = [
  { id: 'runbook-pool#symptoms', doc: 'runbook-pool.md', docTitle: 'Connection pool exhaustion', heading: 'Symptoms', text: 'Waits climb.' },
  { id: 'runbook-pool#ceiling', doc: 'runbook-pool.md', docTitle: 'Connection pool exhaustion', heading: 'Ceiling', text: 'orders-db allows 100 connections.' },
  {
    id: 'policy-paging#acknowledgement',
    doc: 'policy-paging.md',
    docTitle: 'Paging policy',
    heading: 'Acknowledgement',
    text: 'SEV1 pages are acknowledged within 5 minutes.',
  },
  {
    id: 'service-events-bus#overview',
    doc: 'service-events-bus.md',
    docTitle: 'events-bus',
    heading: 'Overview',
    text: 'The events bus carries order events.',
  },
  { id: 'service-events-bus#retention', doc: 'service-events-bus.md', docTitle: 'events-bus', heading: 'Retention', text: 'Seven days.' },
];

/** The fixture's passages as a run that read them names them (its result's `sources`): what completeRun keeps with each citation. */
export const FIXTURE_PASSAGES: CitedPassage[] = FIXTURE_CHUNKS.map((c) => ({ chunkId: c.id, doc: c.doc, heading: c.heading, text: c.text }));

export const FIXTURE_ESTATE: Estate = {
  company: 'Fixture Co',
  services: [
    { id: 'orders-db', name: 'Orders DB', tier: 1, kind: 'database', owner: 'data', description: 'Order storage.' },
    { id: 'events-bus', name: 'Events bus', tier: 2, kind: 'queue', owner: 'platform', description: 'Order events.' },
  ],
  dependencies: [{ from: 'events-bus', to: 'orders-db' }],
  faults: [],
  properties: [],
  policyValues: [],
};

export const FIXTURE_DIMENSIONS = 768;
export const FIXTURE_EMBEDDER_ID = 'fixture-random-768';

/** Deterministic pseudo-random unit vector (mulberry32), so every backend sees identical data. */
function fixtureVector(seed: number, dimensions = FIXTURE_DIMENSIONS): Float32Array {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = next();
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

export const FIXTURE_EMBEDDINGS: CorpusEmbeddings = {
  embedderId: FIXTURE_EMBEDDER_ID,
  vectors: FIXTURE_CHUNKS.map((_, i) => fixtureVector(i + 1)),
};

/** A query near chunk `index`'s vector: that vector plus a little noise. */
export function queryNear(index: number): Float32Array {
  const base = fixtureVector(index + 1);
  const noise = fixtureVector(1000 + index);
  return base.map((x, i) => x + 0.3 * noise[i]!);
}
