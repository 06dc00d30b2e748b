import { sourceSchema } from '@sandscope/api';
import { z } from 'zod';

/*
 * The agent's investigation responses (docs/API.md, issue 10) as zod schemas:
 * what the website parses them with instead of casting. A file of its own, with
 * no relative imports, for the reason runs.ts gives (the website's compiler
 * cannot follow a relative `.ts` import). Not strict, like runs.ts: a field the
 * agent adds is stripped, a field the website reads is checked.
 */

/** An investigation as created, renamed and opened. */
export const investigationSchema = z.object({ id: z.string(), title: z.string(), createdAt: z.string(), updatedAt: z.string() });
export type Investigation = z.infer<typeof investigationSchema>;

/** A line of `GET /v1/investigations`. */
export const investigationSummarySchema = investigationSchema.extend({ fileCount: z.number(), messageCount: z.number() });
export type InvestigationSummary = z.infer<typeof investigationSummarySchema>;

export const investigationListSchema = z.object({ investigations: z.array(investigationSummarySchema) });

/** `POST /v1/investigations` (201) and `PATCH /v1/investigations/:id`. */
export const investigationResponseSchema = z.object({ investigation: investigationSchema });

/**
 * A workspace file without its content. `error` is the reason a file is
 * `error` (seed #15: the embedder failed; the file is still searchable).
 */
export const investigationFileInfoSchema = z.object({
  path: z.string(),
  sizeBytes: z.number(),
  status: z.enum(['ok', 'error']),
  error: z.string().nullable(),
  createdAt: z.string(),
});
export type InvestigationFileInfo = z.infer<typeof investigationFileInfoSchema>;

/** `PUT /v1/investigations/:id/files/<path>` (201). */
export const investigationFileResponseSchema = z.object({ file: investigationFileInfoSchema });

/** `GET /v1/investigations/:id/files/<path>`: the file with its content. */
export const investigationFileSchema = investigationFileInfoSchema.extend({ content: z.string() });
export type InvestigationFile = z.infer<typeof investigationFileSchema>;
export const investigationFileContentResponseSchema = z.object({ file: investigationFileSchema });

/** A claim's evidence: file lines (1-based, inclusive) or a runbook passage. */
export const turnCitationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), path: z.string(), startLine: z.number(), endLine: z.number() }),
  z.object({ kind: z.literal('passage'), chunkId: z.string() }),
]);
export type TurnCitation = z.infer<typeof turnCitationSchema>;
/** How the answer text and the CLI name a citation (`app.log:4312-4318`, or the passage id): the page names it so too. */
export { citationLabel } from '@sandscope/engine/turn-citation';
/** A file's lines as the tools count them and citations name them (S-272: a bare `\r` ends a line too): the file view numbers them so. */
export { fileLines } from '@sandscope/engine/file-lines';

export const turnClaimSchema = z.object({ text: z.string(), citations: z.array(turnCitationSchema) });
export type TurnClaim = z.infer<typeof turnClaimSchema>;

/** `sandboxed`: a provisioned tool (jq, log_summary) run in the bubblewrap jail; absent for the in-process workspace tools. */
export const toolCallSchema = z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()), ok: z.boolean(), sandboxed: z.boolean().optional() });
export type ToolCall = z.infer<typeof toolCallSchema>;

/** Seed #22: what an answer cost, persisted with it, so a reload shows what the live turn showed. */
export const turnMetricsSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  elapsedMs: z.number(),
  costUsd: z.number(),
  provider: z.string(),
});
export type TurnMetrics = z.infer<typeof turnMetricsSchema>;

/** What a turn produced besides its text: stored as an assistant message's `result`, and part of the turn response. */
export const turnResultSchema = z.object({
  claims: z.array(turnClaimSchema),
  citations: z.array(turnCitationSchema),
  toolCalls: z.array(toolCallSchema),
  unknown: z.array(z.string()),
  notes: z.array(z.string()),
  mode: z.enum(['provider', 'offline']),
  /**
   * The runbook passages the claims cite, with their text (a run's `sources`): what lays a procedure's claims out as
   * its numbered steps and a command's lines as one block. Absent from turns stored before it was added.
   */
  passages: z.array(sourceSchema).default([]),
  /**
   * The turn this answers (its question's message id): two turns asked at once store both questions before either
   * answer, so the order of the messages does not pair them. Absent from turns stored before it was added.
   */
  turnId: z.number().optional(),
});
export type TurnResult = z.infer<typeof turnResultSchema>;

/** `POST /v1/investigations/:id/turns` (JSON), and the `result` event's `turn` when streamed. */
export const turnSchema = turnResultSchema.extend({
  investigationId: z.string(),
  /** The turn's id: its events replay from `GET /v1/investigations/:id/turns/:turnId/events` (Last-Event-ID). */
  turnId: z.number(),
  messageId: z.number(),
  answer: z.string(),
  metrics: turnMetricsSchema,
});
export type Turn = z.infer<typeof turnSchema>;
export const turnResponseSchema = z.object({ turn: turnSchema });

/**
 * Why a question has no answer and will get none (S-270): its turn was stopped (`shutting_down`), failed (`internal`,
 * `store_unavailable`) or went silent (`interrupted`). `reason` is a sentence for the person who asked; ask again.
 */
export const turnInterruptionSchema = z.object({ code: z.string(), reason: z.string() });
export type TurnInterruption = z.infer<typeof turnInterruptionSchema>;

/** One message of the conversation; `result` and `metrics` are null on a user message, `interrupted` is on a question only. */
export const investigationMessageSchema = z.object({
  id: z.number(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  result: turnResultSchema.nullable(),
  metrics: turnMetricsSchema.nullable(),
  createdAt: z.string(),
  interrupted: turnInterruptionSchema.optional(),
});
export type InvestigationMessage = z.infer<typeof investigationMessageSchema>;

/** `GET /v1/investigations/:id`: the investigation, its files (status, no content) and its conversation. */
export const investigationDetailSchema = z.object({
  investigation: investigationSchema,
  files: z.array(investigationFileInfoSchema),
  messages: z.array(investigationMessageSchema),
});
export type InvestigationDetail = z.infer<typeof investigationDetailSchema>;
