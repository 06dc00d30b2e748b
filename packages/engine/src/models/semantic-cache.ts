import { createHash } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { cosine, type Embedder } from '../retrieval/embedder.ts';
import { isStopword, stem, words } from '../retrieval/tokenizer.ts';
import { SANDSCOPE_KEY, sandscopeOptions, withResultMetadata } from './call-options.ts';
import type { CacheEntry, CacheStore } from './cache-store.ts';
import { tokenUsage } from './pricing.ts';
import { parseDraftPrompt } from './prompt.ts';
import type { Clock } from './provider-health.ts';
import { textToStream } from './text-stream.ts';

/** The evidence an answer is valid for. Part of every key: an answer built on other evidence is never served. */
export interface CacheScope {
  readonly corpusVersion: string;
  readonly workload: string;
}

/** Everything the cache needs to know about one call, computed once. */
export interface CacheLookup {
  readonly key: string;
  /** Corpus version, workload and the question's polarity words: a semantic match is only looked for within one. */
  readonly namespace: string;
  /** What is embedded for similarity: the question for a draft prompt, else the whole normalised prompt. */
  readonly semanticText: string;
  readonly evidenceIds: readonly string[];
  /** The prompt carries verifier feedback: it is a correction whatever the flag says (D-006). */
  readonly carriesFeedback: boolean;
}

export interface CacheHit {
  readonly match: 'exact' | 'semantic';
  readonly similarity: number;
  readonly entry: CacheEntry;
}

export interface SemanticCacheOptions {
  readonly store: CacheStore;
  readonly embedder: Embedder;
  readonly clock?: Clock;
}

/**
 * Remembers answers so a repeated or rephrased question does not cost another
 * model call. Exact hash first (cheap, certain), then vector similarity.
 *
 * The similarity threshold is the embedder's (`cacheSimilarityThreshold`), not
 * a constant here — seed ADR-0008: a module-level constant was wrong in both
 * directions at once, because what counts as "the same question" depends on the
 * embedding space.
 *
 * Keys are namespaced by corpus version and workload, and a semantic match must
 * have been drafted from passages all present in this prompt, so every citation
 * in a served answer resolves against the evidence in front of the caller. The
 * namespace also carries the question's polarity words (`not`, `before`/`after`,
 * `up`/`down`…), which the hashing embedder drops: without them a question and
 * its opposite were one semantic match at similarity 1.000.
 */
export class SemanticCache {
  readonly store: CacheStore;
  readonly embedder: Embedder;
  private readonly clock: Clock;

  constructor(options: SemanticCacheOptions) {
    this.store = options.store;
    this.embedder = options.embedder;
    this.clock = options.clock ?? Date.now;
  }

  /** Pure: the key and the similarity text for a call. */
  describe(scope: CacheScope, options: LanguageModelV3CallOptions): CacheLookup {
    const normalised = normalisePrompt(options.prompt);
    const key = createHash('sha256')
      .update(stableJson({ v: 1, corpusVersion: scope.corpusVersion, workload: scope.workload, prompt: normalised, options: modelVisibleOptions(options) }))
      .digest('hex');
    const draft = parseDraftPrompt(options.prompt);
    const semanticText = draft ? normaliseText(draft.question) : normalised.map((m) => m.content).join('\n');
    const polarity = polarityOf(semanticText);
    const asked = draft ? `\u241f${questionSignature(semanticText)}` : '';
    return {
      key,
      namespace: `${scope.corpusVersion}\u241f${scope.workload}${polarity ? `\u241f${polarity}` : ''}${asked}`,
      semanticText,
      evidenceIds: draft ? draft.passages.map((p) => p.id) : [],
      carriesFeedback: (draft?.feedback.length ?? 0) > 0,
    };
  }

  async lookup(lookup: CacheLookup): Promise<CacheHit | null> {
    const exact = await this.store.get(lookup.key);
    if (exact && exact.namespace === lookup.namespace) return { match: 'exact', similarity: 1, entry: exact };
    const vector = await this.embed(lookup.semanticText);
    if (!vector) return null;
    const available = new Set(lookup.evidenceIds);
    let best: { key: string; similarity: number } | null = null;
    for (const candidate of await this.store.scan(lookup.namespace)) {
      if (candidate.namespace !== lookup.namespace || candidate.embedderId !== this.embedder.id || !candidate.vector) continue;
      if (!candidate.evidenceIds.every((id) => available.has(id))) continue;
      const similarity = cosine(vector, candidate.vector instanceof Float32Array ? candidate.vector : Float32Array.from(candidate.vector));
      if (similarity >= this.embedder.cacheSimilarityThreshold && (!best || similarity > best.similarity)) best = { key: candidate.key, similarity };
    }
    if (!best) return null;
    // The scan carries no answers (S-079); the one that matched is read by its key. Gone since the scan (a person's
    // "wrong answer" mark, an expiry) is a miss.
    const entry = await this.store.get(best.key);
    return entry && entry.namespace === lookup.namespace ? { match: 'semantic', similarity: best.similarity, entry } : null;
  }

  async remember(lookup: CacheLookup, text: string): Promise<void> {
    const vector = await this.embed(lookup.semanticText);
    await this.store.set({
      key: lookup.key,
      namespace: lookup.namespace,
      embedderId: vector ? this.embedder.id : null,
      vector: vector ? Array.from(vector) : null,
      evidenceIds: [...lookup.evidenceIds],
      text,
      createdAt: this.clock(),
    });
  }

  /** The question's vector, or null when the embedder cannot serve — the cache then works by exact match only. */
  private async embed(text: string): Promise<Float32Array | null> {
    try {
      const [vector] = await this.embedder.embed([text]);
      return vector ?? null;
    } catch {
      return null;
    }
  }
}

export type CacheEvent =
  | { readonly kind: 'hit'; readonly match: 'exact' | 'semantic'; readonly similarity: number; readonly key: string }
  | { readonly kind: 'miss'; readonly key: string; readonly message?: string }
  | { readonly kind: 'bypass'; readonly reason: 'correction' | 'judgement' | 'injected_failure'; readonly key: string }
  | { readonly kind: 'stored'; readonly key: string }
  | { readonly kind: 'store_failed'; readonly key: string; readonly message: string };

export type CacheEventSink = (event: CacheEvent) => void;

export interface CachedModelOptions extends CacheScope {
  readonly onEvent?: CacheEventSink;
  /**
   * A run with injected provider failures (T-6) neither reads nor writes the cache. Its answer is what a degraded
   * router gave — the offline fallback's, when every provider was ticked off — and the shared cache would serve it to
   * every other visitor who asks the same question. And a run that breaks a provider is there to meet the router:
   * served from the cache, "Break a provider" did nothing and the trace said only "cache hit" (a colleague's test of
   * the website, 2026-12-05).
   */
  readonly injectedFailures?: boolean;
}

/**
 * The semantic cache as a model wrapping another model.
 *
 * A correction call — `providerOptions.sandscope.correction === true`, or a draft
 * prompt carrying verifier feedback — NEVER reads the cache. D-006: the cache
 * served the previous answer to a correction retry at 0.886 similarity against
 * a 0.60 threshold; the cache and the retry loop were each correct alone, and
 * nobody had asked whether a prompt collides with its own correction. A
 * correction may still write: its key differs, and its answer is a real answer.
 *
 * A cache that cannot be read or written degrades to a miss; the call is still
 * made (and still bounded by the spend guard beneath).
 */
export class CachedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'sandscope.cache';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly scope: CacheScope;
  private readonly emit: CacheEventSink;
  private readonly injectedFailures: boolean;
  /** Writes held for `commit` (S-012), by token. Per run: the cached model is built per run and dropped with it. */
  private readonly held = new Map<string, { lookup: CacheLookup; text: string }>();
  private nextToken = 0;

  constructor(
    readonly inner: LanguageModelV3,
    readonly cache: SemanticCache,
    options: CachedModelOptions,
  ) {
    this.modelId = inner.modelId;
    this.scope = { corpusVersion: options.corpusVersion, workload: options.workload };
    this.emit = options.onEvent ?? (() => {});
    this.injectedFailures = options.injectedFailures ?? false;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const lookup = this.cache.describe(this.scope, options);
    if (sandscopeOptions(options).judgement) {
      this.emit({ kind: 'bypass', reason: 'judgement', key: lookup.key });
      return this.inner.doGenerate(options);
    }
    const hit = await this.read(lookup, options);
    if (hit) {
      return {
        content: [{ type: 'text', text: hit.entry.text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: tokenUsage(0, 0),
        providerMetadata: withResultMetadata(undefined, { servedBy: 'cache', cache: hit.match, similarity: hit.similarity, cacheKey: hit.entry.key }),
        warnings: [],
      };
    }
    const result = await this.inner.doGenerate(options);
    const text =
      result.finishReason.unified === 'stop' && result.content.every((c) => c.type === 'text')
        ? result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
        : null;
    if (text === null || this.injectedFailures) return result;
    if (sandscopeOptions(options).deferCacheWrite) {
      const token = `w${++this.nextToken}`;
      this.held.set(token, { lookup, text });
      return { ...result, providerMetadata: withResultMetadata(result.providerMetadata, { cacheWriteToken: token, cacheKey: lookup.key }) };
    }
    await this.write(lookup, text);
    return { ...result, providerMetadata: withResultMetadata(result.providerMetadata, { cacheKey: lookup.key }) };
  }

  /**
   * Store a held answer (S-012): called once the draft it holds has passed the
   * citation check. An unknown or already-used token does nothing; a held write
   * never committed is dropped with this run's model.
   */
  async commit(token: string): Promise<void> {
    const held = this.held.get(token);
    if (!held) return;
    this.held.delete(token);
    await this.write(held.lookup, held.text);
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const lookup = this.cache.describe(this.scope, options);
    if (sandscopeOptions(options).judgement) {
      this.emit({ kind: 'bypass', reason: 'judgement', key: lookup.key });
      return this.inner.doStream(options);
    }
    const hit = await this.read(lookup, options);
    if (hit) {
      return {
        stream: textToStream(hit.entry.text, {
          usage: tokenUsage(0, 0),
          providerMetadata: withResultMetadata(undefined, { servedBy: 'cache', cache: hit.match, similarity: hit.similarity, cacheKey: hit.entry.key }),
        }),
      };
    }
    const result = await this.inner.doStream(options);
    let text = '';
    let cacheable = true;
    const write = (finalText: string): Promise<void> => this.write(lookup, finalText);
    const remember = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      async transform(part, controller) {
        if (part.type === 'text-delta') text += part.delta;
        else if (part.type === 'error' || part.type === 'tool-call' || part.type === 'file') cacheable = false;
        else if (part.type === 'finish') {
          // Written before the finish part is passed on, so a caller that has seen `finish` can rely on the entry.
          if (cacheable && part.finishReason.unified === 'stop') await write(text);
        }
        controller.enqueue(part);
      },
    });
    return { ...result, stream: result.stream.pipeThrough(remember) };
  }

  private async read(lookup: CacheLookup, options: LanguageModelV3CallOptions): Promise<CacheHit | null> {
    if (sandscopeOptions(options).correction === true || lookup.carriesFeedback) {
      this.emit({ kind: 'bypass', reason: 'correction', key: lookup.key });
      return null;
    }
    if (this.injectedFailures) {
      this.emit({ kind: 'bypass', reason: 'injected_failure', key: lookup.key });
      return null;
    }
    let hit: CacheHit | null;
    try {
      hit = await this.cache.lookup(lookup);
    } catch (error) {
      this.emit({ kind: 'miss', key: lookup.key, message: `cache unreadable: ${error instanceof Error ? error.message : String(error)}` });
      return null;
    }
    if (hit) this.emit({ kind: 'hit', match: hit.match, similarity: hit.similarity, key: lookup.key });
    else this.emit({ kind: 'miss', key: lookup.key });
    return hit;
  }

  private async write(lookup: CacheLookup, text: string): Promise<void> {
    if (this.injectedFailures) return;
    try {
      await this.cache.remember(lookup, text);
      this.emit({ kind: 'stored', key: lookup.key });
    } catch (error) {
      this.emit({ kind: 'store_failed', key: lookup.key, message: error instanceof Error ? error.message : String(error) });
    }
  }
}

/**
 * Words that turn a question into its opposite and that an embedder may not
 * see: the hashing embedder drops every one of them as a stopword, so "what
 * changed before the outage?" and "… after the outage?" embed at 1.000 and
 * retrieve the same passages — and the second was served the first's answer.
 */
const POLARITY_WORDS: ReadonlySet<string> = new Set([
  'no',
  'nor',
  'not',
  'cannot',
  'before',
  'after',
  'above',
  'below',
  'up',
  'down',
  'on',
  'off',
  'over',
  'under',
  'more',
  'most',
  'few',
  'only',
  'against',
]);

/**
 * The polarity words a question uses (contractions expanded: "aren't" has `not`),
 * sorted and de-duplicated. Part of the namespace, so a semantic match is only
 * looked for among questions that agree on them: similarity cannot be trusted
 * to separate a question from its opposite.
 */
function polarityOf(text: string): string {
  return [...new Set(words(text).filter((w) => POLARITY_WORDS.has(w)))].sort().join(',');
}

/**
 * The words that make a question that question: its content words, stemmed, and its question and modal words, sorted
 * and de-duplicated. Part of the namespace, so a semantic match is looked for only among questions that ask the same
 * thing of the same things, differing in inflection, contractions, function words or order ("what's the pool ceiling
 * for orders-db" and "What is the connection pool ceiling…" are not one: "connection"). S-248 (a colleague's audit of
 * the provider router, 2026-12-07): "Should we raise the connection pool ceiling for orders-db?" and "What is the
 * connection pool ceiling for orders-db replicas?" were each served the answer to "What is the connection pool ceiling
 * for orders-db?" at the hashing embedder's 0.92: one more word (an action asked about, another entity) moves a
 * bag-of-words vector little, and a confident answer to another question is the failure this product exists to prevent.
 * A miss costs one model call.
 */
function questionSignature(question: string): string {
  const kept = words(question).filter((w) => QUESTION_WORDS.has(w) || !isStopword(w));
  return [...new Set(kept.map((w) => (QUESTION_WORDS.has(w) ? w : stem(w))))].sort().join(',');
}

/** What a question asks (who, why, how…) and what it asks of the reader (should, can…): stopwords, but they set the question. */
const QUESTION_WORDS: ReadonlySet<string> = new Set('what which who whom whose when where why how should can could would will may might must shall'.split(' '));

/** Whitespace collapsed and Unicode normalised: prompts that differ only in layout are the same prompt. */
function normaliseText(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim();
}

function normalisePrompt(prompt: LanguageModelV3Prompt): { role: string; content: string }[] {
  return prompt.map((message) => ({
    role: message.role,
    content:
      typeof message.content === 'string'
        ? normaliseText(message.content)
        : message.content.map((part) => (part.type === 'text' ? normaliseText(part.text) : stableJson(part))).join('\n'),
  }));
}

/**
 * The options that change what a model would say. Transport (headers, abort
 * signal, raw chunks) and our own control plane are not part of the key — the
 * correction flag in particular must not be what separates a correction from
 * its original, or removing it would silently re-open D-006.
 */
function modelVisibleOptions(options: LanguageModelV3CallOptions): unknown {
  const { [SANDSCOPE_KEY]: _control, ...providerOptions } = options.providerOptions ?? {};
  void _control;
  return {
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    stopSequences: options.stopSequences,
    topP: options.topP,
    topK: options.topK,
    presencePenalty: options.presencePenalty,
    frequencyPenalty: options.frequencyPenalty,
    responseFormat: options.responseFormat,
    seed: options.seed,
    tools: options.tools,
    toolChoice: options.toolChoice,
    providerOptions,
  };
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
