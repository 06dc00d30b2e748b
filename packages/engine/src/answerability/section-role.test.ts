import { describe, expect, it } from 'vitest';
import { questionIntent } from './question-intent.ts';
import { isPlaceholder, isReferral, rolesOf, sectionsOfPassage } from './section-role.ts';

describe('what a section is for, read from its heading', () => {
  it('names the roles runbooks use, and never offers a postmortem record as a remedy', () => {
    expect(rolesOf('Mitigation')).toEqual(['procedure']);
    expect(rolesOf('How to investigate')).toEqual(['diagnosis']);
    expect(rolesOf('Potential resolution steps')).toEqual(['procedure']);
    expect(rolesOf('User impact')).toContain('impact');
    expect(rolesOf('Action items')).toEqual(['postmortem']);
    expect(rolesOf('Timeline')).toEqual(['postmortem']);
    // S-155: alert guides written Symptom / Cause / Remedy; "Remedy" was no role, so its steps were never quoted.
    expect(rolesOf('Remedy')).toEqual(['procedure']);
    expect(rolesOf('Common causes and remedies')).toEqual(['procedure', 'cause']);
  });

  it('sees an empty, placeholder or link-only section, but not a container over written sub-sections', () => {
    // "TBC" is "to be confirmed", said the way a runbook's author writes it (S-162).
    for (const body of ['', 'To be added.', 'TODO', '- TBD', 'TBC', 'See [the dashboard](https://example.com/d).', '<!-- later -->'])
      expect(isPlaceholder(body), body).toBe(true);
    expect(isPlaceholder('Scale the deployment down to 4 replicas.')).toBe(false);
    // A picture or a player says nothing in words (S-042); a sentence beside one does.
    for (const body of ['![Quick reference decision tree](../img/tree.png)', '<iframe width="560" src="https://example.com/v"></iframe>', '<img src="a.png">'])
      expect(isPlaceholder(body), body).toBe(true);
    expect(isPlaceholder('![tree](tree.png)\n\nPost the first update within 15 minutes.')).toBe(false);
    const container = sectionsOfPassage('Alerts', '### DiskFull\n\nFree space by deleting old snapshots.', 2);
    expect(container[0]!.placeholder).toBe(false);
    const sibling = sectionsOfPassage('Mitigation', '## Escalation\n\nPage the database on-call.', 2);
    expect(sibling[0]!.placeholder).toBe(true);
    expect(sibling[1]).toMatchObject({ heading: 'Escalation', placeholder: false });
  });

  it('sees a section of site markup alone as a placeholder, but not a fenced template or a sentence beside the markup (S-119)', () => {
    for (const body of [
      '{% include_cached common/upgrade/patch-rollback-self-hosted.md %}',
      '{{< docs/shared lookup="alerts.md" source="mimir" >}}',
      '{% tabs %}\n{% tab title="fluent-bit.yaml" %}\n{% endtab %}\n{% endtabs %}',
      '{{% readfile\n  file="rollback.md" %}}',
    ])
      expect(isPlaceholder(body), body).toBe(true);
    expect(isPlaceholder('{% include_cached common/upgrade/patch-rollback.md %}\n\nRoll back before you finalize.')).toBe(false);
    expect(isPlaceholder('```jinja\n{% for host in groups.etcd %}{{ host }}{% endfor %}\n```')).toBe(false);
  });

  it('finds a fence after many blank lines, reading each line once (S-211)', () => {
    // The fence test read every blank line after each line's start: 80,000 of them took 4 s to index. Time is the only
    // measure of that; here the fence is found, or not, at once, with the answers a short body gives.
    const blank = '\n'.repeat(200_000);
    expect(isPlaceholder(`${blank} \t \`\`\`jinja\n{% for host in groups.etcd %}{{ host }}{% endfor %}\n\`\`\``)).toBe(false);
    expect(isPlaceholder(`${blank}{% include_cached common/upgrade/patch-rollback-self-hosted.md %}${blank}`)).toBe(true);
    expect(isPlaceholder(`${' \r\n'.repeat(100_000)}~~~\n{{ host }}\n~~~`)).toBe(false);
  });

  // S-214: the link, embed, comment and link-target patterns read to the end of the text from every unclosed `[`, `[a](`,
  // `<img `, `<!--` or `](`: on the old code these bodies took 14 to 76 s each (a busy 2-core machine). Time is the only
  // measure of that, so the bound is generous, a second for each where the scanners take milliseconds; the answers are
  // those a short body of the kind gets.
  for (const [what, body, shape, referral] of [
    ['40,000 unclosed `[`', '['.repeat(40_000), { placeholder: false, words: 0, linkShare: 0 }, false],
    ['40,000 links without a target’s `)`', '[a]('.repeat(40_000), { placeholder: false, words: 40_000, linkShare: 0 }, false],
    ['40,000 unclosed `<img `', '<img '.repeat(40_000), { placeholder: false, words: 40_000, linkShare: 0 }, false],
    ['40,000 unclosed `<!--`', '<!--'.repeat(40_000), { placeholder: false, words: 0, linkShare: 0 }, false],
    ['a referral and 40,000 unclosed `](`', `See [a](b) ${'](c'.repeat(40_000)}`, { placeholder: false, words: 40_001, linkShare: 6 / 120_011 }, true],
  ] as const) {
    it(`reads a runbook of ${what} in time in proportion to its length (S-214)`, () => {
      const started = performance.now();
      const [section] = sectionsOfPassage('Steps', body);
      const referred = isReferral(body);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(section).toMatchObject(shape);
      expect(referred).toBe(referral);
    });
  }

  // S-214: the link-only pattern tried every way to split each separator's spaces, and to end each URL in its run,
  // before it failed at the word: on the old code these lines took 2.1 and 8.9 s, each link more about twice as long.
  // Time is the only measure of that, so the bound is generous, a second where the reading takes under a millisecond.
  for (const [what, line, placeholder] of [
    ['25 links a space apart and a word', `${'[a](b) '.repeat(25)}x`, false],
    ['26 URLs run together and a word', `${'http://a'.repeat(26)} x`, false],
  ] as const) {
    it(`reads a line of ${what} once, not once for each way to split it (S-214)`, () => {
      const started = performance.now();
      expect(isPlaceholder(line)).toBe(placeholder);
      expect(performance.now() - started).toBeLessThan(1000);
    });
  }

  it('sees a body that only points elsewhere, and not one that says something beside its link (S-043)', () => {
    for (const body of [
      'See the [PagerDuty documentation](https://support.example.com/docs/edit-schedules) if you need to make a rota swap.',
      '- `Trade Tariff Backend`, see [Trade Tariff Admin on the Wiki](https://wiki.example.com/pages/1/Trade+Tariff+Admin).',
      'Follow the instructions at https://docs.example.com/rotate-keys.',
    ])
      expect(isReferral(body), body).toBe(true);
    for (const body of [
      'Scale the deployment down to 4 replicas.',
      'Scale down to 4 replicas; see [scaling](https://example.com/scale) for why.\n\nThen restart the pooler.',
      '- [Runbook A](https://example.com/a)\n- [Runbook B](https://example.com/b)',
      'Open https://grafana.example.com/d/abc and look at p99 latency.',
    ])
      expect(isReferral(body), body).toBe(false);
    expect(sectionsOfPassage('Creating an override', 'See the [docs](https://example.com/o) to swap a rota.', 2)[0]).toMatchObject({
      placeholder: false,
      referral: true,
    });
  });

  it("takes a document's lead section as what the document is about", () => {
    expect(sectionsOfPassage('OrdersDbPoolSaturated', 'Fires when the pool is 90% used.', 1, true)[0]!.roles).toContain('meaning');
    expect(sectionsOfPassage('OrdersDbPoolSaturated', 'Fires when the pool is 90% used.', 1, false)[0]!.roles).not.toContain('meaning');
  });
});

describe('what a question asks for', () => {
  it('reads intent from the shape of the question, however it is typed', () => {
    expect(questionIntent('how do i move an existing cluster into a different namespace?').intent).toBe('procedure');
    expect(questionIntent('RouterErrorRatioTooHigh firing, what should i do').intent).toBe('procedure');
    expect(questionIntent('how do I check which client holds the connections?').intent).toBe('diagnosis');
    expect(questionIntent('what is the connection pool ceiling for orders-db?').intent).toBe('value');
    expect(questionIntent('whats the default startDelay for the startup probe').intent).toBe('value');
    // S-155: a question that asks what to do asks for the steps, though it names a quantity (its symptom).
    const nowWhat = questionIntent('resized the registry pvc but capacity didnt change, now what');
    expect(nowWhat).toMatchObject({ intent: 'procedure', demanded: 'quantity' });
  });

  it('finds the remedy or cause of a yes/no question, also after the symptom it is about (S-027)', () => {
    expect(questionIntent('would restarting the load balancer help with OrdersDbPoolSaturated?')).toMatchObject({
      intent: 'yes-no',
      proposition: ['restart', 'load', 'balanc'],
    });
    expect(questionIntent('es cluster health red, should i just restart the elasticsearch nodes')).toMatchObject({
      intent: 'yes-no',
      proposition: ['restart', 'elasticsearch', 'node'],
    });
    expect(questionIntent('initdb Bus error exit code 135 - could our storage class be the culprit?').intent).toBe('yes-no');
  });
});
