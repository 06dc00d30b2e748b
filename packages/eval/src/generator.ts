import { type Chunk, contentTerms, type Estate, identifierTokens, passageNames, tokenize } from '@sandscope/engine';
import { type Gap, mentions } from './gaps.ts';
import type { EvalQuestion, Label } from './question-set.ts';
import { pick, seededRandom, shuffle } from './rng.ts';

/**
 * Manufactures the question set from the corpus and the estate — never labelled
 * by hand (seed §Three). An answerable question is made from the passage that
 * answers it, so that passage is the expected evidence by construction. An
 * unanswerable one is kept only when its absence is verified against the text.
 */
export interface GeneratorInput {
  readonly chunks: readonly Chunk[];
  readonly estate?: Estate | null;
  readonly gaps?: readonly Gap[];
  readonly seed?: number;
}

/** A generated question plus the source item it came from: folds keep a group together. */
export interface GeneratedQuestion extends EvalQuestion {
  readonly group: string;
}

export const MECHANISMS = {
  property_other_entity: 'unanswerable',
  property_own_entity: 'answerable',
  symptom_from_fault_signal: 'answerable',
  section_heading: 'answerable',
  runbook_section: 'answerable',
  entity_cannot_exhibit_fault: 'unanswerable',
  policy_value: 'answerable',
  absent_topic: 'unanswerable',
} as const satisfies Record<string, Label>;
export type Mechanism = keyof typeof MECHANISMS;

/** Reference sizes per mechanism (the seed's mix, adjusted to our corpus; ~700 in all). */
export const TARGETS: Record<Mechanism, number> = {
  property_other_entity: 200,
  property_own_entity: 60,
  symptom_from_fault_signal: 150,
  section_heading: 127,
  runbook_section: 93,
  entity_cannot_exhibit_fault: 86,
  policy_value: 30,
  absent_topic: 24,
};

const T = {
  property: [
    (p: string, s: string) => `What is the ${p} for ${s}?`,
    (p: string, s: string) => `What ${p} is configured on ${s}?`,
    (p: string, s: string) => `Remind me of the ${p} of ${s}.`,
    (p: string, s: string) => `${s}: what's its ${p}?`,
    (p: string, s: string) => `Do we have a documented ${p} for ${s}, and what is it?`,
    (p: string, s: string) => `How is the ${p} set for ${s}?`,
  ],
  symptom: [
    (sig: string) => `We're seeing ${sig}. What should I check first?`,
    (sig: string) => `${sig} — what does it mean and what do I do?`,
    (sig: string) => `An alert says ${sig}; which runbook applies and what are the first steps?`,
    (sig: string) => `How do I respond to ${sig}?`,
    (sig: string) => `I'm on call and there is ${sig}. Where do I start?`,
  ],
  heading: [
    (h: string, title: string) => `What does ${title} say about ${h}?`,
    (h: string) => `Where is ${h} described, and what does it say?`,
    (h: string) => `Tell me about ${h}.`,
    (h: string) => `What is the guidance on ${h}?`,
  ],
  runbook: [
    (h: string, fault: string) => `During ${fault}, how do I ${h}?`,
    (h: string, fault: string) => `In the ${fault} runbook, what is the step "${h}"?`,
    (h: string, fault: string) => `For ${fault}: ${h} — how?`,
  ],
  cannotExhibit: [
    (f: string, s: string) => `Can ${s} suffer from ${f}, and what's the fix?`,
    (f: string, s: string) => `How do I handle ${f} on ${s}?`,
    (f: string, s: string) => `${s} is showing ${f}; what's the procedure?`,
    (f: string, s: string) => `What does the runbook say about ${f} on ${s}?`,
  ],
  policy: [
    (n: string) => `What is the ${n}?`,
    (n: string) => `Per policy, what's the ${n}?`,
    (n: string, title: string) => `According to ${title}, what is the ${n}?`,
  ],
  gap: [(t: string) => `What is our process for ${t}?`, (t: string) => `How do we handle ${t}?`, (t: string) => `Where is ${t} documented?`],
};

const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);
const cleanHeading = (h: string) =>
  lowerFirst(
    h
      .replace(/[`*]/g, '')
      .replace(/[.?:!]+$/, '')
      .trim(),
  );

/** The chunk that states a heading of a document (its own passage, or the one it merged into). */
export function chunkForHeading(chunks: readonly Chunk[], doc: string, heading: string): Chunk | undefined {
  const inDoc = chunks.filter((c) => c.doc === doc);
  const norm = (s: string) => s.toLowerCase().replace(/[`*]/g, '').trim();
  return (
    inDoc.find((c) => norm(c.heading) === norm(heading)) ?? inDoc.find((c) => c.text.split('\n').some((l) => norm(l.replace(/^#+\s*/, '')) === norm(heading)))
  );
}

/** Does any single passage name the entity AND carry every content term of the phrase? Then it may answer. */
function corpusMayState(chunks: readonly Chunk[], entity: string, phrase: string): boolean {
  const terms = contentTerms(phrase);
  return chunks.some((c) => {
    if (!passageNames(c, entity)) return false;
    const have = new Set(tokenize(`${c.heading}\n${c.text}`));
    return terms.every((t) => have.has(t));
  });
}

function isRunbook(chunk: Chunk): boolean {
  return /runbook/i.test(chunk.doc) || /runbook/i.test(chunk.docTitle);
}

/** The question set for a corpus, deterministic for a seed. */
export function generateQuestions(input: GeneratorInput): GeneratedQuestion[] {
  const seed = input.seed ?? 7;
  const chunks = input.chunks;
  const estate = input.estate ?? null;
  const corpusText = chunks.map((c) => `${c.docTitle}\n${c.heading}\n${c.text}`).join('\n');
  const out: Record<Mechanism, GeneratedQuestion[]> = {
    property_other_entity: [],
    property_own_entity: [],
    symptom_from_fault_signal: [],
    section_heading: [],
    runbook_section: [],
    entity_cannot_exhibit_fault: [],
    policy_value: [],
    absent_topic: [],
  };
  const rnd = seededRandom(seed);
  const add = (mechanism: Mechanism, question: string, group: string, extra: { doc?: string; evidence?: string } = {}) =>
    out[mechanism].push({ id: '', question, label: MECHANISMS[mechanism], mechanism, group, ...extra });

  // Properties: asked of the entity that has them (answerable) and of one that does not (unanswerable).
  const properties = estate ? estate.properties.map((p) => ({ ...p, name: p.name })) : derivedProperties(chunks);
  const entities = estate ? estate.services.map((s) => s.id) : [...new Set(chunks.flatMap((c) => identifierTokens(c.heading)))];
  const byName = new Map<string, typeof properties>();
  for (const p of properties) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  for (const [name, documented] of byName) {
    for (const p of documented) {
      const chunk = chunkForHeading(chunks, p.doc, p.heading);
      for (const template of shuffle(T.property, rnd).slice(0, 2)) {
        add('property_own_entity', template(name, p.service), `prop:${name}`, { doc: p.doc, ...(chunk ? { evidence: chunk.id } : {}) });
      }
    }
    const owners = new Set(documented.map((p) => p.service));
    for (const other of entities) {
      if (owners.has(other) || corpusMayState(chunks, other, name)) continue; // absence verified, not assumed
      add('property_other_entity', pick(T.property, rnd)(name, other), `prop:${name}`);
    }
  }

  if (estate) {
    for (const fault of estate.faults) {
      const runbookChunks = chunks.filter((c) => c.doc === fault.runbook);
      for (const signal of fault.signals) {
        const chunk = runbookChunks.find((c) => c.text.toLowerCase().includes(signal.toLowerCase()));
        for (const template of shuffle(T.symptom, rnd)) {
          add('symptom_from_fault_signal', template(signal), `signal:${signal}`, { doc: fault.runbook, ...(chunk ? { evidence: chunk.id } : {}) });
        }
      }
      for (const c of runbookChunks) {
        if (c.heading === c.docTitle) continue;
        for (const template of shuffle(T.runbook, rnd))
          add('runbook_section', template(cleanHeading(c.heading), fault.name.toLowerCase()), `chunk:${c.id}`, { doc: c.doc, evidence: c.id });
      }
      const kinds = new Set(fault.serviceKinds);
      for (const s of estate.services) {
        if (kinds.has(s.kind)) continue;
        if (runbookChunks.some((c) => passageNames(c, s.id)) || corpusMayState(chunks, s.id, fault.name)) continue;
        add('entity_cannot_exhibit_fault', pick(T.cannotExhibit, rnd)(fault.name.toLowerCase(), s.id), `cannot:${fault.id}:${s.id}`);
      }
    }
    for (const pv of estate.policyValues) {
      const chunk = chunkForHeading(chunks, pv.doc, pv.heading);
      for (const template of shuffle(T.policy, rnd).slice(0, 2)) {
        add('policy_value', template(pv.name, chunk?.docTitle ?? pv.doc), `chunk:${chunk?.id ?? pv.doc}`, {
          doc: pv.doc,
          ...(chunk ? { evidence: chunk.id } : {}),
        });
      }
    }
  } else {
    for (const c of chunks.filter(isRunbook)) {
      if (c.heading === c.docTitle) continue;
      add('runbook_section', pick(T.runbook, rnd)(cleanHeading(c.heading), c.docTitle.replace(/^runbook:?\s*/i, '').toLowerCase()), `chunk:${c.id}`, {
        doc: c.doc,
        evidence: c.id,
      });
    }
  }

  for (const c of chunks) {
    if (c.heading === c.docTitle) continue;
    for (const template of shuffle(T.heading, rnd).slice(0, 2))
      add('section_heading', template(cleanHeading(c.heading), c.docTitle), `chunk:${c.id}`, { doc: c.doc, evidence: c.id });
  }

  for (const gap of input.gaps ?? []) {
    if (gap.correction) continue;
    if (gap.terms.some((t) => mentions(corpusText, t))) continue; // the gap list was wrong once (seed §Three)
    for (const template of shuffle(T.gap, rnd).slice(0, 3)) add('absent_topic', template(gap.topic), `gap:${gap.topic}`);
  }

  const questions: GeneratedQuestion[] = [];
  for (const mechanism of Object.keys(out) as Mechanism[]) {
    const sampled = sampleByGroup(out[mechanism], TARGETS[mechanism], seededRandom(seed + mechanism.length * 101));
    sampled.forEach((q, i) => questions.push({ ...q, id: `${mechanism}-${String(i + 1).padStart(3, '0')}` }));
  }
  return questions;
}

/** Down-sample to a target size, spreading over groups (round-robin) so no one source dominates. */
function sampleByGroup(items: readonly GeneratedQuestion[], target: number, random: () => number): GeneratedQuestion[] {
  if (items.length <= target) return [...items];
  const groups = new Map<string, GeneratedQuestion[]>();
  for (const q of items) groups.set(q.group, [...(groups.get(q.group) ?? []), q]);
  const queues = shuffle(
    [...groups.values()].map((g) => shuffle(g, random)),
    random,
  );
  const picked: GeneratedQuestion[] = [];
  while (picked.length < target) {
    for (const q of queues) {
      const next = q.shift();
      if (next && picked.length < target) picked.push(next);
    }
  }
  const order = new Map(items.map((q, i) => [q, i]));
  return picked.sort((a, b) => order.get(a)! - order.get(b)!);
}

/**
 * Without an estate, properties come from the text: a heading that names an
 * identifier (`orders-db connection pool ceiling`) documents the rest of the
 * heading as a property of that entity.
 */
function derivedProperties(chunks: readonly Chunk[]): { service: string; name: string; doc: string; heading: string }[] {
  const out: { service: string; name: string; doc: string; heading: string }[] = [];
  for (const c of chunks) {
    const ids = identifierTokens(c.heading).filter((t) => /[-_]/.test(t));
    if (ids.length !== 1) continue;
    const name = c.heading.toLowerCase().replace(ids[0]!, '').replace(/[`*:]/g, '').replace(/\s+/g, ' ').trim();
    if (contentTerms(name).length >= 1 && /[0-9]/.test(c.text)) out.push({ service: ids[0]!, name, doc: c.doc, heading: c.heading });
  }
  return out;
}
