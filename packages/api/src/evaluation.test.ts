import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evalLatestSchema } from './evaluation.ts';

// The committed report, split as the agent's file fallback splits it (apps/agent/src/service/eval-latest.ts).
const { questions, ...summary } = JSON.parse(readFileSync(new URL('../../../docs/evaluation.json', import.meta.url), 'utf8')) as {
  questions: Record<string, unknown>[];
} & Record<string, unknown>;
const latest = { summary, questions, source: 'file' };

describe('evalLatestSchema', () => {
  it('parses the committed report (docs/evaluation.json)', () => {
    const parsed = evalLatestSchema.parse(latest);
    expect(parsed.questions.length).toBe(questions.length);
    expect(parsed.summary.bands).toBeDefined();
  });

  it('parses an older or partial report: no figures, no bands, unknown fields kept', () => {
    const older = evalLatestSchema.parse({ summary: { thresholds: { insufficientBelow: 0.41 } }, questions: [{ id: 'q1', score: 0.5 }] });
    expect(older.summary.thresholds).toEqual({ insufficientBelow: 0.41 });
    expect(older.questions[0]?.answerability).toBeUndefined();
  });

  // S-281: `sandscope eval --record` keeps a rate over no question as null; the page failed to read such a run at all.
  it('parses a recorded run whose rates counted nothing as null, pooled and per corpus', () => {
    const none = { falseAnswerRate: null, rightSourceRate: null, stepsCoveredRate: null, partialRate: null, mrr: null, recallAt6: null };
    const parsed = evalLatestSchema.parse({ ...latest, summary: { ...summary, ...none, corpora: [{ name: 'x', ...none }] } });
    expect(parsed.summary.falseAnswerRate).toBeNull();
    expect(parsed.summary.corpora?.[0]?.stepsCoveredRate).toBeNull();
  });

  it('refuses a figure sent as text, and bands whose edge is renamed', () => {
    expect(evalLatestSchema.safeParse({ ...latest, summary: { ...summary, falseAnswerRate: '3.8%' } }).success).toBe(false);
    expect(evalLatestSchema.safeParse({ ...latest, summary: { ...summary, refusalsNamingLabelled: '12' } }).success).toBe(false);
    expect(evalLatestSchema.safeParse({ ...latest, summary: { ...summary, bands: { refuseBelow: 0.4, sufficientAbove: 0.8 } } }).success).toBe(false);
  });

  it('refuses a row whose answerability is text, or that has no id', () => {
    const [first, ...rest] = questions;
    expect(evalLatestSchema.safeParse({ ...latest, questions: [{ ...first, answerability: '0.2' }, ...rest] }).success).toBe(false);
    const { id: _, ...noId } = first!;
    expect(evalLatestSchema.safeParse({ ...latest, questions: [noId, ...rest] }).success).toBe(false);
  });

  it('carries the replayed reader’s groups when the agent found them, and refuses a count sent as text', () => {
    const group = {
      name: 'fresh',
      corpora: ['keda', 'jaeger'],
      read: 'unread: no error of theirs has been read',
      answerable: 120,
      unanswerable: 80,
      offline: { falseAnswers: 3, falseRefusals: 40, falseAnswerRate: 0.0375, falseRefusalRate: 1 / 3 },
      reader: { falseAnswers: 2, falseRefusals: 9, falseAnswerRate: 0.025, falseRefusalRate: 0.075, deferred: 90, deferralRate: 0.45 },
    };
    const replayedReader = { generatedAt: '2026-12-03', command: 'npm run reader:replay -- fresh --write', groups: [group] };
    const parsed = evalLatestSchema.parse({ ...latest, replayedReader });
    expect(parsed.replayedReader?.groups?.[0]?.reader?.falseRefusals).toBe(9);
    expect(parsed.replayedReader?.command).toBe('npm run reader:replay -- fresh --write');
    expect(evalLatestSchema.parse(latest).replayedReader).toBeUndefined();
    const textCount = { ...replayedReader, groups: [{ ...group, reader: { ...group.reader, falseAnswers: '2' } }] };
    expect(evalLatestSchema.safeParse({ ...latest, replayedReader: textCount }).success).toBe(false);
  });
});
