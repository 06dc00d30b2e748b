import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/** The CLI boundary, in-process: what a person sees, and the exit code. */
const io = captureOutput();

describe('sandscope ask', () => {
  it('rejects an unknown workload with one line and a non-zero exit, before loading anything', async () => {
    expect(await main(['ask', '--workload', 'deploy', 'Is it safe?'])).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toBe('sandscope: unknown workload "deploy". Choose one of: triage, change, postmortem (default triage).\n');
  });

  it('prints the whole run as JSON: the ask shape plus terminal, workload, risk, action, trace, providers and spend', async () => {
    expect(await main(['ask', '--json', '--workload', 'change', 'Can we raise the report-scheduler job deadline to 60 minutes?'])).toBe(0);
    const r = JSON.parse(io.out) as Record<string, unknown>;
    for (const key of ['verdict', 'band', 'score', 'reasons', 'answer', 'claims', 'sources', 'degraded', 'timingsMs']) expect(r).toHaveProperty(key);
    expect(r).toMatchObject({ workload: 'change', terminal: expect.stringMatching(/^(refuse|escalate|await_approval|emit)$/), parentRunId: null });
    expect(r).toHaveProperty('risk');
    expect(r).toHaveProperty('action');
    expect(r).toHaveProperty('spend.ceilingUsd', 0.02);
    expect(Array.isArray(r['trace'])).toBe(true);
    expect(Array.isArray(r['providers'])).toBe(true);
  });

  it('says ESCALATED once, and never ANSWERED, when every provider fails (issue 13: the verdict and terminal contradicted)', async () => {
    const question = 'What is the connection pool ceiling for orders-db?';
    expect(await main(['ask', '--fail-provider', 'offline', question])).toBe(0);
    const lines = io.out.split('\n');
    expect(lines[0]).toMatch(/^ESCALATED — no answer; a person takes over {2}\[workload triage, run [0-9a-f-]+\]$/);
    expect(io.out).not.toMatch(/ANSWERED|PARTIAL|Sources:/);
    expect(io.out).toContain('the model call failed (all_providers_failed)');

    expect(await main(['ask', '--json', '--fail-provider', 'offline', question])).toBe(0);
    const r = JSON.parse(io.out.slice(io.out.indexOf('{'))) as Record<string, unknown>;
    // The gate's verdict is kept as the gate said it; the outcome is what the run amounts to.
    expect(r).toMatchObject({ outcome: 'escalated', terminal: 'escalate', verdict: 'answered', claims: [], sources: [] });
  });

  // S-180: a refusal that offers a word for a slip (S-179) prints the question again with it, to copy, not retype.
  it('prints the question again with the library’s word beside a refusal that offers one, and never beside an answer', async () => {
    expect(await main(['ask', 'the replica lag alret fired, what do i do'])).toBe(0);
    expect(io.out).toContain(
      '\nAsk again with the library’s word (only the slip changed; if it is what you meant):\n  the replica lag alert fired, what do i do\n',
    );
    const from = io.out.length;
    // The question asked again (another question than the other tests ask: a draft here would be served from the cache there).
    expect(await main(['ask', 'the replica lag alert fired, what do i do'])).toBe(0);
    expect(io.out.slice(from)).toMatch(/^ANSWERED/);
    expect(io.out.slice(from)).not.toContain('Ask again');
    // Answered with a slip left as typed: the slip is kept, and no question is offered again beside an answer.
    const json = io.out.length;
    expect(await main(['ask', '--json', 'What is the connection pool ceiling for orders-db? the alret fired'])).toBe(0);
    const answered = JSON.parse(io.out.slice(json)) as {
      verdict: string;
      askAgain: string[];
      trace: { node: string; kind: string; data: { nearMisses?: unknown } }[];
    };
    expect(answered.verdict).toBe('answered');
    expect(answered.trace.find((e) => e.node === 'assess_evidence' && e.kind === 'end')?.data.nearMisses).toEqual([
      { written: 'alret', at: 55, library: ['alert'] },
    ]);
    expect(answered.askAgain).toEqual([]);
  });

  // S-108: every refusal was headed "the library does not answer this", also where the model is unsure and its reasons
  // say to read the closest passage. The headline claims what the gate knows, and --json says which claim it makes.
  it('heads a refusal by what it claims: never absence on a rating alone (S-222), unsure where the model cannot tell', async () => {
    // The output of this test so far: each call's begins where the last ended.
    const next = async (args: string[]) => {
      const from = io.out.length;
      expect(await main(args)).toBe(0);
      return io.out.slice(from);
    };
    // Rated far below the line, a refusal claimed absence, and on the record that claim was false for one such refusal
    // in eight: now the model rates no passage likely, and says to read the closest. So does a question about words
    // the library never uses at all (claimed absent, false for 3 of the record's 5).
    for (const question of ['Why is zookeeper flapping?', 'How do we rotate DNS records for the storefront?']) {
      const refused = await next(['ask', question]);
      expect(refused.split('\n')[0]).toMatch(/^REFUSED — not answered: the model is unsure whether the library answers this {2}\[/);
      expect(refused).toContain('Not answered: the model rates no passage likely to answer this.');
      expect(refused).not.toMatch(/does not answer this/);
      expect(refused).toContain('Read before concluding the library is silent');
    }
    const unsure = await next(['ask', 'What do I do when OrdersDbPoolSaturated fires?']);
    expect(unsure.split('\n')[0]).toMatch(/^REFUSED — not answered: the model is unsure whether the library answers this {2}\[/);
    expect(unsure).not.toMatch(/does not answer this/);
    // S-152: the passage it says to read is named as a source is, with its file, and never as an answer.
    expect(unsure).toMatch(
      /\nRead before concluding the library is silent \(the closest passages, most likely first; not answers\):\n {2}runbook-connection-pool-exhaustion\.md › [^\n]+ {2}\(runbook-connection-pool-exhaustion#[a-z-]+\)\n( {2}[a-z0-9-]+\.md › [^\n]+ {2}\([a-z0-9-]+#[a-z0-9-]+\)\n){1,2}/,
    );
    expect(unsure).not.toContain('Sources:');
    expect(unsure).not.toContain('Also close to the question');
    // S-190: an answer names the closest passages it does not cite after its sources, never as sources.
    const answered = await next(['ask', 'How do I mitigate connection pool exhaustion?']);
    const sources = answered.slice(answered.indexOf('\nSources:\n'), answered.indexOf('\n\n', answered.indexOf('\nSources:\n') + 1));
    const cited = [...sources.matchAll(/\(([a-z0-9-]+#[a-z0-9-]+)\)/g)].map((m) => m[1]);
    expect(cited.length).toBeGreaterThan(0);
    const besideBlock = /\nAlso close to the question, not cited \(if the answer is not about what you asked, read th(?:ese|is)\):\n((?: {2}[^\n]+\n)+)/.exec(
      answered,
    );
    expect(besideBlock).not.toBeNull();
    const beside = [...besideBlock![1]!.matchAll(/\(([a-z0-9-]+#[a-z0-9-]+)\)/g)].map((m) => m[1]);
    expect(beside.length).toBeGreaterThan(0);
    for (const id of beside) expect(cited).not.toContain(id);
    const json = await next(['ask', '--json', 'What do I do when OrdersDbPoolSaturated fires?']);
    expect(JSON.parse(json.slice(json.indexOf('{')))).toMatchObject({ outcome: 'refused', refusal: 'unsure' });
    // A database the estate does not have, named like the two it has, is not given orders-db's ceiling (S-121).
    const sibling = await next(['ask', '--json', 'What is the connection pool ceiling for payments-db?']);
    expect(JSON.parse(sibling.slice(sibling.indexOf('{')))).toMatchObject({ outcome: 'refused' });
    // A refusal names the check its best passage fails, not "the best passage fails a check" (S-133).
    const checked = await next(['ask', '-w', 'change', 'Who approves an emergency rollback during a SEV1?']);
    expect(checked).toMatch(/against it: [^)]*it never names sev1/);
    expect(checked).not.toMatch(/fails a check/);
    // A rule the policy states for tier 1 services answers for payments-api, a tier 1 service of the estate (S-134).
    const tiered = JSON.parse(
      (await next(['ask', '--json', '-w', 'change', 'How many approvals does a normal change to payments-api need?'])).replace(/^[^{]*/, ''),
    );
    expect(tiered).toMatchObject({ outcome: 'answered' });
    expect(tiered.answer).toMatch(/needs 2 approvals/);
    // The field to read first is printed first, as the README shows it.
    expect(Object.keys(JSON.parse(json.slice(json.indexOf('{'))))[0]).toBe('outcome');
    // A claim from a section merged into the policy's lead cites that section's heading, not the title (S-142).
    expect(await next(['ask', 'What is a standard change?'])).toContain(
      '[1] policy-change-management.md › Standard, normal and emergency changes  (policy-change-management#change-management-policy)',
    );
  });

  it('heads a gated change with the stop alone: the held answer is not announced as answered', async () => {
    expect(await main(['ask', '--workload', 'change', 'Can we raise the orders-db connection pool ceiling during an incident?'])).toBe(0);
    expect(io.out.split('\n')[0]).toMatch(/^STOPPED FOR APPROVAL — nothing happens until a person approves {2}\[workload change, run /);
    // Its run id names no stored run: the CLI says where a change can be approved (S-137).
    expect(io.err).toMatch(/`ask` records nothing, so this run cannot be approved[^\n]*POST \/v1\/runs\/RUN_ID\/approve/);
    expect(io.out).not.toMatch(/^ANSWERED/m);

    // The proposed action is stated once and cites the Sources list by number, never by chunk id or by repeating a claim.
    const action = io.out.slice(io.out.indexOf('Proposed action'), io.out.indexOf('\nRisk '));
    const answer = io.out.slice(0, io.out.indexOf('\nSources:'));
    expect(action).toMatch(/\d+ points?, cited (\[\d+\])+/);
    expect(action).not.toMatch(/\[[a-z0-9-]+#[a-z0-9-]+\]/);
    const firstClaim = answer
      .split('\n')
      .find((l) => / \[1\]/.test(l))!
      .split(' [1]')[0]!;
    expect(action).not.toContain(firstClaim.slice(0, 40));
    for (const n of action.match(/\[(\d+)\]/g)!) expect(io.out).toContain(`  ${n} `);
  });

  it('--trace prints the nodes visited, the provider of each call, tokens and cost', async () => {
    expect(await main(['ask', '--trace', 'What is the connection pool ceiling for orders-db?'])).toBe(0);
    expect(io.out).toMatch(/Trace \(run [0-9a-f-]+\):/);
    expect(io.out).toMatch(/classify .* workload triage/);
    expect(io.out).toMatch(/└ provider offline served · \d+ ms · \d+ in \/ \d+ out · \$0\.000000/);
    expect(io.out).toMatch(/Path: classify → retrieve → assess_evidence → /);
    expect(io.out).toMatch(/Model calls: 1 \(served by offline ×1\) · tokens \d+ in \/ \d+ out · spent \$0\.000000 of \$0\.020000 ceiling/);
  });

  it('keeps --corpus working and reports a missing folder in one line', async () => {
    expect(await main(['ask', '--corpus', '/nonexistent/corpus', 'anything at all'])).toBe(2);
    expect(io.err).toMatch(/^sandscope: corpus folder not found: \/nonexistent\/corpus\. Pass --corpus DIR/);
  });
});

describe('sandscope graph', () => {
  it('prints the compiled graph as Mermaid', async () => {
    expect(await main(['graph'])).toBe(0);
    expect(io.out).toMatch(/^%%\{init/);
    expect(io.out).toContain('verify -.-> hypothesise;');
  });

  it('--json prints { nodes, edges, mermaid } with each node’s file', async () => {
    expect(await main(['graph', '--json'])).toBe(0);
    const d = JSON.parse(io.out) as { nodes: { id: string; terminal: boolean; file: string | null }[]; edges: unknown[]; mermaid: string };
    expect(d.nodes).toHaveLength(14);
    expect(d.nodes.find((n) => n.id === 'verify')).toEqual({ id: 'verify', terminal: false, file: 'packages/engine/src/orchestrator/nodes/verify.ts' });
    expect(d.nodes.filter((n) => n.terminal).map((n) => n.id)).toEqual(['refuse', 'escalate', 'await_approval', 'emit']);
    expect(d.edges).toHaveLength(19);
  });
});

describe('sandscope help', () => {
  it('says how an investigation turn is answered: the provider tool-calling loop with a key, else the offline planner, and the sandboxed tools', async () => {
    expect(await main(['help'])).toBe(0);
    const block = io.out.slice(io.out.indexOf('npx sandscope investigation'), io.out.indexOf('npx sandscope tools'));
    expect(block).toMatch(/tool-calling loop/);
    expect(block).toMatch(/GROQ_API_KEY/);
    expect(block).toMatch(/offline planner/);
    expect(block).toMatch(/jq and log_summary/);
  });
});
