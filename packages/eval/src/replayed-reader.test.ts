import { describe, expect, it } from 'vitest';
import { DECISION_TARGETS } from './evaluate.ts';
import {
  type ReplayedReader,
  type ReplayedReaderCorpus,
  replayedReaderGroups,
  replayedReaderLine,
  replayedReaderSchema,
  replayedReaderSection,
} from './replayed-reader.ts';

function corpus(name: string, group: string, n: { fa: number; fr: number; rfa: number; rfr: number; da: number; du: number }): ReplayedReaderCorpus {
  return {
    name,
    group,
    answerable: 20,
    unanswerable: 10,
    offline: { falseAnswers: n.fa, falseRefusals: n.fr, rightSourceRate: 0.9 },
    reader: {
      falseAnswers: n.rfa,
      falseRefusals: n.rfr,
      rightSourceRate: 0.95,
      deferralRate: (n.da + n.du) / 30,
      deferredAnswerable: n.da,
      deferredUnanswerable: n.du,
      judgedBy: { stub: n.da + n.du },
      unavailable: 0,
      nothingToShow: 0,
      answerableLetThrough: n.da - 1,
      unanswerableLetThrough: n.rfa,
    },
  };
}

const SUMMARY: ReplayedReader = {
  generatedAt: '2026-12-03',
  command: 'npm run reader:replay -- seen fresh --write',
  groups: [
    { name: 'seen', corpora: ['a', 'b'], read: 'seen: read while developing' },
    { name: 'fresh', corpora: ['c'], read: 'unread: not read' },
  ],
  corpora: [
    corpus('a', 'seen', { fa: 1, fr: 8, rfa: 0, rfr: 2, da: 6, du: 3 }),
    corpus('b', 'seen', { fa: 0, fr: 6, rfa: 1, rfr: 1, da: 4, du: 2 }),
    corpus('c', 'fresh', { fa: 2, fr: 4, rfa: 2, rfr: 3, da: 5, du: 5 }),
  ],
};

describe('replayedReaderGroups: each group pooled over its corpora, in one place (the report and GET /v1/eval/latest)', () => {
  it('sums each group’s corpora and gives its rates against the pooled questions', () => {
    const [seen, fresh] = replayedReaderGroups(SUMMARY);
    expect(seen).toEqual({
      name: 'seen',
      corpora: ['a', 'b'],
      read: 'seen: read while developing',
      answerable: 40,
      unanswerable: 20,
      offline: { falseAnswers: 1, falseRefusals: 14, falseAnswerRate: 1 / 20, falseRefusalRate: 14 / 40 },
      reader: {
        falseAnswers: 1,
        falseRefusals: 3,
        falseAnswerRate: 1 / 20,
        falseRefusalRate: 3 / 40,
        deferred: 15,
        deferralRate: 15 / 60,
        deferredAnswerable: 10,
        deferredUnanswerable: 5,
        answerableLetThrough: 8,
        unanswerableLetThrough: 1,
      },
    });
    expect(fresh).toMatchObject({ name: 'fresh', corpora: ['c'], answerable: 20, unanswerable: 10, reader: { falseAnswers: 2, deferred: 10 } });
  });

  it('pools the answers the reader read before they were given (S-096) only when every corpus of the group has them', () => {
    const read = (withheld: number) => ({ answerable: 5, unanswerable: 2, answerableWithheld: 1, unanswerableWithheld: withheld, unavailable: 0 });
    const withRead: ReplayedReader = {
      ...SUMMARY,
      corpora: SUMMARY.corpora.map((c, i) => (i === 2 ? c : { ...c, reader: { ...c.reader, answersRead: read(i + 1) } })),
    };
    const [seen, fresh] = replayedReaderGroups(withRead);
    expect(seen!.reader.answersRead).toEqual({ answerable: 10, unanswerable: 4, answerableWithheld: 2, unanswerableWithheld: 3, unavailable: 0 });
    expect(fresh!.reader.answersRead).toBeUndefined();
    expect(replayedReaderSchema.parse(withRead)).toEqual(withRead);
  });

  it("pools the questions answered from the search's next passages (S-097) only when every corpus of the group has them, and says them", () => {
    const withDeeper: ReplayedReader = {
      ...SUMMARY,
      corpora: SUMMARY.corpora.map((c, i) => (i === 2 ? c : { ...c, reader: { ...c.reader, answeredDeeper: { answerable: i + 2, unanswerable: i } } })),
    };
    const [seen, fresh] = replayedReaderGroups(withDeeper);
    expect(seen!.reader.answeredDeeper).toEqual({ answerable: 5, unanswerable: 1 });
    expect(fresh!.reader.answeredDeeper).toBeUndefined();
    expect(replayedReaderSchema.parse(withDeeper)).toEqual(withDeeper);
    const section = replayedReaderSection(withDeeper, DECISION_TARGETS).join('\n');
    expect(section).toMatch(/5 answerable and 1 unanswerable questions were answered from the search's next six passages/);
  });

  it('pools the answers given from another passage the reader named (S-098) only when every corpus of the group has them, and says them', () => {
    const read = { answerable: 3, unanswerable: 1, answerableWithheld: 0, unanswerableWithheld: 1, unavailable: 0 };
    const withMoved: ReplayedReader = {
      ...SUMMARY,
      corpora: SUMMARY.corpora.map((c, i) =>
        i === 2 ? c : { ...c, reader: { ...c.reader, answersRead: read, answersMoved: { answerable: i + 1, unanswerable: i } } },
      ),
    };
    const [seen, fresh] = replayedReaderGroups(withMoved);
    expect(seen!.reader.answersMoved).toEqual({ answerable: 3, unanswerable: 1 });
    expect(fresh!.reader.answersMoved).toBeUndefined();
    expect(replayedReaderSchema.parse(withMoved)).toEqual(withMoved);
    const section = replayedReaderSection(withMoved, DECISION_TARGETS).join('\n');
    expect(section).toMatch(/it gave 3 answerable and 1 unanswerable of them partial from the passage it named/);
  });

  it('pools the refusals below the lower line the reader read (S-100) only when every corpus of the group has them, and says them', () => {
    const withRead: ReplayedReader = {
      ...SUMMARY,
      corpora: SUMMARY.corpora.map((c, i) =>
        i === 2
          ? c
          : { ...c, reader: { ...c.reader, refusalsRead: { answerable: i + 1, unanswerable: 5, answerableLetThrough: i, unanswerableLetThrough: 1 } } },
      ),
    };
    const [seen, fresh] = replayedReaderGroups(withRead);
    expect(seen!.reader.refusalsRead).toEqual({ answerable: 3, unanswerable: 10, answerableLetThrough: 1, unanswerableLetThrough: 2 });
    expect(fresh!.reader.refusalsRead).toBeUndefined();
    expect(replayedReaderSchema.parse(withRead)).toEqual(withRead);
    const section = replayedReaderSection(withRead, DECISION_TARGETS).join('\n');
    expect(section).toMatch(
      /It also read the 13 questions rated below the lower line before refusing them \(S-100; refused unread before\), and let through 1 of 3 answerable and 2 of 10 unanswerable\./,
    );
    // The table gives each corpus's reads and what it let through, or says a corpus's figures predate them.
    expect(section).toMatch(/\| a \| seen \|.*\| 6 \/ 1 \| [\d.]+% → [\d.]+% \|$/m);
    expect(section).toMatch(/\| c \| fresh \|.*\| not read \| [\d.]+% → [\d.]+% \|$/m);
  });

  it('pools the prompts the reader was sent only when every corpus of the group counts them, and says them beside deferral', () => {
    const withCalls: ReplayedReader = {
      ...SUMMARY,
      corpora: SUMMARY.corpora.map((c, i) => (i === 2 ? c : { ...c, reader: { ...c.reader, calls: 10 * (i + 1) } })),
    };
    const [seen, fresh] = replayedReaderGroups(withCalls);
    expect(seen!.reader.calls).toBe(30);
    expect(fresh!.reader.calls).toBeUndefined();
    expect(replayedReaderSchema.parse(withCalls)).toEqual(withCalls);
    const n = seen!.answerable + seen!.unanswerable;
    const section = replayedReaderSection(withCalls, DECISION_TARGETS).join('\n');
    expect(section).toContain(`In all it was sent 30 prompts for the group's ${n} questions (${(30 / n).toFixed(2)} per question)`);
    expect(section.match(/In all it was sent/g)).toHaveLength(1);
    // A group with a corpus whose summary predates the count gives none: a partial sum would pass for the whole.
    const partly: ReplayedReader = { ...SUMMARY, corpora: SUMMARY.corpora.map((c, i) => (i === 0 ? { ...c, reader: { ...c.reader, calls: 7 } } : c)) };
    expect(replayedReaderGroups(partly)[0]!.reader.calls).toBeUndefined();
  });

  it('pools the procedure answers that keep their steps, offline and with the reader, only when every corpus of the group counts them, and says them', () => {
    const steps = (kept: number) => ({ procedureAnswers: 6, kept });
    const withSteps: ReplayedReader = {
      ...SUMMARY,
      corpora: SUMMARY.corpora.map((c, i) =>
        i === 2 ? c : { ...c, offline: { ...c.offline, steps: steps(i) }, reader: { ...c.reader, steps: steps(4 + i) } },
      ),
    };
    const [seen, fresh] = replayedReaderGroups(withSteps);
    expect(seen!.steps).toEqual({ offline: { procedureAnswers: 12, kept: 1 }, reader: { procedureAnswers: 12, kept: 9 } });
    expect(fresh!.steps).toBeUndefined();
    expect(replayedReaderSchema.parse(withSteps)).toEqual(withSteps);
    const section = replayedReaderSection(withSteps, DECISION_TARGETS).join('\n');
    expect(section).toContain('Procedure answers that keep every step of their labelled section: with the reader 9 of 12 (75.0%), offline 1 of 12.');
    expect(section.match(/Procedure answers that keep/g)).toHaveLength(1);
    // A group with a corpus whose summary predates the count gives none: a partial sum would pass for the whole.
    const partly: ReplayedReader = { ...withSteps, corpora: withSteps.corpora.map((c, i) => (i === 1 ? SUMMARY.corpora[1]! : c)) };
    expect(replayedReaderGroups(partly)[0]!.steps).toBeUndefined();
    // More kept than answered is a broken summary, not a figure.
    const broken = {
      ...withSteps,
      corpora: [{ ...withSteps.corpora[0]!, reader: { ...withSteps.corpora[0]!.reader, steps: { procedureAnswers: 2, kept: 3 } } }],
    };
    expect(replayedReaderSchema.safeParse(broken).success).toBe(false);
  });

  it('counts the corpora that meet the right-source target with the reader, and names those that miss it', () => {
    const withMiss: ReplayedReader = {
      ...SUMMARY,
      corpora: SUMMARY.corpora.map((c, i) => (i === 1 ? { ...c, reader: { ...c.reader, rightSourceRate: 0.9 } } : c)),
    };
    const section = replayedReaderSection(withMiss, DECISION_TARGETS).join('\n');
    expect(section).toContain(`Right source with the reader (target ≥ 95.0%): met on 2 of 3 corpora, **missed** on 1 (${SUMMARY.corpora[1]!.name}).`);
    expect(replayedReaderSection(SUMMARY, DECISION_TARGETS).join('\n')).toContain('met on 3 of 3 corpora.');
  });

  it('a group with no questions has rates of 0, not NaN', () => {
    const [empty] = replayedReaderGroups({ ...SUMMARY, groups: [{ name: 'none', corpora: [], read: 'unread' }] });
    expect(empty).toMatchObject({ answerable: 0, unanswerable: 0, reader: { falseAnswerRate: 0, falseRefusalRate: 0, deferralRate: 0 } });
  });
});

describe('replayedReaderSchema: the summary file as `npm run reader:replay --write` writes it', () => {
  it('accepts a summary and rejects one missing a figure, naming where', () => {
    expect(replayedReaderSchema.parse(SUMMARY)).toEqual(SUMMARY);
    const broken = { ...SUMMARY, corpora: [{ ...SUMMARY.corpora[0], reader: { ...SUMMARY.corpora[0]!.reader, falseAnswers: 'three' } }] };
    const result = replayedReaderSchema.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['corpora', 0, 'reader', 'falseAnswers']);
  });
});

describe('a replay printed before a later change to the offline model', () => {
  it('says so beside its figures, in the section and in the README line, and only then', () => {
    const unread: ReplayedReader = { ...SUMMARY, groups: SUMMARY.groups.map((g) => ({ ...g, read: 'unread' })) };
    const stale: ReplayedReader = { ...unread, notRemeasuredSince: 'S-999 retrained the offline model.' };
    expect(replayedReaderSchema.parse(stale)).toEqual(stale);
    expect(replayedReaderSection(stale, DECISION_TARGETS).join('\n')).toContain('**Not measured again since:** S-999 retrained the offline model.');
    expect(replayedReaderLine(stale, DECISION_TARGETS).join('\n')).toContain('**Not measured again since:** S-999 retrained the offline model.');
    expect(replayedReaderSection(unread, DECISION_TARGETS).join('\n')).not.toContain('Not measured again');
    expect(replayedReaderLine(unread, DECISION_TARGETS).join('\n')).not.toContain('Not measured again');
  });
});
