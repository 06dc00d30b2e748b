import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, type Locator, type Page, test } from '@playwright/test';

/*
 * Issue 13, website item 5: the band explorer's slider did not move the
 * chart's lines, and stepped linearly over a chart drawn on another scale.
 * Measured on the page: wherever a slider is put, its line is drawn where that
 * value sits on the chart's own axis (read from the axis ticks as rendered).
 */

/** The rendered x (page pixels) of the chart's axis tick labelled `label`. */
async function tickX(page: Page, label: string): Promise<number> {
  const tick = page.locator('svg.distribution .tick').filter({ has: page.locator('text', { hasText: new RegExp(`^${label.replace('.', '\\.')}$`) }) });
  await expect(tick).toHaveCount(1);
  const box = (await tick.locator('line').boundingBox())!;
  return box.x + box.width / 2;
}

async function lineX(line: Locator): Promise<number> {
  const box = (await line.locator('line').boundingBox())!;
  return box.x + box.width / 2;
}

test('each slider puts its line where its value is on the chart’s axis', async ({ page }) => {
  // networkidle: the explorer's script has loaded and hydrated, so a key press reaches React
  await page.goto('/evaluation#what-if', { waitUntil: 'networkidle' });
  const low = page.locator('svg.distribution .threshold-low');
  const high = page.locator('svg.distribution .threshold-high');
  const belowSlider = page.getByRole('slider', { name: 'Refuse below' });
  const aboveSlider = page.getByRole('slider', { name: 'Answer from' });
  await expect(belowSlider).toBeVisible();
  const x0 = await tickX(page, '0');
  const x1 = await tickX(page, '1');
  /** Where the chart's axis puts a probability. */
  const onAxis = (p: number) => x0 + p * (x1 - x0);

  // the ends of each slider are the ends of the axis
  await belowSlider.focus();
  await page.keyboard.press('Home');
  await expect(low).toHaveAttribute('data-value', '0.000');
  expect(Math.abs((await lineX(low)) - onAxis(0))).toBeLessThan(1.5);
  await aboveSlider.focus();
  await page.keyboard.press('End');
  await expect(high).toHaveAttribute('data-value', '1.000');
  expect(Math.abs((await lineX(high)) - onAxis(1))).toBeLessThan(1.5);

  // in between, the value the slider shows is the value under its line
  for (const presses of [3, 5, 8]) {
    await belowSlider.focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < presses; i++) await page.keyboard.press('PageUp');
    const shown = Number(await page.getByTestId('below-value').textContent());
    expect(shown).toBeGreaterThan(0);
    await expect(low).toHaveAttribute('data-value', shown.toFixed(3));
    expect(Math.abs((await lineX(low)) - onAxis(shown))).toBeLessThan(1.5);
  }

  // one step of a slider moves its line, by one step of the axis
  await aboveSlider.focus();
  const before = await lineX(high);
  const valueBefore = Number(await page.getByTestId('above-value').textContent());
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('above-value')).not.toHaveText(valueBefore.toFixed(3));
  const valueAfter = Number(await page.getByTestId('above-value').textContent());
  const after = await lineX(high);
  expect(after).toBeLessThan(before);
  expect(Math.abs(before - after - (onAxis(valueBefore) - onAxis(valueAfter)))).toBeLessThan(0.5);
  await page.locator('#what-if').screenshot({ path: 'test-results/screenshots/evaluation-explorer.png' });
});

/*
 * The reader measured with recorded judgements (`npm run reader:replay`): the agent under test reads the committed
 * docs/experiments/adjudicator-replay/summary.json beside docs/evaluation.json and pools it per group; the page shows
 * it under the record. A group's figure here is summed from the committed file, independently of the agent.
 */
const SUMMARY = path.resolve(typeof __dirname === 'string' ? __dirname : process.cwd(), '../../../docs/experiments/adjudicator-replay/summary.json');

test('the replayed reader: a row per group with the committed summary’s figures, each reader rate met or missed', async ({ page }) => {
  const summary = JSON.parse(readFileSync(SUMMARY, 'utf8')) as {
    command: string;
    notRemeasuredSince?: string;
    groups: { name: string; corpora: string[] }[];
    corpora: {
      group: string;
      answerable: number;
      unanswerable: number;
      offline: { steps: { procedureAnswers: number; kept: number } };
      reader: {
        steps: { procedureAnswers: number; kept: number };
        falseAnswers: number;
        falseRefusals: number;
        answersRead: { answerable: number; unanswerable: number; answerableWithheld: number; unanswerableWithheld: number };
        answersMoved: { answerable: number; unanswerable: number };
        answeredDeeper: { answerable: number; unanswerable: number };
        refusalsRead: { answerable: number; unanswerable: number; answerableLetThrough: number; unanswerableLetThrough: number };
        calls: number;
      };
    }[];
  };
  await page.goto('/evaluation');
  const section = page.getByTestId('replayed-reader');
  await expect(section.getByRole('heading', { name: 'With a reader in the ambiguous band (recorded judgements)' })).toBeVisible();
  await expect(section).toContainText('ADJUDICATOR=model');
  await expect(section).toContainText(summary.command);
  // A replay printed before a later change to the offline model says so beside its figures.
  if (summary.notRemeasuredSince) await expect(section.getByTestId('replayed-reader-stale')).toContainText(summary.notRemeasuredSince);
  else await expect(section.getByTestId('replayed-reader-stale')).toHaveCount(0);
  // the record's paragraph points at it instead of saying no model is measured
  await expect(page.getByTestId('adjudicated')).not.toContainText('not measured here');
  await expect(page.getByTestId('adjudicated').getByRole('link', { name: /reader in the ambiguous band/ })).toHaveAttribute('href', '#replayed-reader');

  await expect(section.locator('tbody tr')).toHaveCount(summary.groups.length);
  for (const g of summary.groups) {
    const cs = summary.corpora.filter((c) => c.group === g.name);
    const sum = (f: (c: (typeof cs)[number]) => number) => cs.reduce((a, c) => a + f(c), 0);
    const row = section.locator(`tr[data-group="${g.name}"]`);
    await expect(row).toContainText(g.corpora.join(', '));
    await expect(row.locator('td[data-rate="falseAnswerRate"]')).toContainText(
      new RegExp(`^${sum((c) => c.reader.falseAnswers)} of ${sum((c) => c.unanswerable)} \\(\\d+\\.\\d%\\) — (met|missed)$`),
    );
    await expect(row.locator('td[data-rate="falseRefusalRate"]')).toContainText(
      new RegExp(`^${sum((c) => c.reader.falseRefusals)} of ${sum((c) => c.answerable)} \\(\\d+\\.\\d%\\) — (met|missed)$`),
    );
    await expect(row.locator('td[data-rate="deferralRate"]')).toContainText(/^\d+\.\d% — (met|missed)$/);
    // S-096: the answers the reader read before they were given, and how many it withheld.
    const read = sum((c) => c.reader.answersRead.answerable + c.reader.answersRead.unanswerable);
    const withheld = sum((c) => c.reader.answersRead.answerableWithheld + c.reader.answersRead.unanswerableWithheld);
    await expect(row.locator('td[data-figure="answers-read"]')).toHaveText(`${withheld} of ${read} withheld`);
    // S-098 and S-097: answers given from another passage the reader named; questions answered from the next six.
    await expect(row.locator('td[data-figure="answers-moved"]')).toHaveText(
      `${sum((c) => c.reader.answersMoved.answerable + c.reader.answersMoved.unanswerable)}`,
    );
    await expect(row.locator('td[data-figure="answered-deeper"]')).toHaveText(
      `${sum((c) => c.reader.answeredDeeper.answerable + c.reader.answeredDeeper.unanswerable)}`,
    );
    // S-100: the refusals below the lower line it read before they were given, and how many it let through.
    const refusals = sum((c) => c.reader.refusalsRead.answerable + c.reader.refusalsRead.unanswerable);
    const letThrough = sum((c) => c.reader.refusalsRead.answerableLetThrough + c.reader.refusalsRead.unanswerableLetThrough);
    await expect(row.locator('td[data-figure="refusals-read"]')).toHaveText(`${letThrough} of ${refusals} let through`);
    // What the reader cost: the prompts it was sent, per question of the group.
    const calls = sum((c) => c.reader.calls);
    const questions = sum((c) => c.answerable + c.unanswerable);
    await expect(row.locator('td[data-figure="calls"]')).toHaveText(`${calls} (${(calls / questions).toFixed(2)} per question)`);
    // Procedure answers that keep every step of their labelled section, with the reader and (in brackets) offline.
    await expect(row.locator('td[data-figure="steps"]')).toHaveText(
      `${sum((c) => c.reader.steps.kept)} of ${sum((c) => c.reader.steps.procedureAnswers)} (${sum((c) => c.offline.steps.kept)} of ${sum((c) => c.offline.steps.procedureAnswers)})`,
    );
  }
  await section.screenshot({ path: 'test-results/screenshots/evaluation-replayed-reader.png' });
});

const RECORD = path.resolve(typeof __dirname === 'string' ? __dirname : process.cwd(), '../../../docs/evaluation.json');

/** S-177: the record's questions typed with one slip of the keys each, held out as the headline, beside the clean figures. */
test('the record’s typed figure: what one slip of the keys costs, beside the clean one', async ({ page }) => {
  const record = JSON.parse(readFileSync(RECORD, 'utf8')) as { falseRefusalRate: number; typed?: { n: number; falseRefusalRate: number; seed: number } };
  await page.goto('/evaluation');
  const typed = page.getByTestId('typed');
  if (!record.typed) {
    await expect(typed).toHaveCount(0);
    return;
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  await expect(typed).toContainText(`the same ${record.typed.n} questions with one slip of the keys each`);
  await expect(typed).toContainText(`--seed ${record.typed.seed}`);
  await expect(typed).toContainText(`false refusals ${pct(record.typed.falseRefusalRate)} (clean ${pct(record.falseRefusalRate)})`);
});

/** S-180: what asking a typed refusal again with the question it offers does, as the record counted it. */
test('the record’s typed refusals asked again with the question they offer', async ({ page }) => {
  const record = JSON.parse(readFileSync(RECORD, 'utf8')) as {
    typed?: { askedAgain?: { offered: number; answered: number; answerable: number; falseAnswers: number; unanswerable: number } };
  };
  await page.goto('/evaluation');
  const again = page.getByTestId('asked-again');
  const a = record.typed?.askedAgain;
  if (!a) {
    await expect(again).toHaveCount(0);
    return;
  }
  await expect(again).toContainText(`${a.offered} typed refusals did`);
  await expect(again).toContainText(`${a.answered} of the ${a.answerable} answerable were answered`);
  await expect(again).toContainText(`${a.falseAnswers} of the ${a.unanswerable} unanswerable`);
});

/*
 * S-186 on the page: of the record's answers, those that do not answer. The agent under test counts the committed
 * docs/experiments/source-audit/judgements.jsonl against docs/evaluation.json (RECORD, above); here the same counts are made from the two
 * files independently of packages/eval, so a page that drifted from the README's sentence would show it.
 */
const JUDGEMENTS = path.resolve(typeof __dirname === 'string' ? __dirname : process.cwd(), '../../../docs/experiments/source-audit/judgements.jsonl');

test('the source audit: of the answers given, how many do not answer the question asked', async ({ page }) => {
  type Row = { id: string; corpus: string; label: string; verdict: string; source: string | null; cited: string[] | null };
  type Judgement = { id: string; corpus: string; cited: string[]; citedAnswers: string; labelledAnswers: string };
  const rows = (JSON.parse(readFileSync(RECORD, 'utf8')) as { questions: Row[] }).questions;
  const judgements = readFileSync(JUDGEMENTS, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Judgement);
  const given = rows.filter((r) => r.verdict === 'answered' || r.verdict === 'partial');
  const falseAnswers = given.filter((r) => r.label === 'unanswerable').length;
  const wrong = rows.filter((r) => r.source === 'wrong' && r.cited?.length);
  const same = (a: string[], b: string[]) => [...a].sort().join('\n') === [...b].sort().join('\n');
  const judged = wrong.flatMap((r) => judgements.filter((j) => j.corpus === r.corpus && j.id === r.id && same(j.cited, r.cited!)));
  const citedNo = judged.filter((j) => j.citedAnswers === 'no').length;
  expect(judged.length).toBeGreaterThan(0);

  await page.goto('/evaluation');
  const audit = page.getByTestId('source-audit');
  await expect(audit).toContainText(`Of the ${given.length} answers given, ${falseAnswers + citedNo} (`);
  await expect(audit).toContainText(`${falseAnswers} false answers to unanswerable questions, and ${citedNo} answers to answerable ones`);
  await expect(audit).toContainText(`The reader judged ${judged.length} of the ${wrong.length} wrong-source answers`);
  await expect(audit).toContainText(`the labelled one, the control, in ${judged.filter((j) => j.labelledAnswers === 'yes').length}`);
});

// S-190 on the page: how many wrong-source answers named the labelled passage beside them, as the record counts it.
test('the wrong-source answers that named the labelled passage beside them', async ({ page }) => {
  const record = JSON.parse(readFileSync(RECORD, 'utf8')) as { wrongSourceAnswers: number; wrongSourceNamingLabelled: number };
  expect(record.wrongSourceAnswers).toBeGreaterThan(0);
  await page.goto('/evaluation');
  await expect(page.getByTestId('beside-naming')).toHaveText(
    `(${record.wrongSourceNamingLabelled} of them named it among the passages shown beside the answer)`,
  );
});
