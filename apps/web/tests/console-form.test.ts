import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ConsoleForm } from '../app/_console/console-form';

/** The console as the server renders it: what it suggests asking is about the library the agent reads (S-149, S-158). */
const render = (presets: boolean) =>
  renderToStaticMarkup(createElement(ConsoleForm, { providers: [], initialQuestion: '', initialWorkload: 'triage', presets }));

describe('the console on the bundled library and on a team’s own', () => {
  it('suggests Larkspur’s alert only where the agent reads Larkspur', () => {
    expect(render(true)).toMatch(/placeholder="e\.g\. Checkout is timing out and OrdersDbPoolSaturated is firing/);
    const own = render(false);
    expect(own).not.toMatch(/OrdersDbPoolSaturated|orders-db|events-bus|Checkout/);
    expect(own).toMatch(/placeholder="e\.g\. Name the alert that is firing, or the symptom you see/);
  });
});
