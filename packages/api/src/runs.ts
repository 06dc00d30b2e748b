import { OUTCOME_WORDS, OUTCOMES, type Outcome, type OutcomeWords, outcomeHasAnswer, outcomeWords, REFUSAL_CLAIMS } from '@sandscope/engine/outcome';
import { WORKLOAD_IDS } from '@sandscope/engine/workload-id';
import { z } from 'zod';

/** The prefix of the reason that carries the model's numbers (shown behind a disclosure). */
export { NUMBERS_PREFIX } from '@sandscope/engine/reason-format';
export { askAgainQuestions } from '@sandscope/engine/ask-again';
/** The closest passages an answer does not cite, named beside it (S-190): one rule for the CLI, the page and the record. */
export { passagesBeside } from '@sandscope/engine/passages-beside';
/** How an answer's claims stood in their passages: the layout the answer text and the run page both print. */
export { type AnswerPart, answerLayout } from '@sandscope/engine/answer-layout';
/** A workload a person typed or posted: the one rule the CLI, the agent and the console read it by (S-140). */
export { isWorkload, parseWorkload } from '@sandscope/engine/workload-id';

/*
 * The agent's run responses (docs/API.md) as zod schemas: what the agent's
 * HTTP tests hold its responses to, and what the website parses them with
 * instead of casting. One file on purpose: the website's compiler options
 * cannot follow a relative `.ts` import, and a package it cannot type-check is
 * a contract it cannot use. The imports from the engine are the outcome
 * vocabulary and the workload ids, which import nothing but types, and the answer's layout, which
 * imports only the passage parse (apps/web's tsconfig allows the `.ts` import).
 *
 * Objects are not strict: a field the agent adds is ignored (stripped) by an
 * older website rather than breaking it; a field the website reads is checked.
 */

export { OUTCOME_WORDS, OUTCOMES, outcomeHasAnswer, outcomeWords, type Outcome, type OutcomeWords };

export const outcomeSchema = z.enum(OUTCOMES);
export const verdictSchema = z.enum(['answered', 'partial', 'refused']);
/** What a refusal claims (S-108): the library does not answer, the model is unsure, or the library disagrees with itself. */
export const refusalClaimSchema = z.enum(REFUSAL_CLAIMS);
export const bandSchema = z.enum(['insufficient', 'ambiguous', 'sufficient']);
export const terminalSchema = z.enum(['refuse', 'escalate', 'await_approval', 'emit']);
export const workloadSchema = z.enum(WORKLOAD_IDS);
export const runStatusSchema = z.enum(['running', 'completed', 'interrupted', 'failed']);
export const providerEventKindSchema = z.enum(['served', 'failed', 'rate_limited', 'skipped_cooldown', 'outside_reservation', 'injected_failure']);

export type Verdict = z.infer<typeof verdictSchema>;
export type RefusalClaim = z.infer<typeof refusalClaimSchema>;
export type Band = z.infer<typeof bandSchema>;
export type Terminal = z.infer<typeof terminalSchema>;
export type Workload = z.infer<typeof workloadSchema>;
/** The workloads in the order the console offers them. */
export const WORKLOADS: readonly Workload[] = workloadSchema.options;
export type RunStatus = z.infer<typeof runStatusSchema>;
export type ProviderEventKind = z.infer<typeof providerEventKindSchema>;

/**
 * Where a cited passage of a run's record was read from (S-257): `record`, the passage as the run read it, kept with
 * its record; `library`, the library's passage as it is now — a citation recorded before passages were kept, whose run
 * left none, and which may differ from what the run read.
 */
export const citedTextFromSchema = z.enum(['record', 'library']);
export type CitedTextFrom = z.infer<typeof citedTextFromSchema>;

/** A cited passage. `textFrom` is set on a run's record (`GET /v1/runs/:id`); absent from a live result and from an agent older than S-257. */
export const sourceSchema = z.object({ chunkId: z.string(), doc: z.string(), heading: z.string(), text: z.string(), textFrom: citedTextFromSchema.optional() });
export type Source = z.infer<typeof sourceSchema>;

/** The deterministic risk score on the proposed action; `factors` are readable lines. */
export const riskSchema = z.object({
  score: z.number(),
  factors: z.array(z.string()),
  threshold: z.number(),
  service: z.string().optional(),
});
export type Risk = z.infer<typeof riskSchema>;

/**
 * A word of the question the library never uses, where it was typed, and the library's words one edit from it (S-179):
 * what assess_evidence's span keeps (`data.nearMisses`) for a refusal's page to offer the question again (S-180).
 */
export const nearMissSchema = z.object({ written: z.string().min(1), at: z.number().int().nonnegative(), library: z.array(z.string().min(1)) });
export type NearMiss = z.infer<typeof nearMissSchema>;

/** A node starting or ending, streamed as `event: node` and stored as a span. */
export const nodeEventSchema = z.object({
  runId: z.string(),
  seq: z.number(),
  node: z.string(),
  kind: z.enum(['start', 'end', 'event']),
  at: z.string(),
  durationMs: z.number().optional(),
  data: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type NodeEvent = z.infer<typeof nodeEventSchema>;

/** A provider event: streamed (`tokensIn`/`tokensOut`) or stored (`tokens`, their sum). */
export const providerEventSchema = z.object({
  runId: z.string().optional(),
  seq: z.number().optional(),
  provider: z.string(),
  kind: providerEventKindSchema,
  status: z.number().optional(),
  message: z.string().optional(),
  latencyMs: z.number().optional(),
  tokensIn: z.number().optional(),
  tokensOut: z.number().optional(),
  tokens: z.number().optional(),
  costUsd: z.number().optional(),
  at: z.string().optional(),
});
export type ProviderEvent = z.infer<typeof providerEventSchema>;

/** The service always runs under RUN_BUDGET_USD, so a ceiling is always reported. */
export const spendSchema = z.object({
  reservedUsd: z.number(),
  spentUsd: z.number(),
  ceilingUsd: z.number(),
  ledger: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type Spend = z.infer<typeof spendSchema>;

/**
 * `event: result` of `POST /v1/runs`, and `run` of `POST /v1/runs/:id/approve`.
 * `verdict` is the evidence gate's decision and `terminal` where the run
 * stopped; `outcome` is the one reading of the two that every surface shows.
 */
export const runResultSchema = z.object({
  runId: z.string(),
  parentRunId: z.string().nullable(),
  verdict: verdictSchema,
  band: bandSchema,
  score: z.number().nullable(),
  reasons: z.array(z.string()),
  /** Null unless refused; absent from an agent older than S-108. */
  refusal: refusalClaimSchema.nullable().optional(),
  /** The question again with each slip a refusal offers a word for replaced by it (S-180); absent from an agent older than S-180. */
  askAgain: z.array(z.string()).optional(),
  answer: z.string(),
  claims: z.array(z.object({ text: z.string(), citations: z.array(z.string()) })),
  sources: z.array(sourceSchema),
  degraded: z.boolean(),
  timingsMs: z.record(z.string(), z.number()).optional(),
  terminal: terminalSchema,
  outcome: outcomeSchema,
  workload: workloadSchema,
  risk: riskSchema.nullable(),
  action: z.string().nullable(),
  trace: z.array(nodeEventSchema).optional(),
  providers: z.array(providerEventSchema).optional(),
  spend: spendSchema.optional(),
});
export type RunResult = z.infer<typeof runResultSchema>;

export const approvalResponseSchema = z.object({ run: runResultSchema });

/** One line of `GET /v1/runs`. verdict, terminal and outcome are null until the run reaches a terminal. */
export const runSummarySchema = z.object({
  id: z.string(),
  question: z.string(),
  workload: workloadSchema,
  status: runStatusSchema,
  terminal: terminalSchema.nullable(),
  verdict: verdictSchema.nullable(),
  outcome: outcomeSchema.nullable(),
  band: bandSchema.nullable(),
  score: z.number().nullable(),
  costUsd: z.number().nullable(),
  createdAt: z.string(),
  parentRunId: z.string().nullable(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

export const runListSchema = z.object({
  runs: z.array(runSummarySchema),
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
});
export type RunList = z.infer<typeof runListSchema>;

export const feedbackLabelSchema = z.enum(['wrong-answer', 'wrong-refusal', 'right']);
export type FeedbackLabel = z.infer<typeof feedbackLabelSchema>;

/**
 * A run's one mark (`POST /v1/runs/:id/feedback`; marking again replaces it). `evidence` (S-286): the id of the passage
 * the person named as answering, null where they named none; absent from an agent before S-286.
 */
export const feedbackSchema = z.object({
  label: feedbackLabelSchema,
  note: z.string().nullable(),
  evidence: z.string().nullable().optional(),
  createdAt: z.string(),
});
export type Feedback = z.infer<typeof feedbackSchema>;

/**
 * What a `wrong-answer` mark did to the run's answer in the semantic cache (S-132, S-264): `removed` false where the
 * cache could not be reached or refused; the answer is not served from it all the same, and `message` says so.
 */
export const cacheRemovalSchema = z.object({ removed: z.boolean(), message: z.string() });
export type CacheRemoval = z.infer<typeof cacheRemovalSchema>;

/**
 * `POST /v1/runs/:id/feedback`. `cache` is null for another label or a run none of whose drafts was cached; absent from an
 * agent before S-264. `replaced` (S-289): the mark this one replaced, as it was (null: the run had none); absent from an
 * agent before S-289 — marking again replaced a colleague's mark without a word.
 */
export const feedbackResponseSchema = z.object({
  feedback: feedbackSchema,
  cache: cacheRemovalSchema.nullable().optional(),
  replaced: feedbackSchema.nullable().optional(),
});

/** `GET /v1/runs/:id`. */
export const runDetailSchema = z.object({
  run: runSummarySchema.extend({
    answer: z.string().nullable(),
    action: z.string().nullable(),
    risk: riskSchema.nullable(),
    reasons: z.array(z.string()),
    /** Whether the asking session requested this run (it alone may approve it, T-17). */
    sessionOwned: z.boolean(),
    /** Why a run is `failed` or `interrupted`; null otherwise. */
    error: z.string().nullable().optional(),
    finishedAt: z.string().nullable().optional(),
  }),
  spans: z.array(nodeEventSchema),
  claims: z.array(z.object({ index: z.number(), text: z.string(), citations: z.array(sourceSchema) })),
  providerEvents: z.array(providerEventSchema),
  spend: spendSchema.nullable(),
  parent: z.object({ id: z.string(), terminal: terminalSchema.nullable() }).nullable(),
  children: z.array(z.object({ id: z.string(), terminal: terminalSchema.nullable(), createdAt: z.string() })),
  feedback: feedbackSchema.nullable().optional(),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

/**
 * `POST /v1/runs` body as the website sends it. The agent parses it with its own
 * strict schema (apps/agent/src/http/run-request.ts), which adds the limits and
 * names an unknown field back; this is the shape both sides agree on.
 */
export const runRequestSchema = z.object({ question: z.string(), workload: workloadSchema.optional(), failProviders: z.array(z.string()).optional() });
export type RunRequest = z.infer<typeof runRequestSchema>;
