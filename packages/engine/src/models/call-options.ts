import type { JSONValue, LanguageModelV3CallOptions, SharedV3ProviderMetadata } from '@ai-sdk/provider';

/**
 * Sandscope's own per-call control plane, carried in `providerOptions.sandscope`
 * — the AI SDK's place for options that only some implementations understand —
 * so every layer of the stack stays a plain `LanguageModelV3`.
 */
export interface SandscopeCallOptions {
  /**
   * This call is a verify→hypothesise retry carrying feedback. It must never be
   * answered from the cache (D-006: the cache served the previous answer to a
   * correction retry at 0.886 similarity against a 0.60 threshold).
   */
  readonly correction?: boolean;
  /**
   * Providers the spend guard sized its reservation for. The router serves only
   * from these, so the reservation is an upper bound on whoever answers (D-010).
   */
  readonly eligible?: readonly string[];
  /**
   * Hold the cache write until the caller commits it (S-012). A cache entry
   * claims "this is a good answer to this prompt"; a draft earns that only
   * after the citation check passes, so the graph commits after verify.
   */
  readonly deferCacheWrite?: boolean;
  /**
   * An adjudicator's judgement about these exact passages. Never read from or
   * written to the cache: a semantically similar prompt names other passages,
   * and its verdict is no verdict about these.
   */
  readonly judgement?: boolean;
  /**
   * What the spend guard reserved for this call, and what each candidate it covers could cost (its prompt as priced
   * and the output cap sent). S-249: a failed attempt that was billed (a timeout charged at its bound, an empty reply)
   * spends part of the reservation, and failing over to the next candidate could spend past it — and past the run's
   * and the day's ceilings (a colleague's audit: $0.022494 against a $0.02 ceiling). The router tries a later
   * candidate only while what is left of the reservation covers it; the free offline model always is.
   */
  readonly reservation?: CallReservation;
}

/** A reservation as the router reads it (SandscopeCallOptions.reservation). A type, so it is JSON provider options can carry. */
export type CallReservation = { readonly usd: number; readonly costs: Readonly<Record<string, number>> };

/**
 * An attempt that failed after its provider reported usage — an empty reply, a
 * 2xx body that failed validation — and so was billed. A type, not an
 * interface, so it is the JSON provider metadata can carry.
 */
export type BilledAttempt = { readonly provider: string; readonly inputTokens: number; readonly outputTokens: number };

/** Who answered, attached to results and to the stream's `finish` part. */
export interface SandscopeResultMetadata {
  /** Router candidate name, or `cache` for a cache hit. */
  readonly servedBy?: string;
  /** Attempts before the one that served which failed but were billed: the spend guard charges them too. */
  readonly billed?: BilledAttempt[];
  readonly cache?: 'exact' | 'semantic';
  readonly similarity?: number;
  /** Token for a held cache write (see `deferCacheWrite`); commit it to store the answer. */
  readonly cacheWriteToken?: string;
  /**
   * The cache entry this reply is: the one served (a semantic hit's is another
   * question's), or the one it is or will be stored under. Recorded with the run,
   * so a person's "wrong answer" mark can evict it (S-132).
   */
  readonly cacheKey?: string;
}

/** The `providerOptions` / `providerMetadata` key Sandscope owns. */
export const SANDSCOPE_KEY = 'sandscope';

/** This call's Sandscope options, read defensively: anything malformed counts as absent. */
export function sandscopeOptions(options: LanguageModelV3CallOptions): SandscopeCallOptions {
  const raw = options.providerOptions?.[SANDSCOPE_KEY];
  if (!raw || typeof raw !== 'object') return {};
  const correction = raw['correction'] === true;
  const deferCacheWrite = raw['deferCacheWrite'] === true;
  const judgement = raw['judgement'] === true;
  const eligibleRaw = raw['eligible'];
  const eligible = Array.isArray(eligibleRaw) ? eligibleRaw.filter((x): x is string => typeof x === 'string') : undefined;
  const reservation = callReservation(raw['reservation']);
  return {
    correction,
    ...(deferCacheWrite ? { deferCacheWrite } : {}),
    ...(judgement ? { judgement } : {}),
    ...(eligible ? { eligible } : {}),
    ...(reservation ? { reservation } : {}),
  };
}

/** A reservation read defensively: malformed is absent (the router then fails over as it did before S-249). */
function callReservation(raw: unknown): CallReservation | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { usd, costs } = raw as Record<string, unknown>;
  if (typeof usd !== 'number' || !Number.isFinite(usd) || typeof costs !== 'object' || costs === null) return undefined;
  const priced = Object.entries(costs).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
  return { usd, costs: Object.fromEntries(priced) };
}

/** Options with `providerOptions.sandscope` merged with `patch`. */
export function withSandscopeOptions(options: LanguageModelV3CallOptions, patch: SandscopeCallOptions): LanguageModelV3CallOptions {
  const current = options.providerOptions?.[SANDSCOPE_KEY] ?? {};
  const next: Record<string, unknown> = { ...current };
  if (patch.correction !== undefined) next['correction'] = patch.correction;
  if (patch.eligible !== undefined) next['eligible'] = [...patch.eligible];
  if (patch.deferCacheWrite !== undefined) next['deferCacheWrite'] = patch.deferCacheWrite;
  if (patch.judgement !== undefined) next['judgement'] = patch.judgement;
  if (patch.reservation !== undefined) next['reservation'] = { usd: patch.reservation.usd, costs: { ...patch.reservation.costs } };
  return {
    ...options,
    providerOptions: { ...options.providerOptions, [SANDSCOPE_KEY]: next as Record<string, JSONValue> },
  };
}

/**
 * Options as a provider should see them: our control plane removed, because it
 * is not the provider's business and must never be sent over the wire.
 */
export function withoutSandscopeOptions(options: LanguageModelV3CallOptions): LanguageModelV3CallOptions {
  if (!options.providerOptions || !(SANDSCOPE_KEY in options.providerOptions)) return options;
  const { [SANDSCOPE_KEY]: _dropped, ...rest } = options.providerOptions;
  void _dropped;
  return { ...options, providerOptions: rest };
}

/** Who served a result (router name or `cache`), read from its provider metadata. */
export function readResultMetadata(metadata: SharedV3ProviderMetadata | undefined): SandscopeResultMetadata {
  const raw = metadata?.[SANDSCOPE_KEY];
  if (!raw) return {};
  const servedBy = typeof raw['servedBy'] === 'string' ? raw['servedBy'] : undefined;
  const cache = raw['cache'] === 'exact' || raw['cache'] === 'semantic' ? raw['cache'] : undefined;
  const similarity = typeof raw['similarity'] === 'number' ? raw['similarity'] : undefined;
  const cacheWriteToken = typeof raw['cacheWriteToken'] === 'string' ? raw['cacheWriteToken'] : undefined;
  const cacheKey = typeof raw['cacheKey'] === 'string' ? raw['cacheKey'] : undefined;
  const billed = Array.isArray(raw['billed']) ? billedAttempts(raw['billed']) : undefined;
  return {
    ...(billed?.length ? { billed } : {}),
    ...(servedBy ? { servedBy } : {}),
    ...(cache ? { cache } : {}),
    ...(similarity !== undefined ? { similarity } : {}),
    ...(cacheWriteToken ? { cacheWriteToken } : {}),
    ...(cacheKey ? { cacheKey } : {}),
  };
}

/** Provider metadata with Sandscope's result annotations merged in; other providers' keys are kept. */
export function withResultMetadata(metadata: SharedV3ProviderMetadata | undefined, patch: SandscopeResultMetadata): SharedV3ProviderMetadata {
  return { ...metadata, [SANDSCOPE_KEY]: { ...metadata?.[SANDSCOPE_KEY], ...patch } };
}

/** Billed attempts read defensively: an entry that is not one is dropped. */
export function billedAttempts(raw: readonly unknown[]): BilledAttempt[] {
  return raw.flatMap((item) => {
    if (typeof item !== 'object' || item === null) return [];
    const { provider, inputTokens, outputTokens } = item as Record<string, unknown>;
    return typeof provider === 'string' && typeof inputTokens === 'number' && typeof outputTokens === 'number' ? [{ provider, inputTokens, outputTokens }] : [];
  });
}
