// `npm run reader:replay -- GROUP [GROUP …] [--write]`: what a reader in the ambiguous band does to the figures,
// printed from recorded judgements (ADR-0013, ADR-0014). For each group of development corpora this trains a model
// held out of the whole group (`npm run train -- --exclude … --out`, the shipped model untouched), then scores each
// corpus twice with it: offline (the shipped decision) and with `ADJUDICATOR=model`, its provider replaying the replies
// recorded in docs/experiments/adjudicator-replay/CORPUS.judgements.jsonl (`npm run eval:replayed`). Group `waiting`'s
// corpora wait in eval-corpora-pending/, in no training set: the shipped model scores them as it is. `--write` saves
// the figures to docs/experiments/adjudicator-replay/summary.json, which `npm run eval:report -- --render` prints in
// docs/EVALUATION.md and the README. A prompt with no recorded reply is judged by nobody and counted as such;
// `--prompts DIR` writes each corpus's unjudged prompts to DIR/CORPUS.prompts.jsonl, for someone to judge before the
// figures are printed again (a change to the corpus or the model changes the prompts the reader is sent).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type ReplayedReader, type ReplayedReaderCorpus, replayedReaderGroups } from '@sandscope/eval';
import { z } from 'zod';
import { UserError } from 'sandscope/user-error';
import { runChild as run } from './child-command.ts';
import { runScript } from './script-boundary.ts';

/**
 * The groups a reader was measured on, each held out of training together; their replies are in the repo. A group
 * `waiting` in eval-corpora-pending/ is in no training set, so it is scored with the shipped model itself.
 */
const GROUPS: Record<string, { corpora: readonly string[]; read: string; waiting?: true }> = {
  seen: {
    corpora: ['govuk-alerts', 'cloudnative-pg', 'moj-cloud-platform'],
    read: 'seen: their errors were read while developing; the reader’s figure on them was known before its criterion was set',
  },
  fresh: {
    corpora: ['keda', 'jaeger', 'openebs', 'vitess'],
    read: 'unread: no error of theirs has been read; judged against a criterion committed before their replies were read',
  },
  'unread-new': {
    corpora: ['thanos', 'cert-manager', 'longhorn', 'ingress-nginx', 'flux'],
    read: 'unread: no error of theirs has been read; a replication of `fresh`, its criterion committed before its replies existed',
  },
  waiting: {
    corpora: ['apisix', 'skywalking', 'jitsi-handbook', 'kubespray', 'external-secrets', 'synapse', 'juicefs', 'karmada'],
    read: 'unread: in no training set and never read; they judged no decision about the reader, only (by aggregates) offline ones',
    waiting: true,
  },
  'new-3': {
    corpora: ['argo-rollouts', 'trivy', 'tekton-pipeline'],
    read: 'unread: in no training set and never read; written on 2026-12-03 for the next judge, their first judgement a reader decision',
    waiting: true,
  },
  'new-3b': {
    corpora: ['containerd', 'spire', 'pmm'],
    read: 'unread: in no training set and never read; written on 2026-12-03 for the judge of S-077, a reader decision',
    waiting: true,
  },
  'new-3c': {
    corpora: ['authelia', 'kopia', 'rabbitmq'],
    read: 'unread: in no training set and never read; written on 2026-12-03 for the judge of S-086, a reader decision',
    waiting: true,
  },
  'new-3d': {
    corpora: ['clickhouse-kb', 'awslbc', 'prometheus'],
    read: 'unread: in no training set and never read; written on 2026-12-04 for the judge of S-092, a reader decision',
    waiting: true,
  },
  'new-3e': {
    corpora: ['zookeeper', 'kiali', 'psmdb-operator'],
    read: 'unread: in no training set and never read; written on 2026-12-04 for the judge of S-096, a reader decision',
    waiting: true,
  },
  'waiting-2': {
    corpora: ['karpenter', 'argo-workflows', 'cluster-api'],
    read: 'unread: in no training set and never read; written on 2026-12-02, they judged three offline decisions by aggregates (none adopted) and no reader decision before S-097',
    waiting: true,
  },
  'waiting-3': {
    corpora: ['traefik', 'harbor-docs', 'kops'],
    read: 'unread: in no training set and never read; written on 2026-12-02, they judged three offline decisions by aggregates (none adopted), and S-100 (a reader decision, adopted) with their first reader figures',
    waiting: true,
  },
  'waiting-5': {
    corpora: ['cortex', 'external-dns', 'gatekeeper'],
    read: 'unread: never read, and not in the shipped model’s training; written on 2026-12-01, they judged offline decisions by aggregates (title roles as a judge, nine more corpora as training; neither adopted), then S-101 (a reader decision, not adopted) with their first reader figures',
    waiting: true,
  },
  'waiting-4': {
    corpora: ['contour', 'rke2', 'knative'],
    read: 'unread: never read, and not in the shipped model’s training; written on 2026-12-02, they judged two offline decisions by aggregates (title roles as a judge, nine more corpora as training; neither adopted), then replicated S-100 (a reader decision) with their first reader figures',
    waiting: true,
  },
  'waiting-6': {
    corpora: ['dapr', 'otel-collector', 'victoriametrics'],
    read: 'unread: never read, and not in the shipped model’s training; written on 2026-12-01, they judged offline decisions by aggregates (title roles as a judge, not adopted), then S-101 (a reader decision, not adopted) with their first reader figures',
    waiting: true,
  },
  'waiting-7': {
    corpora: ['kuma', 'pxc-operator', 'woodpecker', 'questdb'],
    read: 'unread: never read, and not in the shipped model’s training; written on 2026-12-04 from the corpus alone, they have judged no decision',
    waiting: true,
  },
  'waiting-8': {
    corpora: ['minikube', 'litmus', 'stolon', 'openfaas'],
    read: 'unread: never read, and not in the shipped model’s training; written on 2026-12-05 from the corpus alone, they judged no decision: their first reader figures replicate the record, printed with no decision to take on them',
    waiting: true,
  },
};

const Report = z.object({
  answerable: z.number(),
  unanswerable: z.number(),
  rightSourceRate: z.number(),
  wrongSourceAnswers: z.number(),
  deferralRate: z.number(),
  procedureAnswers: z.number(),
  stepsCoveredRate: z.number(),
  questions: z.array(z.object({ label: z.string(), verdict: z.string() })),
  modelAdjudication: z
    .object({
      deferredAnswerable: z.number(),
      deferredUnanswerable: z.number(),
      judgedBy: z.record(z.string(), z.number()),
      unavailable: z.number(),
      nothingToShow: z.number(),
      answerableLetThrough: z.number(),
      unanswerableLetThrough: z.number(),
      answerableRefusedUnshown: z.number(),
      answersRead: z.object({
        answerable: z.number(),
        unanswerable: z.number(),
        answerableWithheld: z.number(),
        unanswerableWithheld: z.number(),
        unavailable: z.number(),
      }),
      answeredDeeper: z.object({ answerable: z.number(), unanswerable: z.number() }),
      answersMoved: z.object({ answerable: z.number(), unanswerable: z.number() }),
      refusalsRead: z.object({ answerable: z.number(), unanswerable: z.number(), answerableLetThrough: z.number(), unanswerableLetThrough: z.number() }),
      calls: z.number(),
    })
    .optional(),
});

const root = join(import.meta.dirname, '..');
const tsx = join(root, 'node_modules/.bin/tsx');

const counts = (r: z.infer<typeof Report>) => ({
  falseAnswers: r.questions.filter((q) => q.label !== 'answerable' && q.verdict !== 'refused').length,
  falseRefusals: r.questions.filter((q) => q.label === 'answerable' && q.verdict === 'refused').length,
  rightSourceRate: r.rightSourceRate,
  // The report gives a rate of a count it also gives: the count kept is their product, whole.
  steps: { procedureAnswers: r.procedureAnswers, kept: Math.round(r.stepsCoveredRate * r.procedureAnswers) },
});

await runScript('reader:replay', async () => {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const promptsAt = args.indexOf('--prompts');
  const promptsDir = promptsAt >= 0 ? args[promptsAt + 1] : undefined;
  if (promptsAt >= 0 && (!promptsDir || promptsDir.startsWith('-'))) throw new UserError('--prompts needs a folder to write the unjudged prompts to');
  const names = args.filter((a, i) => a !== '--write' && (promptsAt < 0 || (i !== promptsAt && i !== promptsAt + 1)));
  // Own keys only: `toString` is on every object and is no group.
  const unknown = names.filter((n) => !Object.hasOwn(GROUPS, n));
  if (!names.length || unknown.length)
    throw new UserError(`name one or more groups (${Object.keys(GROUPS).join(', ')})${unknown.length ? `; not a group: ${unknown.join(', ')}` : ''}`);
  // A folder not made yet is made: left to the child, its ENOENT surfaced as a failed command with a stack trace.
  if (promptsDir) mkdirSync(resolve(promptsDir), { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'reader-replay-'));
  const corpora: ReplayedReaderCorpus[] = [];
  // Answerable questions answered without citing their labelled passage, offline and with the reader, by group: a
  // well-cited answer from the wrong passage is the failure the product exists to prevent, and a rate hides its count.
  const wrongSource = new Map<string, { offline: number; reader: number }>();
  for (const name of names) {
    const group = GROUPS[name]!;
    const model = group.waiting ? null : join(dir, `${name}-model.json`);
    if (model) {
      process.stderr.write(`reader:replay: training a model held out of ${group.corpora.join(', ')}…\n`);
      await run(tsx, [join(root, 'scripts/train.ts'), '--exclude', group.corpora.join(','), '--out', model], { cwd: root });
    }
    const from = join(root, group.waiting ? 'eval-corpora-pending' : 'eval-corpora');
    for (const corpus of group.corpora) {
      const set = ['--corpus', join(from, corpus), '--questions', join(from, corpus, 'questions.jsonl'), ...(model ? ['--model', model] : [])];
      const judgements = join(root, 'docs/experiments/adjudicator-replay', `${corpus}.judgements.jsonl`);
      const offline = Report.parse(
        JSON.parse((await run(process.execPath, [join(root, 'apps/agent/bin/sandscope.js'), 'eval', ...set, '--json', '--rows'], { cwd: root })).stdout),
      );
      const reader = Report.parse(
        JSON.parse(
          (
            await run(
              tsx,
              [
                join(root, 'scripts/adjudicator-replay.ts'),
                judgements,
                ...(promptsDir ? ['--prompts', join(resolve(promptsDir), `${corpus}.prompts.jsonl`)] : []),
                ...set,
                '--json',
                '--rows',
              ],
              { cwd: root },
            )
          ).stdout,
        ),
      );
      const adjudication = reader.modelAdjudication!;
      const tally = wrongSource.get(name) ?? { offline: 0, reader: 0 };
      wrongSource.set(name, { offline: tally.offline + offline.wrongSourceAnswers, reader: tally.reader + reader.wrongSourceAnswers });
      corpora.push({
        name: corpus,
        group: name,
        answerable: offline.answerable,
        unanswerable: offline.unanswerable,
        offline: counts(offline),
        reader: { ...counts(reader), deferralRate: reader.deferralRate, ...adjudication },
      });
      const c = corpora.at(-1)!;
      console.log(
        `${name.padEnd(6)} ${corpus.padEnd(20)} offline: false answers ${c.offline.falseAnswers}/${c.unanswerable}, false refusals ${c.offline.falseRefusals}/${c.answerable} | reader: false answers ${c.reader.falseAnswers}/${c.unanswerable}, false refusals ${c.reader.falseRefusals}/${c.answerable}, deferred ${(100 * c.reader.deferralRate).toFixed(1)}% (judged ${Object.values(adjudication.judgedBy).reduce((a, b) => a + b, 0)}, no reply ${adjudication.unavailable}, nothing to show ${adjudication.nothingToShow}; answers read ${adjudication.answersRead.answerable + adjudication.answersRead.unanswerable}, withheld ${adjudication.answersRead.unanswerableWithheld} of ${adjudication.answersRead.unanswerable} unanswerable and ${adjudication.answersRead.answerableWithheld} of ${adjudication.answersRead.answerable} answerable, no reply ${adjudication.answersRead.unavailable}, given from another passage it read ${adjudication.answersMoved.answerable} answerable and ${adjudication.answersMoved.unanswerable} unanswerable; refusals below the lower line read ${adjudication.refusalsRead.answerable} answerable and ${adjudication.refusalsRead.unanswerable} unanswerable, let through ${adjudication.refusalsRead.answerableLetThrough} and ${adjudication.refusalsRead.unanswerableLetThrough}; answered from the search's next passages ${adjudication.answeredDeeper.answerable} answerable, ${adjudication.answeredDeeper.unanswerable} unanswerable; prompts sent ${adjudication.calls}; procedure answers keeping their steps offline ${c.offline.steps!.kept}/${c.offline.steps!.procedureAnswers}, with the reader ${c.reader.steps!.kept}/${c.reader.steps!.procedureAnswers})`,
      );
    }
  }
  const summary: ReplayedReader = {
    generatedAt: new Date().toISOString().slice(0, 10),
    command: `npm run reader:replay -- ${names.join(' ')} --write`,
    groups: names.map((n) => ({ name: n, corpora: GROUPS[n]!.corpora, read: GROUPS[n]!.read })),
    corpora,
  };
  for (const g of replayedReaderGroups(summary)) {
    console.log(
      `${g.name} pooled: offline false answers ${g.offline.falseAnswers}/${g.unanswerable}, false refusals ${g.offline.falseRefusals}/${g.answerable} | reader false answers ${g.reader.falseAnswers}/${g.unanswerable}, false refusals ${g.reader.falseRefusals}/${g.answerable}${g.reader.answerableRefusedUnshown === undefined ? '' : ` (of its refusals of deferred answerable questions, ${g.reader.answerableRefusedUnshown} were never shown the labelled passage)`}${g.reader.answersRead ? `; it read ${g.reader.answersRead.answerable + g.reader.answersRead.unanswerable} answers of the sufficient band and withheld ${g.reader.answersRead.unanswerableWithheld} of ${g.reader.answersRead.unanswerable} unanswerable, ${g.reader.answersRead.answerableWithheld} of ${g.reader.answersRead.answerable} answerable` : ''}${g.reader.answersMoved ? `, and gave ${g.reader.answersMoved.answerable} answerable and ${g.reader.answersMoved.unanswerable} unanswerable from another passage it read (S-098)` : ''}${g.reader.refusalsRead ? `; it read ${g.reader.refusalsRead.answerable + g.reader.refusalsRead.unanswerable} refusals below the lower line and let through ${g.reader.refusalsRead.answerableLetThrough} of ${g.reader.refusalsRead.answerable} answerable, ${g.reader.refusalsRead.unanswerableLetThrough} of ${g.reader.refusalsRead.unanswerable} unanswerable (S-100)` : ''}${g.reader.answeredDeeper ? `; answered from the search's next passages (S-097) ${g.reader.answeredDeeper.answerable} answerable, ${g.reader.answeredDeeper.unanswerable} unanswerable` : ''}${g.reader.calls === undefined ? '' : `; prompts sent ${g.reader.calls} for ${g.answerable + g.unanswerable} questions`}; wrong-source answers offline ${wrongSource.get(g.name)!.offline}, with the reader ${wrongSource.get(g.name)!.reader}${g.steps ? `; procedure answers keeping their steps offline ${g.steps.offline.kept}/${g.steps.offline.procedureAnswers}, with the reader ${g.steps.reader.kept}/${g.steps.reader.procedureAnswers}` : ''}`,
    );
  }
  // The unread groups together: criteria were set on their sum (S-098, S-099, S-100) and summed by hand from the lines above.
  const unread = replayedReaderGroups(summary).filter((g) => !GROUPS[g.name]!.read.startsWith('seen'));
  if (unread.length > 1) {
    const sum = (f: (g: (typeof unread)[number]) => number) => unread.reduce((a, g) => a + f(g), 0);
    console.log(
      `unread groups pooled (${unread.map((g) => g.name).join(', ')}): offline false answers ${sum((g) => g.offline.falseAnswers)}/${sum((g) => g.unanswerable)}, false refusals ${sum((g) => g.offline.falseRefusals)}/${sum((g) => g.answerable)} | reader false answers ${sum((g) => g.reader.falseAnswers)}/${sum((g) => g.unanswerable)}, false refusals ${sum((g) => g.reader.falseRefusals)}/${sum((g) => g.answerable)}, prompts sent ${sum((g) => g.reader.calls ?? 0)} for ${sum((g) => g.answerable + g.unanswerable)} questions; wrong-source answers offline ${sum((g) => wrongSource.get(g.name)!.offline)}, with the reader ${sum((g) => wrongSource.get(g.name)!.reader)}; procedure answers keeping their steps offline ${sum((g) => g.steps?.offline.kept ?? 0)}/${sum((g) => g.steps?.offline.procedureAnswers ?? 0)}, with the reader ${sum((g) => g.steps?.reader.kept ?? 0)}/${sum((g) => g.steps?.reader.procedureAnswers ?? 0)}`,
    );
  }
  if (write) {
    writeFileSync(join(root, 'docs/experiments/adjudicator-replay/summary.json'), `${JSON.stringify(summary, null, 1)}\n`);
    console.log('wrote docs/experiments/adjudicator-replay/summary.json; npm run eval:report -- --render prints it');
  }
});
