import { describe, expect, it } from 'vitest';
import { parseJsonl } from './jsonl.ts';
import { answersNotAnswering, auditSources, citedSide, recordedOf, SourceJudgement, sourceAuditOf } from './source-audit.ts';

describe('the source audit', () => {
  it('hides which passage was cited behind a fixed order: both sides occur, and the same question always gets the same', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `q-${i}`);
    const sides = ids.map((id) => citedSide('c', id));
    expect(new Set(sides)).toEqual(new Set(['A', 'B']));
    expect(ids.map((id) => citedSide('c', id))).toEqual(sides);
  });

  it("reads the cited passage's verdict from the side the hash put it on, never from the reader's order", () => {
    const onA = ['q-0', 'q-1', 'q-2', 'q-3'].find((id) => citedSide('c', id) === 'A')!;
    const onB = ['q-0', 'q-1', 'q-2', 'q-3'].find((id) => citedSide('c', id) === 'B')!;
    const a = recordedOf({ id: onA, corpus: 'c', A: 'no', B: 'yes' }, ['c#cited'], 'c#gold');
    const b = recordedOf({ id: onB, corpus: 'c', A: 'no', B: 'yes' }, ['c#cited'], 'c#gold');
    expect([a.citedAnswers, a.labelledAnswers]).toEqual(['no', 'yes']);
    expect([b.citedAnswers, b.labelledAnswers]).toEqual(['yes', 'no']);
  });

  it('counts a judgement only while the record cites the passages it saw; one on others is stale, a row without one unjudged', () => {
    const rows = [
      { id: '1', corpus: 'c', cited: ['p1'] },
      { id: '2', corpus: 'c', cited: ['p2', 'p3'] },
      { id: '3', corpus: 'c', cited: ['p4'] },
      { id: '4', corpus: 'c', cited: ['p5'] },
      { id: '1', corpus: 'd', cited: ['p6'] },
    ];
    const judged = (id: string, corpus: string, cited: string[], citedAnswers: 'yes' | 'partly' | 'no') => ({
      id,
      corpus,
      cited,
      labelled: 'gold',
      citedAnswers,
      labelledAnswers: 'yes' as const,
    });
    const a = auditSources(rows, [
      judged('1', 'c', ['p1'], 'yes'),
      judged('2', 'c', ['p3', 'p2'], 'no'),
      judged('3', 'c', ['p9'], 'yes'),
      judged('1', 'd', ['p6'], 'partly'),
    ]);
    expect(a).toEqual({ wrong: 5, judged: 3, stale: 1, cited: { yes: 1, partly: 1, no: 1 }, labelled: { yes: 3, partly: 0, no: 0 } });
  });

  it('counts, of the answers given (answered or partial), the false answers and the wrong-source answers whose passage does not answer', () => {
    const row = (label: string, verdict: string) => ({ label, verdict });
    const rows = [
      row('answerable', 'answered'),
      row('answerable', 'answered'),
      row('answerable', 'partial'),
      row('answerable', 'refused'),
      row('unanswerable', 'answered'),
      row('unanswerable', 'partial'),
      row('unanswerable', 'refused'),
    ];
    expect(answersNotAnswering(rows, { cited: { yes: 0, partly: 1, no: 1 } })).toEqual({
      given: 5,
      falseAnswers: 2,
      wrongSourceNotAnswering: 1,
      notAnswering: 3,
      partly: 1,
    });
  });

  it('serves nothing for a record none of whose wrong-source answers is judged on the passages it cites', () => {
    const rows = [
      { id: '1', corpus: 'c', label: 'answerable', verdict: 'answered', source: 'wrong', cited: ['p1'] },
      { id: '2', corpus: 'c', label: 'answerable', verdict: 'answered', source: 'right', cited: ['gold'] },
    ];
    const judgement = { id: '1', corpus: 'c', cited: ['p1'], labelled: 'gold', citedAnswers: 'no' as const, labelledAnswers: 'yes' as const };
    expect(sourceAuditOf(rows, [judgement])).toMatchObject({ wrong: 1, judged: 1, given: 2, notAnswering: 1 });
    expect(sourceAuditOf(rows, [{ ...judgement, cited: ['p9'] }])).toBeNull();
  });
});

describe('parseJsonl', () => {
  it('reads every line or names the first bad one by its line in the file, blank lines counted', () => {
    const good = '{"id":"1","corpus":"c","cited":["p"],"labelled":"g","citedAnswers":"no","labelledAnswers":"yes"}';
    expect(parseJsonl(`${good}\n\n${good}\n`, SourceJudgement)).toMatchObject({ rows: [{ id: '1' }, { id: '1' }] });
    expect(parseJsonl(`${good}\n\n{"id":`, SourceJudgement)).toMatchObject({ line: 3 });
    expect(parseJsonl(`${good}\n${good.replace('"no"', '"maybe"')}`, SourceJudgement)).toMatchObject({ line: 2 });
  });
});
