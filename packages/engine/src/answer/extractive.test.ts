import { describe, expect, it } from 'vitest';
import { buildDraftPrompt, parseDraftPrompt } from '../models/prompt.ts';
import { checkDraft } from '../orchestrator/citation-check.ts';
import type { Chunk } from '../types.ts';
import { chunkDocument } from '../corpus/chunker.ts';
import { draftExtractive } from './extractive.ts';

const passage: Chunk = {
  id: 'runbook#confirm',
  doc: 'runbook.md',
  docTitle: 'Runbook',
  heading: 'Confirm the pool is saturated',
  text: 'The pool ceiling is 100 connections. Check pool wait time on the client dashboards. Saturation means every connection is busy.',
};

const chunk = (id: string, heading: string, text: string, extra: Partial<Chunk> = {}): Chunk => ({
  id,
  doc: `${id.split('#')[0]}.md`,
  docTitle: heading,
  heading,
  level: 2,
  text,
  ...extra,
});

const texts = (claims: readonly { text: string }[]) => claims.map((c) => c.text);

const SEVEN_STEPS = [
  'Page the database on-call in #orders-incident.',
  'Open the orders-db pool dashboard and note which client holds the most connections.',
  'Scale the checkout-api deployment down to 4 replicas to shed connection load.',
  'Terminate idle-in-transaction sessions older than ten minutes.',
  'Pause the export-worker cron so it stops opening new sessions.',
  'Watch pool wait time for five minutes; it should fall below 250 ms.',
  'Scale checkout-api back to 12 replicas once the pool is below 70%.',
];

const mitigation = chunk(
  'runbook-orders-db-pool#mitigation',
  'Mitigation',
  `Work through these in order.\n\n${SEVEN_STEPS.map((s, i) => `${i + 1}. ${s}`).join('\n')}`,
);

const PIPELINE = `kubectl -n orders get pods --field-selector=status.phase!=Running -o json | jq -r '.items[] | "\\(.metadata.name) \\(.status.reason)"' | sort -u`;
const CONTINUED = [
  'sandctl pooler set orders-db \\',
  '    --max 150 --reason "INC-2041: pool saturated" \\',
  "    --note 'raised by on-call; revert after 24h'",
];
const INLINE = 'Mark the timeline with `logger -t oncall "Pool drained. Scaling **back** up __now__"` once the pool is clear.';

const commands = chunk(
  'runbook-orders-db-pool#raise-the-pooler-limit',
  'Raise the pooler limit',
  [
    'Find the pods that are not running:',
    '',
    '```bash',
    PIPELINE,
    '```',
    '',
    'Then raise the limit:',
    '',
    '  ```',
    ...CONTINUED.map((l) => `  ${l}`),
    '  ```',
    '',
    INLINE,
  ].join('\n'),
);

describe('extractive answerer', () => {
  it('cites every claim to the passage it was taken from, verbatim', () => {
    const claims = draftExtractive('What is the pool ceiling?', [passage]);
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) {
      expect(c.citations).toEqual(['runbook#confirm']);
      expect(passage.text).toContain(c.text);
    }
    expect(claims[0]!.text).toBe('The pool ceiling is 100 connections.');
  });

  it('drops a claim named in verifier feedback, in the verifier’s own format (D-005)', () => {
    const feedback = [
      'Claim 1 "The pool ceiling is 100 connections.": the number 100 does not stand in the cited passage. Fix it from the passage or drop it.',
    ];
    const claims = draftExtractive('What is the pool ceiling?', [passage], { feedback });
    expect(claims.map((c) => c.text)).not.toContain('The pool ceiling is 100 connections.');
  });
});

describe('a procedure or diagnosis question gets the steps (issue 9, part E)', () => {
  it('gives a numbered list of seven steps whole and in order, each its own claim cited to its passage', () => {
    const other = chunk('architecture#orders-db', 'orders-db', 'orders-db is the Postgres primary behind checkout-api. Its pool ceiling is 100 connections.');
    const claims = draftExtractive('What do I do when the orders-db pool alert fires?', [mitigation, other]);
    expect(texts(claims)).toEqual(['Work through these in order.', ...SEVEN_STEPS]);
    for (const c of claims) expect(c.citations).toEqual([mitigation.id]);
  });

  it('answers a bare symptom, typed without a question, with the steps too (class 6)', () => {
    const claims = draftExtractive('orders-db pool alert firing again, checkout timing out', [mitigation]);
    expect(texts(claims)).toEqual(['Work through these in order.', ...SEVEN_STEPS]);
  });

  it('stops a runaway list at the cap (50 steps), never part-way through the passage order', () => {
    const items = Array.from({ length: 60 }, (_, i) => `Drain node ${i + 1} and wait for its pods to reschedule.`);
    const runaway = chunk('runbook-nodes#drain', 'Drain every node', items.map((s) => `- ${s}`).join('\n'));
    const claims = draftExtractive('how do I drain the nodes?', [runaway]);
    expect(texts(claims)).toEqual(items.slice(0, 50));
  });

  it('gives a long procedure whole: the cap counts steps, not their sentences and commands (S-047)', () => {
    const steps = Array.from({ length: 20 }, (_, i) => [
      `${i + 1}. Rotate the token on shard ${i + 1}. Wait for it to report healthy.`,
      '   ```',
      `   rotate --shard ${i + 1}`,
      '   ```',
    ]);
    const rotation = chunk('runbook-tokens#rotation', 'Rotate the tokens', steps.flat().join('\n'));
    const claims = texts(draftExtractive('how do I rotate the tokens?', [rotation]));
    expect(claims).toContain('Rotate the token on shard 20.');
    expect(claims).toContain('rotate --shard 20');
    expect(claims.length).toBe(60);
  });

  // S-058: a fenced block's lines each counted as a step, so fifteen steps with a four-line manifest each came to
  // seventy-five "steps" and the procedure was cut after its tenth. A fenced block is one step, whatever its length.
  it('counts a fenced block as one step, however many lines it has (S-058)', () => {
    const steps = Array.from({ length: 15 }, (_, i) => [
      `${i + 1}. Apply the quota for team ${i + 1}:`,
      '   ```yaml',
      '   kind: ResourceQuota',
      `   name: team-${i + 1}`,
      '   hard:',
      '     pods: "50"',
      '   ```',
    ]);
    const quotas = chunk('runbook-quotas#apply', 'Apply the quotas', steps.flat().join('\n'));
    const claims = texts(draftExtractive('how do I apply the quotas?', [quotas]));
    expect(claims).toContain('Apply the quota for team 15:');
    expect(claims).toContain('name: team-15');
    expect(claims.length).toBe(15 * 5);
  });

  it('keeps a fenced command byte for byte (flags, pipes, quotes, continuation lines) and an inline command whole', () => {
    const claims = draftExtractive('how do I get the orders pods running again?', [commands]);
    expect(texts(claims)).toEqual(['Find the pods that are not running:', PIPELINE, 'Then raise the limit:', ...CONTINUED, INLINE]);
    for (const c of claims) expect(commands.text).toContain(c.text);
  });

  it('drafts steps and commands that pass the citation check, after the round trip through the draft prompt', () => {
    for (const [question, passages] of [
      ['What do I do when the orders-db pool alert fires?', [mitigation, commands]],
      ['how do I get the orders pods running again?', [commands, mitigation]],
    ] as const) {
      // The offline model drafts from the passages it parses back out of the prompt, as the orchestrator runs it.
      const parsed = parseDraftPrompt(buildDraftPrompt({ system: 'triage', question, passages }))!;
      const claims = draftExtractive(parsed.question, parsed.passages);
      expect(claims.length).toBeGreaterThanOrEqual(7);
      expect(checkDraft(claims, passages)).toEqual({ ok: true, failures: [] });
    }
  });

  it('takes the sub-section whose heading fits the question when a passage merges several', () => {
    const merged = chunk(
      'runbook-orders-db-pool#escalation',
      'Escalation',
      [
        '- Page the database on-call.',
        '- Tell #checkout-status that checkouts are degraded.',
        '',
        '## Diagnosis',
        '',
        '1. Open the orders-db pool dashboard.',
        '2. Find the client holding the most connections.',
        '',
        '## Mitigation',
        '',
        '1. Scale checkout-api down to 4 replicas.',
        '2. Terminate idle-in-transaction sessions.',
      ].join('\n'),
    );
    expect(texts(draftExtractive('how do I mitigate OrdersDbPoolSaturated?', [merged]))).toEqual([
      'Scale checkout-api down to 4 replicas.',
      'Terminate idle-in-transaction sessions.',
    ]);
    expect(texts(draftExtractive('how do I check whether the orders-db pool is saturated?', [merged]))).toEqual([
      'Open the orders-db pool dashboard.',
      'Find the client holding the most connections.',
    ]);
    expect(texts(draftExtractive('who do I escalate OrdersDbPoolSaturated to, what steps?', [merged]))).toEqual([
      'Page the database on-call.',
      'Tell #checkout-status that checkouts are degraded.',
    ]);
  });

  it('keeps a better-fitting section written as prose beside the list it sits next to, in reading order', () => {
    const merged = chunk(
      'runbook-orders-db-pool#mitigation',
      'Mitigation',
      'Scale checkout-api down to 4 replicas, then terminate idle sessions.\n\n## Escalation\n\n- Page the database on-call.\n- Tell #checkout-status.',
    );
    expect(texts(draftExtractive('how do I mitigate OrdersDbPoolSaturated?', [merged]))).toEqual([
      'Scale checkout-api down to 4 replicas, then terminate idle sessions.',
      'Page the database on-call.',
      'Tell #checkout-status.',
    ]);
  });

  it('never offers a postmortem’s action items or timeline lines for "what do I do"', () => {
    const actions = chunk(
      'postmortem-2024-03-14-orders-db#action-items',
      'Action items',
      '1. Add a circuit breaker to checkout-api so retries back off.\n2. Review the pool alert threshold with the database team.',
      { docTitle: 'Postmortem: orders-db pool saturation, 2024-03-14' },
    );
    const happened = chunk(
      'incident-notes#what-happened',
      'What happened',
      '- 14:02 OrdersDbPoolSaturated fired and paged the on-call engineer.\n- 2024-03-14 14:20 UTC — the on-call engineer restarted the pooler.\n- Scale checkout-api down to 4 replicas when the pool saturates.',
    );
    const runbook = chunk(
      'runbook-orders-db-pool#mitigation',
      'Mitigation',
      'When the pool saturates, scale checkout-api down to 4 replicas and terminate idle sessions.',
    );
    const claims = draftExtractive('What do I do when the orders-db pool saturates?', [actions, happened, runbook]);
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) {
      expect(c.citations).not.toEqual([actions.id]);
      expect(c.text).not.toMatch(/^(?:2024-03-14 )?14:\d\d/);
    }
    expect(texts(claims)).toContain('When the pool saturates, scale checkout-api down to 4 replicas and terminate idle sessions.');
    // The same list under a merged "## Action items" heading of a postmortem passage: not offered either.
    const rootCause = chunk(
      'postmortem-2024-03-14-orders-db#root-cause',
      'Root cause',
      'A retry storm from checkout-api saturated the pool.\n\n## Action items\n\n- Add a circuit breaker to checkout-api so the pool is not saturated by retries.\n- Review the pool alert threshold.',
    );
    const merged = draftExtractive('What do I do when the orders-db pool saturates?', [rootCause, runbook]);
    expect(texts(merged).filter((t) => /circuit breaker|alert threshold/.test(t))).toEqual([]);
    expect(texts(merged)).toContain('When the pool saturates, scale checkout-api down to 4 replicas and terminate idle sessions.');
  });

  it('still answers a question about the postmortem itself from its record', () => {
    const actions = chunk(
      'postmortem-2024-03-14-orders-db#action-items',
      'Action items',
      '1. Add a circuit breaker to checkout-api.\n2. Review the pool alert threshold.',
    );
    expect(texts(draftExtractive('I own the orders-db postmortem, what steps do I follow up on?', [actions]))).toEqual([
      'Add a circuit breaker to checkout-api.',
      'Review the pool alert threshold.',
    ]);
  });

  it('does not repeat a rejected step or half a rejected command, and keeps the rest in order', () => {
    const feedback = [`Claim 4 "${SEVEN_STEPS[2]}": it states 4, which runbook-orders-db-pool#mitigation does not state. Fix it from the passage or drop it.`];
    expect(texts(draftExtractive('What do I do when the orders-db pool alert fires?', [mitigation], { feedback }))).toEqual([
      'Work through these in order.',
      ...SEVEN_STEPS.filter((_, i) => i !== 2),
    ]);
    const rejectLine = [`Claim 5 "${CONTINUED[1]}": it names inc-2041, which the passage never mentions.`];
    expect(texts(draftExtractive('how do I get the orders pods running again?', [commands], { feedback: rejectLine }))).toEqual([
      'Find the pods that are not running:',
      PIPELINE,
      'Then raise the limit:',
      INLINE,
    ]);
  });
});

describe('a value question, and everything else', () => {
  const backups = chunk(
    'architecture#backups',
    'Backups',
    'Backups of orders-db run nightly from the replica. Backups are kept for 35 days in cold storage. Restores are rehearsed every quarter.',
  );

  it('puts the sentence stating the value first, then the sentences around it in reading order', () => {
    expect(texts(draftExtractive('How long are orders-db backups kept?', [backups]))).toEqual([
      'Backups are kept for 35 days in cold storage.',
      'Backups of orders-db run nightly from the replica.',
    ]);
  });

  it('answers any other question as before: at most three sentences by term overlap, in reading order, never the whole list', () => {
    const claims = draftExtractive('Which replicas and sessions does checkout-api use?', [mitigation]);
    expect(texts(claims)).toEqual([SEVEN_STEPS[2], SEVEN_STEPS[3], SEVEN_STEPS[6]]);
  });
});

// S-057: an answer drafted by overlap ended on "If the API user is:" — the sentence that introduces a list, without
// the list. A sentence that introduces a list brings the list, whole and in order, cited to its passage.
describe('a sentence that introduces a list', () => {
  const rotation = chunk(
    'signon-token#special-cases',
    'Special cases',
    [
      'If the token is for the permission updater, it rotates automatically and the alert can be ignored.',
      '',
      'If the API user is:',
      '',
      '- a human, ask them to rotate the token themselves.',
      '- an app outside the estate, contact its owner before the token expires.',
      '- `billing-api`, run `tokenctl rotate billing-api` and redeploy it.',
      '',
      'Tokens expire after 90 days.',
    ].join('\n'),
  );

  it('is followed by the whole list it introduces, not left dangling', () => {
    const claims = draftExtractive('token expiry alert for an api user, do i need to rotate it?', [rotation]);
    const t = texts(claims);
    const at = t.indexOf('If the API user is:');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(t.slice(at + 1, at + 4)).toEqual([
      'a human, ask them to rotate the token themselves.',
      'an app outside the estate, contact its owner before the token expires.',
      '`billing-api`, run `tokenctl rotate billing-api` and redeploy it.',
    ]);
    expect(claims.every((c) => c.citations[0] === 'signon-token#special-cases')).toBe(true);
    expect(checkDraft(claims, [rotation]).ok).toBe(true);
  });

  it('a sentence ending in a colon with no list after it stays as it is', () => {
    const plain = chunk('notes#n', 'Notes', 'Rotate the api token before it expires: the alert fires at 7 days.\n\nTokens expire after 90 days.');
    expect(texts(draftExtractive('when does the api token alert fire?', [plain]))).toContain(
      'Rotate the api token before it expires: the alert fires at 7 days.',
    );
  });
});

describe('site markup and pointers are not claims (S-115)', () => {
  it('never drafts a sentence of site markup alone, in steps or by overlap', () => {
    const shared = chunk(
      'query#troubleshoot',
      'Troubleshoot log queries',
      '[//]: # \'Shared content for query error messages and troubleshooting\'\n\n{{< docs/shared lookup="troubleshoot-query.md" source="loki" >}}\n\nQuery errors usually mean the querier timed out.',
    );
    const drafted = draftExtractive('troubleshoot log queries shared content for query error messages', [shared]);
    expect(texts(drafted).join(' ')).not.toMatch(/\[\/\/\]|\{\{</);
    expect(texts(drafted)).toContain('Query errors usually mean the querier timed out.');

    const steps = chunk(
      'ops#steps',
      'Steps',
      '{{< admonition type="note" >}}\n\n1. Drain the node.\n2. {{< /admonition >}}\n3. Restart the ingester.\n\n```\n{{< raw >}} kubectl rollout restart sts/ingester\n```',
    );
    const procedure = texts(draftExtractive('how do I restart the ingester?', [steps]));
    expect(procedure).toEqual(['Drain the node.', 'Restart the ingester.', '{{< raw >}} kubectl rollout restart sts/ingester']);
  });

  it('answers with what the passage says, not where it points, when nothing shares the question’s words', () => {
    const alert = chunk(
      'runbook#tenant-index',
      'TempoTenantIndexTooOld',
      'See [Polling Issues](#polling-issues) below for general information.\n\nReview the backend scheduler and worker logs for errors building the tenant index.',
    );
    expect(texts(draftExtractive('TempoTenantIndexTooOld what does it mean', [alert]))).toEqual([
      'Review the backend scheduler and worker logs for errors building the tenant index.',
    ]);
    // Only a pointer: that is still better than nothing.
    const only = chunk('runbook#other', 'Other', 'See [Polling Issues](#polling-issues) below.');
    expect(texts(draftExtractive('xyzzy what does it mean', [only]))).toEqual(['See [Polling Issues](#polling-issues) below.']);
  });
});

// S-154: a section's heading says what its sentences are about; its body need not repeat the heading's words.
describe('a sentence under a merged sub-heading the question names', () => {
  const runbook = chunk(
    'runbook#paymentsdbdiskfull',
    'PaymentsDbDiskFull',
    'Fires when the payments-db data volume is more than 85% full.\n\n## Escalation\n\nPage the payments-db owners on their rota if the volume passes 95%.',
  );

  it('is drafted for a question its body shares no word with, and the passage’s own heading gives no sentence that credit', () => {
    expect(texts(draftExtractive('who do I escalate PaymentsDbDiskFull to?', [runbook]))).toEqual([
      'Page the payments-db owners on their rota if the volume passes 95%.',
    ]);
  });
});

// S-156: the section the decision answers from, when it holds its remedy in prose, is the answer; and a collapsible
// block's label is no step.
describe('a procedure section written as prose', () => {
  const docTitle = 'Prometheus Istio Server restarting or in crashback loop';
  const remedy = chunk(
    'oom#remedy',
    'Remedy',
    'To prevent the OOM issue, you can increase the memory limit.\n\nFor both solutions, change the cluster settings or update the resources.',
    { docTitle },
  );
  const condition = chunk('oom#condition', 'Condition', 'Prometheus Istio Server is restarting or in a crashback loop.', { docTitle });

  it('is given whole, in order, from the passage answered from — not the symptom that shares more words', () => {
    const claims = draftExtractive('How do I fix Prometheus Istio Server restarting or in crashback loop?', [remedy, condition]);
    expect(texts(claims)).toEqual([
      'To prevent the OOM issue, you can increase the memory limit.',
      'For both solutions, change the cluster settings or update the resources.',
    ]);
    expect(claims.every((c) => c.citations[0] === 'oom#remedy')).toBe(true);
  });

  it('is not taken from a heading that is only the document’s title (S-054)', () => {
    const lead = chunk('runbook#lead', 'Runbook: pool exhaustion', 'Databases exhibit this fault.\n\nQueues do not.');
    const claims = draftExtractive('pool exhaustion, what do I do?', [lead]);
    expect(texts(claims)).not.toEqual(['Databases exhibit this fault.', 'Queues do not.']);
  });

  it('leaves out a tab’s label between the steps', () => {
    const steps = chunk(
      'backup#steps',
      'Steps',
      '1. Install the CSI driver.\n2. Create a volume snapshot with the driver.\n\n<details> <summary label="GKE"> GKE </summary>',
    );
    expect(texts(draftExtractive('what are the steps to back up?', [steps]))).toEqual(['Install the CSI driver.', 'Create a volume snapshot with the driver.']);
  });
});

// S-208 (a colleague's audit): short sections merge into one passage, so one passage held two services' Mitigation and
// "What are the mitigation steps for users-db?" was answered with orders-db's — the first Mitigation in the passage.
describe('a passage holding sections about different subjects', () => {
  const databases = (sections: Record<string, Record<string, string>>) =>
    chunkDocument({
      doc: 'db.md',
      title: 'Databases',
      text: [
        '# Databases',
        ...Object.entries(sections).flatMap(([service, parts]) => [`## ${service}`, ...Object.entries(parts).flatMap(([h, body]) => [`### ${h}`, body])]),
      ].join('\n\n'),
    });
  const steps = (service: string, a: string, b: string, c: string) => `1. ${a} ${service}.\n2. ${b}.\n3. ${c}.`;
  const merged = databases({
    'orders-db': {
      Mitigation: steps('orders-db', 'Restart the connection pooler of', 'Check that connections drop below 400', 'Scale the orders-api deployment down'),
    },
    'users-db': { Mitigation: steps('users-db', 'Fail over to the standby of', 'Confirm the new primary accepts writes', 'Update the status page') },
  });

  it('is one passage here: the case the scope is for', () => {
    expect(merged).toHaveLength(1);
  });

  it('gives the steps of the section under the subject the question names, whichever comes first', () => {
    expect(texts(draftExtractive('What are the mitigation steps for users-db?', merged))).toEqual([
      'Fail over to the standby of users-db.',
      'Confirm the new primary accepts writes.',
      'Update the status page.',
    ]);
    expect(texts(draftExtractive('how do I mitigate orders-db?', merged))).toEqual([
      'Restart the connection pooler of orders-db.',
      'Check that connections drop below 400.',
      'Scale the orders-api deployment down.',
    ]);
  });

  it('gives the prose of that section only, when the sections are written as prose', () => {
    const prose = databases({
      'orders-db': { Mitigation: 'Restart the pooler and wait for connections to drain before scaling down.' },
      'users-db': { Mitigation: 'Fail over to the standby and confirm that writes succeed on the new primary.' },
    });
    expect(prose).toHaveLength(1);
    expect(texts(draftExtractive('how do I mitigate users-db?', prose))).toEqual([
      'Fail over to the standby and confirm that writes succeed on the new primary.',
    ]);
  });

  it('gives the sentences of that section only, for a question answered by overlap', () => {
    const impact = databases({
      'orders-db': { Impact: 'Customers cannot place orders and checkout shows an error page.' },
      'users-db': { Impact: 'Nobody can sign in, and sessions expire without renewal.' },
      'billing-db': { Impact: 'Invoices stop being generated until it recovers.' },
    });
    expect(impact).toHaveLength(1);
    expect(texts(draftExtractive('What is the impact when users-db is down?', impact))).toEqual(['Nobody can sign in, and sessions expire without renewal.']);
  });

  it('keeps every section where the question names no subject one of them has and another lacks', () => {
    expect(texts(draftExtractive('What are the mitigation steps?', merged))).toEqual([
      'Restart the connection pooler of orders-db.',
      'Check that connections drop below 400.',
      'Scale the orders-api deployment down.',
    ]);
  });
});
