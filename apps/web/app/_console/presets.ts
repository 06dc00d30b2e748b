import type { Workload } from '@sandscope/api';
import { consoleHref } from '@/lib/ask-again';

/** The console's presets: one of each behaviour worth showing (seed, Nine: show it refusing first). */
export interface Preset {
  readonly id: string;
  readonly label: string;
  readonly expect: string;
  readonly question: string;
  readonly workload: Workload;
}

export const PRESETS: readonly Preset[] = [
  {
    id: 'answerable',
    label: 'Answerable',
    expect: 'answers, with citations',
    question: 'What is the connection pool ceiling for orders-db?',
    workload: 'triage',
  },
  { id: 'unanswerable', label: 'Not in the library', expect: 'refuses', question: 'How do we rotate DNS records for the storefront?', workload: 'triage' },
  {
    id: 'near-miss',
    label: 'Wrong entity (near miss)',
    expect: 'must not answer with orders-db’s number',
    question: 'What is the connection pool ceiling for events-bus?',
    workload: 'triage',
  },
  {
    id: 'change',
    label: 'Change review',
    expect: 'stops for a person to approve',
    // A proposed tier-1 failover. Asking what the failover procedure is, the preset until issue 13, is a look-up,
    // and a look-up is never gated.
    question: 'Should we fail over orders-db to the replica?',
    workload: 'change',
  },
];

export const presetHref = (p: Preset) => consoleHref(p.question, p.workload);
