import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BandExplorer } from '../app/evaluation/band-explorer';
import { Report } from '../app/evaluation/report';
import { againstTarget, againstTargetEverywhere, corpusStatus, DEFAULT_TARGETS, readReport } from '../app/evaluation/report-view';
import { AnswerabilityDistribution, binsOf, FIGURE } from '../components/answerability-distribution';
import { rates, recorded, replay } from '../lib/bands';

/*
 * The evaluation page's reading of the report (app/evaluation/report-view.ts),
 * the committed report replayed, and the server render of the chart and the
 * band explorer (what a browser without JavaScript gets).
 */

const REPORT = resolve(import.meta.dirname, '../../../docs/evaluation.json');

/** A replayed reader as GET /v1/eval/latest carries it: two groups, one over every target, one within them. */
const READER = {
  generatedAt: '2026-12-03',
  command: 'npm run reader:replay -- seen fresh --write',
  groups: [
    {
      name: 'seen',
      corpora: ['govuk-alerts', 'cloudnative-pg'],
      read: 'seen: their errors were read while developing',
      answerable: 100,
      unanswerable: 50,
      offline: { falseAnswers: 4, falseRefusals: 60, falseAnswerRate: 0.08, falseRefusalRate: 0.6 },
      reader: { falseAnswers: 5, falseRefusals: 20, falseAnswerRate: 0.1, falseRefusalRate: 0.2, deferred: 60, deferralRate: 0.4 },
    },
    {
      name: 'fresh',
      corpora: ['keda'],
      read: 'unread: no error of theirs has been read',
      answerable: 40,
      unanswerable: 40,
      offline: { falseAnswers: 1, falseRefusals: 10, falseAnswerRate: 0.025, falseRefusalRate: 0.25 },
      steps: { offline: { procedureAnswers: 2, kept: 1 }, reader: { procedureAnswers: 9, kept: 7 } },
      reader: {
        falseAnswers: 1,
        falseRefusals: 3,
        falseAnswerRate: 0.025,
        falseRefusalRate: 0.075,
        deferred: 16,
        deferralRate: 0.2,
        answersRead: { answerable: 20, unanswerable: 2, answerableWithheld: 1, unanswerableWithheld: 2, unavailable: 0 },
        answersMoved: { answerable: 4, unanswerable: 1 },
        answeredDeeper: { answerable: 2, unanswerable: 0 },
        refusalsRead: { answerable: 3, unanswerable: 9, answerableLetThrough: 2, unanswerableLetThrough: 1 },
        calls: 60,
      },
    },
  ],
};
const asLatest = (report: Record<string, unknown>) => {
  const { questions, ...summary } = report;
  return { summary, questions };
};

describe('readReport', () => {
  it('survives a missing, empty or non-object summary', () => {
    for (const summary of [undefined, null, 'oops', [], {}]) {
      const view = readReport({ summary: summary as never, questions: undefined });
      expect(view.rows).toEqual([]);
      expect(view.bands).toBeNull();
      expect(view.targets).toEqual(DEFAULT_TARGETS);
      expect(view.corpora).toEqual([]);
      expect(view.generated).toBeNull();
      expect(view.typed).toBeNull();
    }
  });

  it('reads the typed figure (one slip of the keys in each question) with its seed, and ignores what is not a number', () => {
    const view = readReport({
      summary: {
        mode: 'leave-one-corpus-out',
        n: 10,
        typed: { n: 10, falseAnswerRate: 0.25, falseRefusalRate: 0.5, rightSourceRate: 'x', seed: 4, untouched: 2 },
      } as never,
    });
    expect(view.typed).toMatchObject({ n: 10, falseAnswerRate: 0.25, falseRefusalRate: 0.5, seed: 4, untouched: 2 });
    expect(view.typed?.rightSourceRate).toBeUndefined();
    expect(view.typed?.askedAgain).toBeUndefined();
  });

  it('reads what asking a typed refusal again does (S-180) only when every count is a number', () => {
    const askedAgain = { offered: 4, answerable: 3, answered: 2, rightSource: 1, cleanAnswered: 2, unanswerable: 1, falseAnswers: 0, cleanFalseAnswers: 1 };
    const read = (a: unknown) => readReport({ summary: { mode: 'leave-one-corpus-out', n: 10, typed: { n: 10, seed: 4, askedAgain: a } } as never }).typed;
    expect(read(askedAgain)?.askedAgain).toEqual(askedAgain);
    expect(read({ ...askedAgain, answered: 'x' })?.askedAgain).toBeUndefined();
    expect(read('oops')?.askedAgain).toBeUndefined();
  });

  it('reads the source audit (S-186) only whole and consistent: every count a number, the answers not answering the sum of their two kinds', () => {
    const audit = {
      wrong: 102,
      judged: 102,
      stale: 0,
      cited: { yes: 17, partly: 23, no: 62 },
      labelled: { yes: 101, partly: 1, no: 0 },
      given: 633,
      falseAnswers: 60,
      wrongSourceNotAnswering: 62,
      notAnswering: 122,
      partly: 23,
    };
    const read = (a: unknown) => readReport({ summary: { mode: 'leave-one-corpus-out', n: 10 } as never, sourceAudit: a }).sourceAudit;
    expect(read(audit)).toEqual({
      given: 633,
      notAnswering: 122,
      falseAnswers: 60,
      wrongSourceNotAnswering: 62,
      partly: 23,
      wrong: 102,
      judged: 102,
      citedAnswers: 17,
      labelledAnswers: 101,
    });
    expect(read({ ...audit, notAnswering: 100 })).toBeUndefined();
    expect(read({ ...audit, given: '633' })).toBeUndefined();
    expect(read({ ...audit, judged: 0 })).toBeUndefined();
    expect(read(undefined)).toBeUndefined();
  });

  it('reads an older report (score thresholds, rows without answerability) as legacy, never as bands', () => {
    const view = readReport({
      summary: {
        mode: 'cross-validated',
        n: 2,
        falseAnswerRate: 0.02,
        thresholds: { insufficientBelow: 0.7, sufficientAbove: 4.2, minTermCoverage: 0.5, minConcentration: 0.3 },
        folds: [{}],
      },
      questions: [
        {
          id: 'q1',
          question: 'a?',
          label: 'answerable',
          mechanism: 'm',
          score: 9.5,
          coverage: 1,
          band: 'sufficient',
          verdict: 'answered',
          downgrade: false,
          carrierConcentration: 0.4,
        },
        { id: 'q2', label: 'unanswerable', band: 'nonsense', verdict: 'refused' },
      ],
    });
    expect(view.legacy).toBe(true);
    expect(view.bands).toBeNull();
    expect(view.pooled).toEqual({ n: 2, falseAnswerRate: 0.02 });
    expect(view.rows).toHaveLength(1);
    expect(view.rows[0]).toMatchObject({ id: 'q1', answerability: null, adjudicable: false, recordedBands: null });
    expect(view.unscored).toBe(1);
    expect(view.unreadable).toBe(1);
  });

  it('drops what is not a number or a probability instead of showing it', () => {
    const summary = {
      falseAnswerRate: 'high',
      bands: { insufficientBelow: 0.2, sufficientAbove: 3 },
      corpora: [null, { name: 'x', questions: 4, bands: { insufficientBelow: 0.3, sufficientAbove: 0.6 } }],
    };
    const view = readReport({ summary: summary as never });
    expect(view.pooled.falseAnswerRate).toBeUndefined();
    expect(view.bands).toBeNull();
    expect(view.corpora).toEqual([{ name: 'x', n: 4, status: 'not recorded', bands: { insufficientBelow: 0.3, sufficientAbove: 0.6 } }]);
  });

  // S-281: a recorded run keeps a rate over no question as null; it is not measured, never a 0.
  it('reads a rate recorded as null (nothing counted) as not measured', () => {
    const view = readReport({ summary: { n: 4, unanswerable: 0, falseAnswerRate: null, corpora: [{ name: 'x', n: 4, rightSourceRate: null }] } as never });
    expect(view.pooled.falseAnswerRate).toBeUndefined();
    expect(againstTarget('falseAnswerRate', view.pooled.falseAnswerRate, 0.05)).toBe('not measured');
    expect(view.corpora[0]?.rightSourceRate).toBeUndefined();
  });

  it('reads the replayed reader once: each group’s words and pooled figures; a group missing a figure is left out; none, none shown', () => {
    const view = readReport({ summary: {}, questions: [], replayedReader: READER });
    expect(view.replayedReader).toEqual({
      generatedAt: '2026-12-03',
      command: 'npm run reader:replay -- seen fresh --write',
      groups: [
        {
          name: 'seen',
          corpora: ['govuk-alerts', 'cloudnative-pg'],
          read: 'seen: their errors were read while developing',
          answerable: 100,
          unanswerable: 50,
          offline: { falseAnswers: 4, falseRefusals: 60, falseAnswerRate: 0.08, falseRefusalRate: 0.6 },
          reader: { falseAnswers: 5, falseRefusals: 20, falseAnswerRate: 0.1, falseRefusalRate: 0.2, deferralRate: 0.4 },
        },
        {
          name: 'fresh',
          corpora: ['keda'],
          read: 'unread: no error of theirs has been read',
          answerable: 40,
          unanswerable: 40,
          offline: { falseAnswers: 1, falseRefusals: 10, falseAnswerRate: 0.025, falseRefusalRate: 0.25 },
          steps: { reader: { procedureAnswers: 9, kept: 7 }, offline: { procedureAnswers: 2, kept: 1 } },
          reader: {
            falseAnswers: 1,
            falseRefusals: 3,
            falseAnswerRate: 0.025,
            falseRefusalRate: 0.075,
            deferralRate: 0.2,
            answersRead: { read: 22, withheld: 3 },
            answersMoved: 5,
            answeredDeeper: 2,
            refusalsRead: { read: 12, letThrough: 3 },
            calls: 60,
          },
        },
      ],
    });
    const [seen, fresh] = READER.groups;
    const textCount = { ...fresh!, reader: { ...fresh!.reader, falseRefusals: '3' } };
    const partial = readReport({ summary: {}, replayedReader: { ...READER, groups: [seen, textCount, { name: 'empty' }] } as never });
    expect(partial.replayedReader?.groups.map((g) => g.name)).toEqual(['seen']);
    for (const replayedReader of [undefined, null, 'oops', {}, { groups: [] }, { groups: [textCount] }])
      expect(readReport({ summary: {}, replayedReader: replayedReader as never }).replayedReader).toBeUndefined();
  });

  it('keeps what changed since the replay was printed, when it was not printed again, for the page to say beside it', () => {
    const stale = readReport({ summary: {}, replayedReader: { ...READER, notRemeasuredSince: 'S-999 retrained the offline model.' } });
    expect(stale.replayedReader?.notRemeasuredSince).toBe('S-999 retrained the offline model.');
    expect(readReport({ summary: {}, replayedReader: READER }).replayedReader).not.toHaveProperty('notRemeasuredSince');
  });

  it('says met or missed the way the README does (≤ for the error rates, ≥ for right source)', () => {
    expect(againstTarget('falseAnswerRate', 0.05, 0.05)).toBe('met');
    expect(againstTarget('falseRefusalRate', 0.65, 0.1)).toBe('missed');
    expect(againstTarget('rightSourceRate', 0.869, 0.95)).toBe('missed');
    expect(againstTarget('rightSourceRate', 0.959, 0.95)).toBe('met');
    expect(againstTarget('deferralRate', undefined, 0.25)).toBe('not measured');
  });

  it('reads a corpus status in one word from its README sentence', () => {
    expect(corpusStatus(undefined)).toBe('not recorded');
    expect(corpusStatus('no status recorded')).toBe('not recorded');
    expect(corpusStatus('unseen')).toBe('unseen');
    expect(corpusStatus('seen')).toBe('seen');
    expect(
      corpusStatus('written by a colleague who never saw the gate; unseen until its first run at commit 01f7210; no change was made because of its results'),
    ).toBe('unseen');
    expect(corpusStatus('unseen until its first run at commit a026cb6, then seen (S-021 and S-022 were found on it).')).toBe('seen');
    expect(corpusStatus('seen during development (S-014 …), so it is not an unseen check.')).toBe('seen');
  });
});

describe('againstTargetEverywhere (issue 9: each held-out corpus and pooled)', () => {
  it('misses a budget any corpus is over, though the pooled figure is under it, and counts them', () => {
    const corpora = [{ falseAnswerRate: 0.02 }, { falseAnswerRate: 0.11 }, { falseAnswerRate: 0.0 }];
    expect(againstTargetEverywhere('falseAnswerRate', 0.049, corpora, 0.05)).toEqual({ verdict: 'missed', over: 1 });
    expect(againstTargetEverywhere('falseAnswerRate', 0.049, [{ falseAnswerRate: 0.04 }, { falseAnswerRate: 0.05 }], 0.05)).toEqual({
      verdict: 'met',
      over: 0,
    });
    // a floor (right source) is read pooled, as the report states it
    expect(againstTargetEverywhere('rightSourceRate', 0.96, [{ rightSourceRate: 0.5 }, { rightSourceRate: 1 }], 0.95).verdict).toBe('met');
  });
});

describe.skipIf(!existsSync(REPORT))('the committed report (docs/evaluation.json)', () => {
  const report = JSON.parse(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '{}') as Record<string, unknown>;
  const view = readReport(asLatest(report));

  it('reads every row, corpus and band of it', () => {
    expect(view.unreadable).toBe(0);
    expect(view.rows.length).toBe((report.questions as unknown[]).length);
    expect(view.bands).not.toBeNull();
    expect(view.corpora.length).toBe((report.corpora as unknown[]).length);
  });

  it('replays every recorded verdict exactly at the bands it was scored with (the slider starts from the truth)', () => {
    const differ = view.rows.filter((r) => {
      if (!r.recordedBands) return view.mode === 'leave-one-corpus-out';
      const o = replay(r, r.recordedBands);
      return o.band !== r.band || o.verdict !== r.verdict;
    });
    expect(differ.map((r) => `${r.corpus} ${r.id}: recorded ${r.band}/${r.verdict} at ${r.answerability}`)).toEqual([]);
  });

  it('carries what the adjudicated bands decide alone and defer, when the report has them', () => {
    const a = report.adjudicated as Record<string, number> | undefined;
    if (!a) return expect(view.adjudicated).toBeUndefined();
    expect(view.adjudicated).toEqual({
      falseAnswerRate: a.falseAnswerRate,
      falseRefusalRate: a.falseRefusalRate,
      deferralRate: a.deferralRate,
      deferredAnswerable: a.deferredAnswerable,
      deferredUnanswerable: a.deferredUnanswerable,
    });
  });

  it('its rows add up to its pooled figures', () => {
    const r = rates(view.rows, recorded);
    expect(r.falseAnswerRate).toBeCloseTo(view.pooled.falseAnswerRate ?? Number.NaN, 10);
    expect(r.falseRefusalRate).toBeCloseTo(view.pooled.falseRefusalRate ?? Number.NaN, 10);
    expect(r.deferralRate).toBeCloseTo(view.pooled.deferralRate ?? Number.NaN, 10);
  });
});

describe('the server render (what a browser without JavaScript gets)', () => {
  const xOf = (html: string, cls: string) => Number(new RegExp(`<g class="threshold ${cls}"[^>]*><line x1="([0-9.]+)"`).exec(html)?.[1]);
  const rows = [
    { label: 'answerable', answerability: 0.9 },
    { label: 'answerable', answerability: 1 },
    { label: 'unanswerable', answerability: 0 },
    { label: 'unanswerable', answerability: null },
  ];

  it('bins answerability linearly over 0..1, a probability of 1 in the last bin', () => {
    const a = binsOf(rows, 'answerable');
    expect(a.reduce((s, n) => s + n, 0)).toBe(2);
    expect(a[a.length - 1]).toBe(1);
    expect(binsOf(rows, 'unanswerable')[0]).toBe(1);
  });

  it('draws both band lines where the bands are, on a linear axis', () => {
    const plotW = FIGURE.width - FIGURE.left - FIGURE.right;
    const html = renderToStaticMarkup(createElement(AnswerabilityDistribution, { rows, bands: { insufficientBelow: 0.25, sufficientAbove: 0.75 } }));
    expect(xOf(html, 'threshold-low')).toBeCloseTo(FIGURE.left + 0.25 * plotW, 6);
    expect(xOf(html, 'threshold-high')).toBeCloseTo(FIGURE.left + 0.75 * plotW, 6);
    expect(html).toContain('1 question had no answerability');
  });

  // S-238: the caption said "nothing is deferred" where the lines coincide, beside a table that deferred 0.2%.
  it('where the lines coincide, says what is still deferred rather than that nothing is', () => {
    const html = renderToStaticMarkup(createElement(AnswerabilityDistribution, { rows, bands: { insufficientBelow: 0.5, sufficientAbove: 0.5 } }));
    expect(html).not.toContain('nothing is deferred');
    expect(html).toContain('only a question rated from the line whose closest passage fails a check is deferred to adjudication');
  });

  it('the band explorer draws the chart at ITS bands, not the report’s (the slider moves the lines)', () => {
    const explorerRows = [
      {
        id: 'q1',
        corpus: 'c',
        question: 'q?',
        mechanism: 'm',
        label: 'answerable',
        band: 'sufficient' as const,
        verdict: 'answered' as const,
        answerability: 0.9,
        adjudicable: true,
      },
    ];
    const render = (initial: { insufficientBelow: number; sufficientAbove: number }) =>
      renderToStaticMarkup(
        createElement(BandExplorer, { rows: explorerRows, reportBands: { insufficientBelow: 0.5, sufficientAbove: 0.5 }, initial, perCorpusBands: false }),
      );
    const atReport = render({ insufficientBelow: 0.5, sufficientAbove: 0.5 });
    const moved = render({ insufficientBelow: 0.95, sufficientAbove: 0.97 });
    expect(xOf(moved, 'threshold-low')).toBeGreaterThan(xOf(atReport, 'threshold-low'));
    expect(moved).toContain('data-value="0.950"');
    expect(moved).toContain('data-value="0.970"');
    expect(atReport).toMatch(/<b>0<\/b> questions change/);
    expect(moved).toMatch(/<b>1<\/b> question changes/);
    expect(moved).toContain('In-sample.');
  });
});

describe('the report page renders whatever report it is given', () => {
  const page = (latest: Parameters<typeof readReport>[0], below: number | null = null, above: number | null = null) =>
    renderToStaticMarkup(createElement(Report, { view: readReport(latest), below, above }));

  it('the replayed reader: a section under leave-one-corpus-out, a row per group, each reader rate met or missed; the adjudicator sentence points at it', () => {
    const adjudicated = { falseAnswerRate: 0.01, falseRefusalRate: 0.05, deferralRate: 0.3, deferredAnswerable: 20, deferredUnanswerable: 10 };
    const without = page({ summary: { mode: 'leave-one-corpus-out', adjudicated } as never });
    expect(without).not.toContain('data-testid="replayed-reader"');
    expect(without).toContain('How well an LLM judges those is not measured here: no model runs in the evaluation.');

    const html = page({ summary: { mode: 'leave-one-corpus-out', adjudicated } as never, replayedReader: READER });
    expect(html).not.toContain('not measured here');
    expect(html).toMatch(/href="#replayed-reader"/);
    const section = /<section id="replayed-reader"[^>]*data-testid="replayed-reader"[^>]*>(.*?)<\/section>/s.exec(html)?.[1] ?? '';
    expect(html.indexOf('id="headline"')).toBeLessThan(html.indexOf('id="replayed-reader"'));
    expect(html.indexOf('id="replayed-reader"')).toBeLessThan(html.indexOf('id="generated"'));
    expect(section).toContain('With a reader in the ambiguous band (recorded judgements)');
    expect(section).toContain('<code>ADJUDICATOR=model</code>');
    expect(section).toContain('<code class="command">npm run reader:replay -- seen fresh --write</code>');
    expect(section).toContain('not the record above');
    const row = (name: string) => new RegExp(`<tr data-group="${name}">(.*?)</tr>`, 's').exec(section)?.[1] ?? '';
    const seen = row('seen');
    expect(seen).toContain('govuk-alerts, cloudnative-pg');
    expect(seen).toContain('their errors were read while developing');
    expect(seen).toMatch(/data-rate="falseAnswerRate" data-verdict="missed">5 of 50.*10\.0%.*missed/s);
    expect(seen).toMatch(/data-rate="falseRefusalRate" data-verdict="missed">20 of 100.*20\.0%.*missed/s);
    expect(seen).toMatch(/data-rate="deferralRate" data-verdict="missed">40\.0%.*missed/s);
    const fresh = row('fresh');
    expect(fresh).toMatch(/data-rate="falseAnswerRate" data-verdict="met">1 of 40.*2\.5%.*met/s);
    expect(fresh).toMatch(/data-rate="falseRefusalRate" data-verdict="met">3 of 40.*7\.5%.*met/s);
    expect(fresh).toMatch(/data-rate="deferralRate" data-verdict="met">20\.0%/);
    // S-096: the answers the reader read before they were given; a group recorded before it says it read none.
    expect(fresh).toContain('data-figure="answers-read">3 of 22 withheld');
    expect(seen).toMatch(/data-figure="answers-read"><span class="muted">not read/);
    // S-098 and S-097: answers given from another passage it named, questions answered from the next six; not counted before.
    expect(fresh).toContain('data-figure="answers-moved">5<');
    expect(fresh).toContain('data-figure="answered-deeper">2<');
    expect(seen).toMatch(/data-figure="answers-moved"><span class="muted">not counted/);
    // What the reader cost: the prompts it was sent, and per question; a group recorded before they were counted says so.
    expect(fresh).toContain('data-figure="calls">60 (0.75 per question)');
    expect(seen).toMatch(/data-figure="calls"><span class="muted">not counted/);
    // Procedure answers that keep their labelled steps, with the reader and (in brackets) offline; not counted before.
    expect(fresh).toContain('data-figure="steps">7 of 9 (1 of 2)<');
    expect(seen).toMatch(/data-figure="steps"><span class="muted">not counted/);
  });

  it('an empty report: no figures claimed, how to make one', () => {
    const html = page({ summary: {} as never });
    expect(html).toContain('This report measures none of the targets.');
    expect(html).toContain('npm run eval:report');
    expect(html).not.toContain('<svg');
  });

  it('an older report: its figures as recorded, a notice instead of the chart, its thresholds never drawn as bands', () => {
    const html = page({
      summary: {
        mode: 'cross-validated',
        n: 2,
        falseAnswerRate: 0.02,
        falseRefusalRate: 0.2,
        thresholds: { insufficientBelow: 0.7, sufficientAbove: 4.2, minTermCoverage: 0.5, minConcentration: 0.3 },
      } as never,
      questions: [
        { id: 'q1', label: 'answerable', score: 9.5, band: 'sufficient', verdict: 'answered', coverage: 1, downgrade: false, carrierConcentration: 0.4 },
      ],
    });
    expect(html).toContain('predates the answerability model');
    expect(html).toMatch(/false answers \(held out\).*2\.0%.*— <b>met<\/b>/);
    expect(html).toMatch(/false refusals \(held out\).*20\.0%.*— <b>missed<\/b>/);
    expect(html).not.toContain('<svg');
  });

  it.skipIf(!existsSync(REPORT))(
    'the committed report: headline against targets in words, every corpus with a status, the upper bound, the chart at the query’s bands',
    () => {
      const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Record<string, unknown>;
      const html = page(asLatest(report), 0.2, 0.9);
      expect(html).toContain('Leave-one-corpus-out (the headline)');
      expect(html.match(/— <b>(met|missed)<\/b>/g)?.length).toBe(8); // four headline figures, four generated
      for (const c of report.corpora as { name: string }[])
        expect(html).toMatch(new RegExp(`data-corpus="${c.name}".*?data-status="(seen|unseen|not recorded)"`));
      expect(html).toContain('an upper bound');
      expect(html).toContain('data-value="0.200"');
      expect(html).toContain('data-value="0.900"');
    },
  );
});
