import { DEFAULT_NODE_SPAN_ATTRIBUTES } from '../telemetry/span-exporter.ts';

/**
 * The allowlist every run's node events pass through before they are stored as
 * spans AND before they are streamed (T-16): what a client sees live is exactly
 * what `GET /v1/runs/:id` reads back later, and nothing else.
 *
 * Added to the exporter's defaults, each because every value it can carry is the
 * system's own output — passage ids, scores, estate names, the verifier's verdict
 * on a draft — never a secret, a client address, or the text a person typed:
 * - `workload`, `entities`, `services` (classify): the workload id and names the corpus/estate knows;
 * - `top`, `context`, `evidence`, `carrier`, `closest`, `nextClosest` (retrieve, assess_evidence, adjudicate): passage ids and scores;
 * - `degradedReason` (retrieve): why the embedder was unavailable, written by the retriever;
 * - `refusal` (assess_evidence, adjudicate): what a refusal claims — absent, unsure or conflict (S-108), a word of the gate's;
 * - `decision` (adjudicate), `ok`, `failing` (verify), `correction`, `feedback` (hypothesise): the
 *   verifier's findings about the model's draft, whose claims are stored as citations anyway;
 * - `kind`, `factors`, `threshold`, `service`, `gated` (propose_action, risk_gate): estate-derived risk;
 * - `approvedFrom` (an approval run's emit): the gated run's id;
 * - `cacheKey` (hypothesise): the semantic cache entry the draft is, a sha-256 — what a "wrong answer" mark evicts (S-132).
 * - `nearMisses` (assess_evidence): a word of the question the library never uses and the library's words one edit
 *   from it (S-179), from which a refusal's page offers the question again (S-180). It quotes the question's word as
 *   `reasons` do, so it is withheld from a tracing collector as they are (OTLP_WITHHELD_ATTRIBUTES).
 *
 * Deliberately NOT allowed: `query` and `action` (they embed the question, which is user
 * input and may hold anything pasted into it) and `error` (an exception message can carry
 * whatever a provider or library put in it). They are dropped, and counted, not redacted.
 */
export const RUN_SPAN_ATTRIBUTES: readonly string[] = [
  ...DEFAULT_NODE_SPAN_ATTRIBUTES,
  'workload',
  'entities',
  'services',
  'top',
  'context',
  'evidence',
  'carrier',
  'closest',
  'nextClosest',
  'refusal',
  'degradedReason',
  'decision',
  'ok',
  'failing',
  'correction',
  'feedback',
  'kind',
  'factors',
  'threshold',
  'service',
  'gated',
  'approvedFrom',
  'cacheKey',
  'nearMisses',
];
