import { describe, expect, it } from 'vitest';
import { demandedValue, EntityLexicon, identifierTokens, statesValue, textNames } from './question-shape.ts';

describe('question shape', () => {
  it('reads the kind of value a question demands', () => {
    expect(demandedValue('How long is the observation period between regions?')).toBe('duration');
    expect(demandedValue('What is the connection pool ceiling for orders-db?')).toBe('quantity');
    expect(demandedValue('Who approves an emergency change?')).toBeNull();
    expect(demandedValue('Restart the worker after a rollout')).toBeNull();
  });
  it('hears a request in the imperative as asking for a value', () => {
    expect(demandedValue('Remind me of the replica count of media-store.')).toBe('quantity');
    expect(demandedValue('Tell me the cache TTL for pricing-cache')).toBe('duration');
  });
  it('asks for no value when the question is what a document says about something', () => {
    expect(demandedValue('What does the change policy say about the observation period between regions?')).toBeNull();
    expect(demandedValue('Where is the observation period described, and what does it say?')).toBeNull();
    // ... unless it asks how long outright
    expect(demandedValue('What does the policy say about how long the observation period is?')).toBe('duration');
    expect(demandedValue('Do we have a documented pool ceiling for events-bus, and what is it?')).toBe('quantity');
  });
  it('recognises stated values of each kind', () => {
    expect(statesValue('wait 30 minutes before the next region', 'duration')).toBe(true);
    expect(statesValue('an observation period applies between regions', 'duration')).toBe(false);
    expect(statesValue('at most 100 connections', 'quantity')).toBe(true);
    expect(statesValue('there is a ceiling', 'quantity')).toBe(false);
    // "and" is not "an" + "d": a number word needs a space before its unit
    expect(statesValue('The summary lists merchants, totals and the file checksum.', 'duration')).toBe(false);
    expect(statesValue('promotion takes about an hour', 'duration')).toBe(true);
    expect(statesValue('retries after 30s', 'duration')).toBe(true);
    // "once" is a count only when it is not a conjunction
    expect(statesValue('the gateway retries once', 'quantity')).toBe(true);
    expect(statesValue('Jobs are parked once they exceed the retry limit.', 'quantity')).toBe(false);
  });
  it('finds identifier-shaped entities and skips ordinary hyphenated words', () => {
    expect(identifierTokens('Is OrdersDbPoolSaturated on orders-db an on-call SEV1 page at p99?').sort()).toEqual([
      'orders-db',
      'ordersdbpoolsaturated',
      'sev1',
    ]);
    expect(identifierTokens('do sev3s need a postmortem?')).toEqual(['sev3s']);
  });
  it('reads a long word once, and finds the names the patterns it replaced found (S-211)', () => {
    // Before, a word of letters with no separator was read again from each of its letters (quadratic: a 20,000-letter
    // word took 0.35 s), and "AbAb…A_" was split at its capitals every way (exponential). Time is the only measure of
    // either; these long words are read at once, and what they yield is named.
    const long = (text: string) => identifierTokens(text).map((t) => (t.length > 40 ? `${t.slice(0, 12)}…(${t.length})` : t));
    expect(long(`${'a'.repeat(200_000)} orders-db`)).toEqual(['orders-db']);
    expect(long(`${'Ab'.repeat(100_000)}A_ OrdersDbPoolSaturated`)).toEqual(['ordersdbpoolsaturated']);
    expect(long(`why ${'Ab'.repeat(100_000)}?`)).toEqual(['abababababab…(200000)']);
    const before = [/[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+/g, /\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b/g];
    const after = [/(?<![A-Za-z0-9])[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+/g, /\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b/g];
    const found = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => `${m.index}:${m[0]}`);
    const alphabet = ['A', 'a', '1', '_', '-', '.', ' '];
    let texts = [''];
    for (let length = 1; length <= 5; length++) {
      texts = texts.flatMap((t) => alphabet.map((c) => t + c));
      for (const text of texts) for (const i of [0, 1]) expect(found(after[i]!, text), text).toEqual(found(before[i]!, text));
    }
    // identifierTokens must keep the same two patterns as these copies.
    const source = identifierTokens.toString();
    for (const re of after) expect(source).toContain(re.source);
  });
  it('learns single-word names from the estate and keeps the longest name', () => {
    const lex = new EntityLexicon([], ['payments', 'orders-db', 'Orders Database']);
    expect(lex.entitiesIn('Does payments talk to orders-db or the orders database?').sort()).toEqual(['orders database', 'orders-db', 'payments']);
  });
  it("reads an unknown name built like two or more of the estate's services as a name, not as its words (S-121)", () => {
    const chunk = {
      id: 'a#b',
      doc: 'a.md',
      docTitle: 'Databases',
      heading: 'Pools',
      level: 2,
      text: 'orders-db and inventory-db pools; checkout-api and payments-api clients.',
    };
    const estate = new EntityLexicon([chunk], ['orders-db', 'inventory-db', 'checkout-api', 'payments-api']);
    // "payments" and "db" are both the library's words; `*-db` is how two of its services are named.
    expect(estate.entitiesIn('what is the pool ceiling for payments-db?')).toEqual(['payments-db']);
    expect(estate.entitiesIn('what is the pool ceiling for orders-db?')).toEqual(['orders-db']);
    // A family of one is no family, and a name ending as no service does is read as its words.
    expect(new EntityLexicon([chunk], ['orders-db', 'checkout-api', 'payments-api']).entitiesIn('pool ceiling for payments-db?')).toEqual([]);
    expect(estate.entitiesIn('is the orders pool read-only?')).toEqual([]);
    // Without an estate nothing says which names are a family: unchanged.
    expect(new EntityLexicon([chunk]).entitiesIn('what is the pool ceiling for payments-db?')).toEqual([]);
  });
  it("reads a service the estate lacks, said in plain words as its services are, as that service's name (S-168)", () => {
    const lex = new EntityLexicon([], ['orders-db', 'Orders database', 'inventory-db', 'Inventory database', 'payments-api', 'checkout-api']);
    // "payments" begins payments-api and two services are databases: a payments database is a service the estate lacks.
    expect(lex.entitiesIn('connection pool ceiling of the payments database?')).toEqual(['payments-db']);
    expect(lex.entitiesIn('is the payments db read only')).toEqual(['payments-db']);
    // A known sibling said with another inflection is that sibling.
    expect(lex.entitiesIn('pool ceiling of the order database')).toEqual(['orders-db']);
    // Words that begin no service, and a kind of service the estate has none of, are words.
    expect(lex.entitiesIn('which database is the primary database?')).toEqual([]);
    expect(lex.entitiesIn('does the inventory api cache prices?')).toEqual(['inventory-api']);
    expect(lex.entitiesIn('does the orders worker retry?')).toEqual([]);
    // Without an estate nothing says how services are named.
    expect(new EntityLexicon([]).entitiesIn('connection pool ceiling of the payments database?')).toEqual([]);
  });
  it('reads an alert named after its service as naming the service (S-023)', () => {
    expect(textNames('`OrdersDbPoolSaturated` fires when active connections stay above 90%.', 'orders-db')).toBe(true);
    expect(textNames('`OrdersDbPoolSaturated` fires when active connections stay above 90%.', 'events-bus')).toBe(false);
    expect(textNames('Page the owner of PaymentsOrdersDbLag.', 'orders-db')).toBe(false);
  });
  it('reads a plural code as its code, and leaves other names alone (S-022)', () => {
    expect(textNames('- SEV3: ticket plus a channel notification.', 'sev3s')).toBe(true);
    // the name a question uses is the one looked for: "k8s" is not rewritten to a "k8" no passage names
    const [k8s] = identifierTokens('how do we upgrade k8s?');
    expect(textNames('Node pools run k8s 1.30.', k8s!)).toBe(true);
    expect(textNames('- SEV3: ticket plus a channel notification.', 'sev2s')).toBe(false);
  });
  it('knows subjects (services) from alerts: by the estate where there is one, by the shape where not', () => {
    const withEstate = new EntityLexicon([], ['orders-db', 'Orders Database']);
    expect(withEstate.isSubject('orders-db')).toBe(true);
    expect(withEstate.isSubject('orders database')).toBe(true);
    expect(withEstate.isSubject('dead-letter')).toBe(false);
    expect(withEstate.isSubject('ordersdbpoolsaturated')).toBe(false);
    const shapeOnly = new EntityLexicon([]);
    expect(shapeOnly.isSubject('card-gw')).toBe(true);
    expect(shapeOnly.isSubject('cardgwauthlatencyhigh')).toBe(false);
  });
  it('lets an alert identify its topic, never a subject or a level code (S-025)', () => {
    const lex = new EntityLexicon([]);
    expect(lex.identifiesTopic('cardgwauthlatencyhigh')).toBe(true);
    expect(lex.identifiesTopic('card-gw')).toBe(false);
    expect(lex.identifiesTopic('sev3')).toBe(false);
    expect(lex.identifiesTopic('p1')).toBe(false);
  });
});

describe('disclaimers', () => {
  it('recognises scope negations and not ordinary negatives', async () => {
    const { disclaims } = await import('./question-shape.ts');
    expect(disclaims('This policy does not cover data retention; those periods are set elsewhere.')).toBe(true);
    expect(disclaims('Out of scope: how long data is kept')).toBe(true);
    expect(disclaims('Do not restart orders-db during a failover.')).toBe(false);
  });
});
