import { describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../knowledge-base.ts';
import { editDistance, Respeller } from './respelling.ts';
import { stem } from './tokenizer.ts';

const LIBRARY = ['connect', 'pool', 'exhaust', 'replica', 'servic', 'serv', 'order', 'certif', 'timeout', 'orders-db', 'kafka'];
const DICTIONARY = new Set(['connection', 'pool', 'exhausted', 'replica', 'service', 'serve', 'order', 'border', 'certificate', 'timeout', 'warehouse']);
const respeller = new Respeller(
  () => LIBRARY,
  (t) => LIBRARY.includes(t),
  (w) => DICTIONARY.has(w),
);

/** A respeller over a library that writes `text`, whose every word the dictionary knows as written. */
function libraryWriting(text: string): Respeller {
  const words: string[] = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const library = words.map(stem);
  return new Respeller(
    () => library,
    (t) => library.includes(t),
    (w) => words.includes(w),
    () => [text],
  );
}

describe('Respeller (S-173)', () => {
  it('reads a slip of the keys as the one library term an edit from it: a letter left out, added, changed or swapped', () => {
    expect(respeller.respell('why is the conection pool exhausted?')).toEqual({
      text: 'why is the connect pool exhausted?',
      respellings: [{ written: 'conection', read: 'connect', as: 'connect' }],
      nearMisses: [],
    });
    expect(respeller.respell('replcia lag').respellings).toEqual([{ written: 'replcia', read: 'replica', as: 'replica' }]);
    expect(respeller.respell('kafkaa consumer lag').respellings).toEqual([{ written: 'kafkaa', read: 'kafka', as: 'kafka' }]);
    expect(respeller.respell('the timeuot of it').respellings).toEqual([{ written: 'timeuot', read: 'timeout', as: 'timeout' }]);
    expect(respeller.respell('Certifcate expired').respellings).toEqual([{ written: 'Certifcate', read: stem('certificate'), as: stem('certificate') }]);
  });

  it('never reads a word the dictionary knows as another, though it is an edit from a library term: an absent topic stays absent', () => {
    expect(respeller.respell('how do I rotate the border warehouse credentials').respellings).toEqual([]);
  });

  it('reads a contraction typed without its apostrophe as the word it is, never as a library term', () => {
    const chatty = new Respeller(
      () => ['chat', 'doesn'],
      (t) => t === 'chat',
      () => false,
    );
    expect(chatty.respell('thats odd, the pod doesnt start').respellings).toEqual([]);
  });

  it('reads nothing where two library terms are an edit away: the slip is ambiguous', () => {
    // "servce" is one edit from "servic" (service) and from "serv" (serve).
    expect(respeller.respell('restart the servce').respellings).toEqual([]);
  });

  it('never respells a name, a short word, or a word the library uses', () => {
    for (const q of [
      'orders-dc pool',
      'the ordrs-db pool',
      'OrdersDbPoolSaturatd fired',
      'p99 of kafkaa.internal',
      'pol size',
      'kafka lag',
      'x/replcia/y',
      'legit',
      'kafa lag',
    ]) {
      expect(respeller.respell(q).respellings, q).toEqual([]);
    }
  });

  it('compares a slip with the library’s words as written, where the stemmer reads it by its misspelt ending (S-174)', () => {
    const asWritten = libraryWriting('Security incidents: the key rotation and escalation, while running');
    // Two edits or more from every library term as stems ("securtiy" stems to itself, "security" to "secur").
    expect(editDistance(stem('securtiy'), stem('security'))).toBeGreaterThan(1);
    for (const [slip, word] of [
      ['securtiy', 'security'],
      ['incidnts', 'incidents'],
      ['rotaiton', 'rotation'],
      ['escalaiton', 'escalation'],
      ['runnig', 'running'],
    ] as const) {
      expect(asWritten.respell(`the ${slip} page`), slip).toEqual({
        text: `the ${word} page`,
        respellings: [{ written: slip, read: stem(word), as: word }],
        nearMisses: [],
      });
    }
  });

  it('names the library’s spelling nearest the slip, not the first it wrote with that stem', () => {
    const connected = libraryWriting('Once connected, each connection is pooled');
    // "connected" comes first and shares the stem, but is two edits from the slip; "connection" is one.
    expect(connected.respell('conection pool').respellings).toEqual([{ written: 'conection', read: 'connect', as: 'connection' }]);
    expect(connected.respell('conected pool').respellings).toEqual([{ written: 'conected', read: 'connect', as: 'connected' }]);
  });

  it('reads nothing where the library’s words as written offer two terms: the slip is ambiguous (S-174)', () => {
    const twoWays = libraryWriting('posted on the poster');
    // "postex" is one edit from "posted" and from "poster" as written, two terms ("post", "poster").
    expect(twoWays.respell('the postex table').respellings).toEqual([]);
  });

  it('offers the library’s words one edit from a word it left as typed, and reads none of them (S-179)', () => {
    const library = libraryWriting('If the pooler failed, restart it. A job stuck in the queue is retried; restart the service or serve it again.');
    const offers = (q: string) => library.respell(q).nearMisses;
    // Too short to read ("legit" is one edit from "logit"), near two: offered, and the text is as typed.
    expect(library.respell('the pooler faled').text).toBe('the pooler faled');
    expect(offers('the pooler faled')).toEqual([{ written: 'faled', at: 11, library: ['failed'] }]);
    expect(offers('the jb is stck')).toEqual([{ written: 'stck', at: 10, library: ['stuck'] }]);
    expect(offers('restart the servce')).toEqual([{ written: 'servce', at: 12, library: ['service', 'serve'] }]);
    // A word a dictionary knows is what was meant: "border" is no slip of the library's "order", "stack" none of "stuck".
    expect(respeller.respell('the border queue').nearMisses).toEqual([]);
    const stuck = new Respeller(
      () => ['stuck'],
      (t) => t === 'stuck',
      (w) => w === 'stack',
      () => ['stuck'],
    );
    expect(stuck.respell('the stack job').nearMisses).toEqual([]);
    expect(stuck.respell('the stuk job').nearMisses).toEqual([{ written: 'stuk', at: 4, library: ['stuck'] }]);
    // An acronym, a name, a short word, a word the library uses, a word near nothing: no offer.
    for (const q of ['the STUK job', 'the fialed-db pool', 'the jb', 'restart the pooler', 'the warehouse']) expect(offers(q), q).toEqual([]);
  });

  it('offers nothing for a word near more library words than an offer can name', () => {
    const library = libraryWriting('bake cake lake make rake');
    expect(library.respell('the zake').nearMisses).toEqual([]);
    expect(library.respell('the rakke').nearMisses).toEqual([{ written: 'rakke', at: 4, library: ['rake'] }]);
  });

  it('reads the library once, when prepared, and not again for a slip', () => {
    let reads = 0;
    const counted = new Respeller(
      () => ['secur'],
      (t) => t === 'secur',
      () => false,
      () => {
        reads++;
        return ['security'];
      },
    );
    counted.prepare();
    expect(reads).toBe(1);
    expect(counted.respell('the securtiy page').respellings).toEqual([{ written: 'securtiy', read: 'secur', as: 'security' }]);
    expect(reads).toBe(1);
  });

  it('measures edits as optimal string alignment', () => {
    expect(editDistance('replcia', 'replica')).toBe(1);
    expect(editDistance('conect', 'connect')).toBe(1);
    expect(editDistance('servc', 'servic')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('abcd', 'badc')).toBe(2);
    expect(editDistance('a', 'abcdef')).toBe(3);
  });
});

describe('a knowledge base reads the question respelled, and says so (S-173)', () => {
  const documents = [
    {
      doc: 'runbook-pool.md',
      title: 'Connection pool exhaustion',
      text: '# Connection pool exhaustion\n\nWhen the connection pool is exhausted, restart the pooler and raise the ceiling to 200 connections.\n',
    },
  ];
  const thesaurus = { related: () => [], isWord: (w: string) => DICTIONARY.has(w) };

  it('retrieves and measures the respelled text, and a reason names the word read as another', async () => {
    const kb = await KnowledgeBase.build({ documents, thesaurus });
    const exam = await kb.examine('conection pool exhausted, what do I do');
    expect(exam.features.respellings).toEqual([{ written: 'conection', read: 'connect', as: 'connection' }]);
    expect(exam.features.unknownWords).toEqual([]);
    expect(exam.assessment.reasons.join('\n')).toContain('Read “conection” as the library’s “connection”');
  });

  it('a refusal offers a slip it left as typed for the asker to type again; the verdict stands on the question as typed (S-179)', async () => {
    const failover = { doc: 'runbook-failover.md', title: 'Replica failover', text: '# Replica failover\n\nWhen the primary failed, promote the replica.\n' };
    const kb = await KnowledgeBase.build({ documents: [...documents, failover], thesaurus });
    const exam = await kb.examine('the nightly backup to tape faled, what do I do');
    expect(exam.verdict).toBe('refused');
    expect(exam.features.respellings).toEqual([]);
    expect(exam.reasons).toContain('“faled” is no word the library uses; it writes “failed”, one edit from it. If that is what you meant, ask again with it.');
    expect(exam.assessment.reasons).toEqual(exam.reasons);
  });

  it('a refusal offers the question again with the slip replaced, and ask returns it (S-180)', async () => {
    const failover = { doc: 'runbook-failover.md', title: 'Replica failover', text: '# Replica failover\n\nWhen the primary failed, promote the replica.\n' };
    const kb = await KnowledgeBase.build({ documents: [...documents, failover], thesaurus });
    const refused = await kb.ask('the nightly backup to tape faled, what do I do');
    expect(refused.verdict).toBe('refused');
    expect(refused.askAgain).toEqual(['the nightly backup to tape failed, what do I do']);
    // An answer offers none: apps/agent/src/cli/cli.test.ts asks one with a slip left as typed on the shipped corpus.
  });

  it('respells nothing without a dictionary to tell a slip from a word the library lacks', async () => {
    const kb = await KnowledgeBase.build({ documents });
    const exam = await kb.examine('conection pool exhausted, what do I do');
    expect(exam.features.respellings).toEqual([]);
    expect(exam.features.unknownWords).toEqual(['conection']);
  });
});
