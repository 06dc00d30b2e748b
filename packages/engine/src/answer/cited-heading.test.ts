import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../corpus/chunker.ts';
import { citedHeadings } from './cited-heading.ts';

// A lead under MIN_PASSAGE_CHARS merges into the first section, and the passage keeps the title (the shipped
// change policy's shape); so does a short alert section under a container heading.
const POLICY = [
  '# Change Policy',
  '',
  'How changes reach production.',
  '',
  '## Kinds of change',
  '',
  'A standard change is a pre-approved, repeatable operation listed in a runbook, such as scaling a worker within its documented limits. A normal change is anything else planned in advance.',
  '',
  '## Approving a normal change',
  '',
  'A normal change needs two approvals in the change ticket: one from an engineer on the owning team and one from an engineer on a different team for tier 1 services. Schema migrations must be announced at least 48 hours before they run.',
].join('\n');

describe('citedHeadings (S-142)', () => {
  const chunks = chunkDocument({ doc: 'policy.md', title: 'Change Policy', text: POLICY });
  const lead = chunks[0]!;
  const byId = (id: string) => chunks.find((c) => c.id === id);
  const standard = 'A standard change is a pre-approved, repeatable operation listed in a runbook, such as scaling a worker within its documented limits.';

  it('names the merged section every claim citing a passage stands under', () => {
    expect(lead).toMatchObject({ id: 'policy#change-policy', heading: 'Change Policy' });
    expect(citedHeadings([{ text: standard, citations: [lead.id] }], byId).get(lead.id)).toBe('Kinds of change');
  });

  it("keeps the passage's own heading for its own body, for claims under two sections, and for a sentence it does not hold", () => {
    const own = 'How changes reach production.';
    expect(citedHeadings([{ text: own, citations: [lead.id] }], byId).get(lead.id)).toBe('Change Policy');
    expect(
      citedHeadings(
        [
          { text: own, citations: [lead.id] },
          { text: standard, citations: [lead.id] },
        ],
        byId,
      ).get(lead.id),
    ).toBe('Change Policy');
    expect(citedHeadings([{ text: 'Not in it.', citations: [lead.id] }], byId).get(lead.id)).toBe('Change Policy');
    const approving = chunks.find((c) => c.heading === 'Approving a normal change')!;
    expect(
      citedHeadings([{ text: 'Schema migrations must be announced at least 48 hours before they run.', citations: [approving.id] }], byId).get(approving.id),
    ).toBe('Approving a normal change');
  });

  it('names a merged section with the headings above it in the passage, not the document title (S-208)', () => {
    const text = [
      '# Databases',
      '## orders-db',
      '### Mitigation',
      '1. Restart the pooler.',
      '## users-db',
      '### Mitigation',
      '1. Fail over to the standby.',
    ].join('\n\n');
    const [db, ...rest] = chunkDocument({ doc: 'db.md', title: 'Databases', text });
    expect(rest).toHaveLength(0);
    const named = (sentence: string) => citedHeadings([{ text: sentence, citations: [db!.id] }], () => db).get(db!.id);
    expect(named('Fail over to the standby.')).toBe('users-db › Mitigation');
    expect(named('Restart the pooler.')).toBe('orders-db › Mitigation');
  });
});
