import { expect, type Page, test } from '@playwright/test';

/*
 * Issue 13, website item 5: a fault's signals are phrases ("committed offset is
 * flat while the log end offset keeps growing"), set as unbreakable code chips,
 * so they ran out of their card. Measured: every element of every card lies
 * within the card, on a desktop and on a phone.
 */

/** Elements of a fault card whose box reaches outside the card's, with how far. */
async function overflowing(page: Page) {
  return page.locator('#faults .fault').evaluateAll((cards) =>
    cards.flatMap((card) => {
      const c = card.getBoundingClientRect();
      return [...card.querySelectorAll('*')]
        .map((el) => ({ el, r: el.getBoundingClientRect() }))
        .filter(({ r }) => r.width > 0 && (r.right > c.right + 0.5 || r.left < c.left - 0.5))
        .map(({ el, r }) => ({ card: card.id, text: (el.textContent ?? '').slice(0, 60), past: Math.round(Math.max(r.right - c.right, c.left - r.left)) }));
    }),
  );
}

for (const viewport of [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
]) {
  test(`fault chips stay inside their cards (${viewport.name})`, async ({ page }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.goto('/data#faults');
    const cards = page.locator('#faults .fault');
    expect(await cards.count()).toBeGreaterThan(3);
    expect(await overflowing(page)).toEqual([]);
    // and no card is wider than the page it is on
    const widest = await cards.evaluateAll((els) => Math.max(...els.map((e) => e.getBoundingClientRect().right)));
    expect(widest).toBeLessThanOrEqual(viewport.width);
    await page.locator('#faults').screenshot({ path: `test-results/screenshots/data-faults-${viewport.name}.png` });
  });
}
