// `npm run bench`: speed, measured rather than asserted in a timed test. Writes docs/BENCHMARKS.md.
// Index build and per-question `ask` latency on the corpus; retrieval on synthetic corpora of
// 10k and 100k passages; the same queries through MiniSearch for a ratio; a replica's start at 100k
// passages from an index snapshot in the store (DATABASE_URL when set, else embedded PGlite).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { type Chunk, HashingEmbedder, HybridRetriever, type KnowledgeBase, type SourceDocument } from '@sandscope/engine';
import { loadIndexSnapshot, migrate, openDatabase, saveIndexSnapshot } from '@sandscope/store';
import { parseQuestionsJsonl, seededRandom } from '@sandscope/eval';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import MiniSearch from 'minisearch';
import { indexCodeTag, knowledgeBaseFromSnapshot, knowledgeBaseOf, loadCorpusSource, snapshotCorpusVersion } from 'sandscope/corpus';
import { runAgent } from 'sandscope';
import { askLatencies } from './ask-latency.ts';
import { runScript } from './script-boundary.ts';

await runScript('bench', async () => {
  const root = join(import.meta.dirname, '..');
  const quantile = (xs: number[], q: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  };
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  const lines: string[] = [];
  const log = (s: string) => {
    console.log(s);
    lines.push(s);
  };

  const source = loadCorpusSource(join(root, 'corpus'));
  const questions = parseQuestionsJsonl(readFileSync(join(root, 'corpus/questions.jsonl'), 'utf8')).questions.map((q) => q.question);

  // 1. Index build on the corpus (chunking + BM25 + embeddings), median of 30.
  const builds: number[] = [];
  let kb!: KnowledgeBase;
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    kb = await knowledgeBaseOf(source);
    builds.push(performance.now() - t);
  }

  // 2. ask (retrieve → gate → adjudicate → extractive draft) per question, in-process, after one warm-up pass.
  const asks = await askLatencies(kb, questions);

  // 2b. The whole graph (runAgent, offline model, no store) and LangGraph's own floor: a trivial
  // 9-node graph whose nodes do nothing — what the framework costs per run before any of our work.
  const graphQuestions = questions.filter((_, i) => i % 4 === 0).slice(0, 150);
  for (const q of graphQuestions.slice(0, 20)) await runAgent({ kb, question: q, env: {} });
  const graphRuns: number[] = [];
  for (const q of graphQuestions) {
    const t = performance.now();
    await runAgent({ kb, question: q, env: {} });
    graphRuns.push(performance.now() - t);
  }
  const Trivial = Annotation.Root({ n: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
  const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] as const;
  // biome-ignore lint: the builder's generic node-name type grows per call; `any` keeps this measurement short.
  let builder: any = new StateGraph(Trivial);
  for (const n of names) builder = builder.addNode(n, async () => ({ n: 1 }));
  builder = builder.addEdge(START, 'a');
  for (let i = 0; i + 1 < names.length; i++) builder = builder.addEdge(names[i], names[i + 1]);
  const trivial = builder.addEdge('i', END).compile();
  for (let i = 0; i < 30; i++) await trivial.invoke({ n: 0 });
  const floor: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await trivial.invoke({ n: 0 });
    floor.push(performance.now() - t);
  }

  // 3. Synthetic corpora: passages drawn from the corpus vocabulary plus identifiers, deterministic.
  const vocabulary = [...new Set(kb.chunks.flatMap((c) => c.text.toLowerCase().match(/[a-z][a-z0-9-]{2,}/g) ?? []))];
  function synthetic(n: number): Chunk[] {
    const random = seededRandom(n);
    return Array.from({ length: n }, (_, i) => {
      const len = 40 + Math.floor(random() * 80);
      const words = Array.from({ length: len }, () => vocabulary[Math.floor(random() * vocabulary.length)]!);
      words.push(`svc-${i % 5000}`);
      return { id: `syn-${i}#p`, doc: `syn-${i}.md`, docTitle: `Synthetic ${i}`, heading: words.slice(0, 4).join(' '), text: words.join(' ') };
    });
  }
  const queries = questions.filter((_, i) => i % 4 === 0).slice(0, 150);
  const rows: string[] = [];
  const builds100k: { n: number; ours: number; theirs: number }[] = [];
  for (const n of [10_000, 100_000]) {
    const chunks = synthetic(n);
    // Builds timed in the order ours, MiniSearch, MiniSearch, ours (twice each at 100k, once at 10k), the
    // mean of each taken: on a shared machine the load drifts over minutes, and one of each measured in turn
    // gave whichever ran in the quieter minute the better figure.
    const reps = n >= 100_000 ? 2 : 1;
    let retriever: HybridRetriever | undefined;
    let mini: MiniSearch<Chunk> | undefined;
    const ourBuilds: number[] = [];
    const miniBuilds: number[] = [];
    let t = 0;
    for (let r = 0; r < reps; r++) {
      for (const which of r % 2 === 0 ? ['ours', 'mini'] : ['mini', 'ours']) {
        if (which === 'ours') {
          retriever = undefined;
          t = performance.now();
          retriever = await HybridRetriever.build(chunks, new HashingEmbedder());
          ourBuilds.push(performance.now() - t);
        } else {
          mini = undefined;
          t = performance.now();
          mini = new MiniSearch<Chunk>({ fields: ['heading', 'text'], storeFields: [], idField: 'id' });
          mini.addAll(chunks);
          miniBuilds.push(performance.now() - t);
        }
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const build = mean(ourBuilds);
    const miniBuild = mean(miniBuilds);
    console.log(`builds at ${n}: ours ${ourBuilds.map((x) => Math.round(x)).join(', ')} ms; MiniSearch ${miniBuilds.map((x) => Math.round(x)).join(', ')} ms`);
    for (const q of queries.slice(0, 10)) await retriever!.search(q);
    const ours: number[] = [];
    for (const q of queries) {
      t = performance.now();
      await retriever!.search(q);
      ours.push(performance.now() - t);
    }
    const theirs: number[] = [];
    for (const q of queries) {
      t = performance.now();
      mini!.search(q).slice(0, 6);
      theirs.push(performance.now() - t);
    }
    builds100k.push({ n, ours: build, theirs: miniBuild });
    rows.push(
      `| ${n.toLocaleString('en')} | ${(build / 1000).toFixed(1)} s | ${ms(quantile(ours, 0.5))} | ${ms(quantile(ours, 0.95))} | ${(miniBuild / 1000).toFixed(1)} s | ${ms(quantile(theirs, 0.5))} | ${ms(quantile(theirs, 0.95))} | ${(quantile(ours, 0.5) / quantile(theirs, 0.5)).toFixed(2)}× | ${(build / miniBuild).toFixed(2)}× |`,
    );
    console.log(rows[rows.length - 1]);
    retriever = undefined;
    mini = undefined;
  }

  // 4. A replica's start at 100k passages (issue 11): the knowledge base built (what every replica paid
  // before snapshots), its snapshot saved to the store, then what a second replica pays: the corpus version
  // it files the snapshot under, reading the snapshot, and restoring the knowledge base from it.
  const startup = await (async () => {
    const n = 100_000;
    const documents: SourceDocument[] = synthetic(n).map((c, i) => ({
      doc: `syn-${i}.md`,
      title: c.docTitle,
      text: `# ${c.docTitle}\n\n## ${c.heading}\n\n${c.text}\n`,
    }));
    const corpus = { ...source, documents, estate: null, thresholds: null };
    let t = performance.now();
    const built = await knowledgeBaseOf(corpus);
    const build = performance.now() - t;
    t = performance.now();
    const bytes = built.snapshot();
    const encode = performance.now() - t;
    const url = process.env.DATABASE_URL;
    const db = await openDatabase(url ? { url } : { dataDir: 'memory://' });
    try {
      await migrate(db);
      const tag = indexCodeTag(new HashingEmbedder()) ?? 'unreadable-sources';
      t = performance.now();
      const key = { corpusVersion: snapshotCorpusVersion(corpus), indexFormat: tag };
      const keyMs = performance.now() - t;
      t = performance.now();
      await saveIndexSnapshot(db, key, bytes);
      const save = performance.now() - t;
      const loads: number[] = [];
      const restores: number[] = [];
      let restored: KnowledgeBase | undefined;
      for (let i = 0; i < 3; i++) {
        restored = undefined;
        t = performance.now();
        const loaded = await loadIndexSnapshot(db, key);
        if (loaded.status !== 'found') throw new Error(`the snapshot just saved was ${loaded.status}`);
        loads.push(performance.now() - t);
        t = performance.now();
        restored = knowledgeBaseFromSnapshot(corpus, loaded.bytes);
        restores.push(performance.now() - t);
      }
      // Since S-174 a replica also reads the whole library for respelling before it is ready (KnowledgeBase.prepareRespelling).
      t = performance.now();
      restored!.prepareRespelling();
      const respelling = performance.now() - t;
      const q = queries[0]!;
      const same = JSON.stringify(await restored!.examine(q)) === JSON.stringify(await built.examine(q));
      await db.query('delete from index_snapshot where index_format = $1', [key.indexFormat]);
      return {
        n,
        passages: built.chunks.length,
        build,
        encode,
        mb: bytes.length / 1e6,
        keyMs,
        save,
        load: quantile(loads, 0.5),
        restore: quantile(restores, 0.5),
        respelling,
        same,
        store: db.description,
      };
    } finally {
      await db.close();
    }
  })();
  const start = startup.keyMs + startup.load + startup.restore + startup.respelling;
  console.log(startup);

  const met = (ok: boolean) => (ok ? 'met' : '**missed**');
  const askP50 = quantile(asks, 0.5);
  const buildP50 = quantile(builds, 0.5);
  const ret100k = Number(/\| 100,000 \| [^|]+\| ([0-9.]+) ms/.exec(rows[1]!)?.[1]);
  log(
    `# Benchmarks\n\nGenerated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}). Do not edit.\n`,
  );
  log('## On the corpus\n');
  log(`| measure | value | aim |\n|---|---|---|`);
  log(`| index build (${kb.chunks.length} passages; median of 30) | ${ms(buildP50)} | ≤ 50 ms — ${met(buildP50 <= 50)} |`);
  log(`| \`ask\` in-process, p50 over ${asks.length} questions | ${ms(askP50)} | ≤ 10 ms — ${met(askP50 <= 10)} |`);
  log(`| \`ask\` in-process, p95 | ${ms(quantile(asks, 0.95))} | — |`);
  log(`| the whole graph (\`runAgent\`, offline model, no store), p50 over ${graphRuns.length} questions | ${ms(quantile(graphRuns, 0.5))} | — |`);
  log(`| the whole graph, p95 | ${ms(quantile(graphRuns, 0.95))} | — |`);
  log(`| LangGraph's floor: a trivial 9-node graph whose nodes do nothing, p50 | ${ms(quantile(floor, 0.5))} | — |`);
  log('\n`ask` here is the gate path the evaluation measures (retrieve → gate → adjudicate → extractive draft). The');
  log('graph adds drafting through the model stack, verification, the risk gate and LangGraph itself; the last row');
  log('is what the framework costs per run before any of our work (see docs/adr/0004).');
  log('\n## Retrieval on synthetic corpora\n');
  log(
    `Passages of 40–120 words drawn from the corpus vocabulary; ${queries.length} questions from the question set; top 6. MiniSearch indexes heading and text with its defaults (lexical only: no dense signal, no fusion). Builds: the mean of ours and MiniSearch's timed in the order ours, MiniSearch, MiniSearch, ours at 100k (once each at 10k).\n`,
  );
  log(
    '| passages | our build | our p50 | our p95 | MiniSearch build | MiniSearch p50 | MiniSearch p95 | p50 ratio (ours / MiniSearch) | build ratio (ours / MiniSearch) |\n|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of rows) log(r);
  const b100k = builds100k.find((b) => b.n === 100_000)!;
  log(
    `\nAim: retrieval p50 ≤ 50 ms at 100k passages — ${met(ret100k <= 50)}. Aim: index build at 100k passages ≤ 1.0× MiniSearch's in the same run — ${met(b100k.ours <= b100k.theirs)} (${(b100k.ours / b100k.theirs).toFixed(2)}×).`,
  );
  log(
    `\nOur build is the hybrid index (BM25 postings and the ${new HashingEmbedder().dimensions}-dimension hashing vectors); MiniSearch's is its lexical index alone.`,
  );
  log("\n## A replica's start at 100k passages\n");
  log(
    `${startup.n.toLocaleString('en')} synthetic documents of one passage each (${startup.passages.toLocaleString('en')} passages), as above. Before snapshots every replica built its knowledge base; now the first saves an index snapshot to the store (${startup.store}) and the next loads it. Store read and restore: median of 3.\n`,
  );
  log('| measure | value | aim |\n|---|---|---|');
  log(`| knowledge base build (chunking, index, lexicon, document terms, hazards) | ${(startup.build / 1000).toFixed(1)} s | — |`);
  log(`| snapshot size | ${startup.mb.toFixed(0)} MB | — |`);
  log(`| snapshot encode | ${ms(startup.encode)} | — |`);
  log(`| snapshot save to the store | ${ms(startup.save)} | — |`);
  log(`| corpus version the snapshot is filed under | ${ms(startup.keyMs)} | — |`);
  log(`| snapshot read from the store | ${ms(startup.load)} | — |`);
  log(`| knowledge base restored from the snapshot | ${ms(startup.restore)} | — |`);
  log(`| respelling index read from the restored base (once) | ${ms(startup.respelling)} | — |`);
  log(`| **a replica's start from the snapshot** (version + read + restore + respelling index) | ${ms(start)} | ≤ 2 s — ${met(start <= 2000)} |`);
  log(`| restored base examines a question as the built one does | ${startup.same ? 'yes' : '**no**'} | yes |`);
  writeFileSync(join(root, 'docs/BENCHMARKS.md'), `${lines.join('\n')}\n`);
});
