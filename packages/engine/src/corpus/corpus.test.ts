import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Chunk, SourceDocument } from '../types.ts';
import { chunkDocument, documentTitle } from './chunker.ts';
import { parseEstate, type Estate } from './estate.ts';

/**
 * The corpus is the product's ground truth: the evaluation manufactures its
 * questions from estate.json and GAPS.md, so every claim those files make about
 * the documents is checked here against the documents themselves.
 */
const corpusDir = fileURLToPath(new URL('../../../../corpus/', import.meta.url));
const docsDir = `${corpusDir}docs/`;

const docs: SourceDocument[] = readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((doc) => {
    const text = readFileSync(`${docsDir}${doc}`, 'utf8');
    return { doc, title: documentTitle(doc, text), text };
  });
const byName = new Map(docs.map((d) => [d.doc, d]));
const chunksByDoc = new Map<string, Chunk[]>(docs.map((d) => [d.doc, chunkDocument(d)]));
const allChunks = [...chunksByDoc.values()].flat();

const parsed = parseEstate(JSON.parse(readFileSync(`${corpusDir}estate.json`, 'utf8')));
if (!parsed.ok) throw new Error(parsed.message);
const estate: Estate = parsed.estate;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Whole-word, case-insensitive: `DNS` must not match inside `DNSSEC`, nor `ios` inside `ratios`. */
const wholeWord = (term: string) => new RegExp(`(?<![A-Za-z0-9_])${escapeRe(term)}(?![A-Za-z0-9_])`, 'i');

/** The markdown body under `heading` up to the next heading of any level, or null if no such heading. */
function sectionText(text: string, heading: string): string | null {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#{1,6}\s+/.test(l) && l.replace(/^#{1,6}\s+/, '').trim() === heading);
  if (start < 0) return null;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^#{1,6}\s+/.test(l));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n');
}

/** The passage that carries `heading`: its own, or the one it merged into (merged headings appear as a bare line). */
function chunkFor(doc: string, heading: string): Chunk | undefined {
  const chunks = chunksByDoc.get(doc) ?? [];
  return chunks.find((c) => c.heading === heading) ?? chunks.find((c) => c.text.split('\n').some((l) => l.replace(/^#+\s*/, '').trim() === heading));
}

interface Gap {
  topic: string;
  terms: string[];
  corrected: boolean;
}

function parseGaps(text: string): Gap[] {
  const gaps: Gap[] = [];
  let inCorrections = false;
  for (const line of text.split('\n')) {
    if (/^##\s+/.test(line)) inCorrections = /^##\s+Corrections\b/i.test(line);
    const m = /^- \*\*(.+?)\*\* — terms: (.+?) — (.+)$/.exec(line);
    if (!m) continue;
    const terms = [...m[2]!.matchAll(/`([^`]+)`/g)].map((t) => t[1]!);
    gaps.push({ topic: m[1]!, terms, corrected: inCorrections });
  }
  return gaps;
}
const gaps = parseGaps(readFileSync(`${corpusDir}GAPS.md`, 'utf8'));

const words = docs.reduce((n, d) => n + d.text.split(/\s+/).filter(Boolean).length, 0);

describe('corpus documents', () => {
  it('has exactly 19 documents, each opening with a level-one title', () => {
    expect(docs).toHaveLength(19);
    for (const d of docs) expect(d.text.startsWith('# '), d.doc).toBe(true);
  });

  it('chunks to 80–95 passages and holds 5,500–6,500 words', () => {
    expect(allChunks.length).toBeGreaterThanOrEqual(80);
    expect(allChunks.length).toBeLessThanOrEqual(95);
    expect(words).toBeGreaterThanOrEqual(5500);
    expect(words).toBeLessThanOrEqual(6500);
  });

  it('has the document types the product answers from', () => {
    const names = docs.map((d) => d.doc);
    expect(names.filter((n) => n.startsWith('runbook-'))).toHaveLength(8);
    expect(names.filter((n) => n.startsWith('postmortem-')).length).toBeGreaterThanOrEqual(3);
    expect(names).toEqual(expect.arrayContaining(['policy-change-management.md', 'policy-incident-severity.md', 'policy-data-handling.md']));
  });

  it('gives every runbook section a heading no other runbook uses', () => {
    const seen = new Map<string, string>();
    for (const d of docs.filter((x) => x.doc.startsWith('runbook-'))) {
      for (const h of d.text.split('\n').filter((l) => /^#{2,6}\s+/.test(l))) {
        const key = h
          .replace(/^#+\s+/, '')
          .trim()
          .toLowerCase();
        expect(seen.get(key), `"${key}" in ${d.doc} and ${seen.get(key)}`).toBeUndefined();
        seen.set(key, d.doc);
      }
    }
  });
});

describe('estate.json', () => {
  const ids = new Set(estate.services.map((s) => s.id));

  it('names the company and 19 services across 4 non-empty tiers', () => {
    expect(estate.company).toBe('Larkspur');
    expect(estate.services).toHaveLength(19);
    expect(ids.size).toBe(19);
    for (const tier of [1, 2, 3, 4]) expect(estate.services.filter((s) => s.tier === tier).length, `tier ${tier}`).toBeGreaterThan(0);
  });

  it('has 27 dependencies between known services, with no duplicates or self-edges', () => {
    expect(estate.dependencies).toHaveLength(27);
    const edges = estate.dependencies.map((d) => `${d.from}->${d.to}`);
    expect(new Set(edges).size).toBe(27);
    for (const d of estate.dependencies) {
      expect(ids.has(d.from), d.from).toBe(true);
      expect(ids.has(d.to), d.to).toBe(true);
      expect(d.from).not.toBe(d.to);
    }
  });

  it('has 8 faults whose runbooks exist and contain every signal verbatim', () => {
    expect(estate.faults).toHaveLength(8);
    const kinds = new Set(estate.services.map((s) => s.kind));
    for (const f of estate.faults) {
      const runbook = byName.get(f.runbook);
      expect(runbook, f.runbook).toBeDefined();
      expect(f.signals.length, f.id).toBeGreaterThanOrEqual(3);
      expect(f.signals.length, f.id).toBeLessThanOrEqual(5);
      for (const signal of f.signals) expect(runbook!.text, `${f.id}: ${signal}`).toContain(signal);
      for (const k of f.serviceKinds) expect(kinds.has(k), `${f.id}: kind ${k}`).toBe(true);
      // "Can service X exhibit fault Y" needs real negatives.
      expect(kinds.size - f.serviceKinds.length, f.id).toBeGreaterThanOrEqual(3);
    }
  });

  it('documents every property under its stated heading, value in that section and in its passage', () => {
    expect(estate.properties.length).toBeGreaterThanOrEqual(25);
    expect(estate.properties.length).toBeLessThanOrEqual(40);
    for (const p of estate.properties) {
      const label = `${p.service} / ${p.name} (${p.doc} § ${p.heading})`;
      const doc = byName.get(p.doc);
      expect(doc, label).toBeDefined();
      const section = sectionText(doc!.text, p.heading);
      expect(section, label).not.toBeNull();
      expect(section!, label).toContain(p.value);
      const chunk = chunkFor(p.doc, p.heading);
      expect(chunk, label).toBeDefined();
      expect(chunk!.text, label).toContain(p.value);
    }
  });

  it('keeps property names shared but sparse: each documented for 1–3 services, never duplicated', () => {
    const holders = new Map<string, Set<string>>();
    for (const p of estate.properties) {
      const set = holders.get(p.name) ?? new Set<string>();
      expect(set.has(p.service), `${p.service} / ${p.name} twice`).toBe(false);
      holders.set(p.name, set.add(p.service));
    }
    for (const [name, services] of holders) expect(services.size, name).toBeLessThanOrEqual(3);
  });

  it('states every policy value under its heading', () => {
    expect(estate.policyValues.length).toBeGreaterThanOrEqual(12);
    expect(estate.policyValues.length).toBeLessThanOrEqual(24);
    for (const v of estate.policyValues) {
      const label = `${v.name} (${v.doc} § ${v.heading})`;
      const section = sectionText(byName.get(v.doc)?.text ?? '', v.heading);
      expect(section, label).not.toBeNull();
      expect(section!, label).toContain(v.value);
      expect(chunkFor(v.doc, v.heading)?.text ?? '', label).toContain(v.value);
    }
  });
});

describe('the seed’s named cases', () => {
  it('documents a connection pool ceiling of 100 for orders-db and for no other service', () => {
    const ceilings = estate.properties.filter((p) => p.name === 'connection pool ceiling');
    expect(ceilings).toHaveLength(1);
    expect(ceilings[0]).toMatchObject({ service: 'orders-db', value: '100', unit: 'connections' });
    expect(estate.services.find((s) => s.id === 'orders-db')?.kind).toBe('database');
    // Stated in exactly one place in the whole library.
    const hits = docs.flatMap((d) => [...d.text.matchAll(/(?<![\d.,])100(?![\d.,]\d)/g)].map(() => d.doc));
    expect(hits).toEqual(['architecture-order-path.md']);
  });

  it('gives events-bus no documented property that it could be confused into answering', () => {
    expect(estate.services.find((s) => s.id === 'events-bus')?.kind).toBe('queue');
    expect(estate.properties.some((p) => p.service === 'events-bus' && p.name === 'connection pool ceiling')).toBe(false);
    for (const c of allChunks.filter((x) => x.text.includes('events-bus'))) {
      expect(/connection pool ceiling/i.test(c.text) && /events-bus[^.]*ceiling/i.test(c.text), c.id).toBe(false);
    }
  });

  it('says an observation period exists between regions without ever saying how long', () => {
    const section = sectionText(byName.get('policy-change-management.md')!.text, 'Observation period between region rollouts');
    expect(section).not.toBeNull();
    expect(section!).toMatch(/observation period/i);
    expect(section!).not.toMatch(/\d/);
    expect(section!).not.toMatch(/\b(minutes?|hours?|days?|weeks?)\b/i);
    expect(chunkFor('policy-change-management.md', 'Observation period between region rollouts')!.text).not.toMatch(/\d/);
  });

  it('names who approves an emergency change', () => {
    const section = sectionText(byName.get('policy-change-management.md')!.text, 'Who approves an emergency change');
    expect(section).toMatch(/incident commander together with the on-call engineering manager/);
  });

  it('says the data handling policy does not cover retention', () => {
    const section = sectionText(byName.get('policy-data-handling.md')!.text, 'Out of scope: how long data is kept');
    expect(section).toMatch(/does not cover data retention/);
  });
});

describe('GAPS.md', () => {
  const open = gaps.filter((g) => !g.corrected);
  const corrections = gaps.filter((g) => g.corrected);

  it('lists 8–12 gaps, each with terms', () => {
    expect(open.length).toBeGreaterThanOrEqual(8);
    expect(open.length).toBeLessThanOrEqual(12);
    for (const g of open) expect(g.terms.length, g.topic).toBeGreaterThan(0);
  });

  it('keeps every gap term out of every document (whole word, case-insensitive)', () => {
    for (const g of open) {
      for (const term of g.terms) {
        const found = docs.filter((d) => wholeWord(term).test(d.text)).map((d) => d.doc);
        expect(found, `gap "${g.topic}" term "${term}"`).toEqual([]);
      }
    }
  });

  it('records the emergency-change correction, and its term really is in the corpus', () => {
    const fix = corrections.find((g) => g.topic === 'emergency change approval');
    expect(fix?.terms).toEqual(['emergency change']);
    expect(docs.some((d) => wholeWord('emergency change').test(d.text))).toBe(true);
  });
});
