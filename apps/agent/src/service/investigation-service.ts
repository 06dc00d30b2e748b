import { type Embedder, EmbedderUnavailableError, HashingEmbedder, type KnowledgeBase } from '@sandscope/engine';
import type { ProviderHealth, RouterCandidate, SecretScrubber, SpendLedger } from '@sandscope/engine/models';
import {
  answerTurn,
  filePassages,
  type SandboxToolsOption,
  type SimilarLinesOptions,
  type SimilarLinesResult,
  similarLines,
  type ToolCallRecord,
  type TurnCitation,
  type TurnClaim,
  type TurnEvent,
  type TurnOutcome,
  turnPassages,
  type WorkspaceFileInfo,
  type WorkspaceFiles,
  WorkspaceToolbox,
} from '@sandscope/engine/workspace';
import {
  appendInvestigationMessage,
  appendTurnEvent,
  createInvestigation,
  type Database,
  deleteInvestigation,
  type FilePassageEmbeddings,
  getInvestigation,
  type InvestigationFile,
  type InvestigationFileInfo,
  type InvestigationMessage,
  type InvestigationRecord,
  type InvestigationSummary,
  listInvestigationFiles,
  listInvestigationMessages,
  listInvestigations,
  listTurnEnds,
  listTurnEvents,
  normalizeTitle,
  putInvestigationFile,
  readInvestigationFile,
  removeInvestigationFile,
  renameInvestigation,
  similarInvestigationPassages,
  StoreError,
  type TurnEventPage,
  type TurnEventType,
  type TurnMetrics,
} from '@sandscope/store';
import { charCount } from '../char-count.ts';
import { decodeCorpusText } from '../corpus-text.ts';
import { ReplicaStoppingError, RunsInFlight } from './runs-in-flight.ts';
import { echoed, MAX_ECHOED_CHARS, ServiceError } from './service-error.ts';
import { answeredTurnOf, interruptedTurns, type TurnInterruption, unansweredNote } from './turn-interruptions.ts';

/** Writes of a turn's `result` or `error` event before it is given up (a blip, not an outage), and the first wait between them. */
const TERMINAL_EVENT_WRITE_ATTEMPTS = 3;
const TERMINAL_EVENT_RETRY_MS = 100;

export interface InvestigationSettings {
  readonly readFileMaxLines: number;
  readonly readFileMaxChars: number;
  readonly historyMaxMessages: number;
  /** HISTORY_MAX_CHARS: the replayed window's size in characters (history.ts). */
  readonly historyMaxChars?: number;
  readonly fileMaxBytes: number;
  readonly maxMessageChars: number;
  /** INVESTIGATION_MAX_STEPS: model calls one turn with a provider may make. */
  readonly maxSteps: number;
}

/** The providers a turn may call, shared with runs: the same candidates, cooldowns and per-run budget. */
export interface InvestigationModels {
  readonly candidates: readonly RouterCandidate[];
  readonly health: ProviderHealth;
  readonly budgetUsd: number;
  /** RUN_TOKEN_BUDGET: what a turn reserves from the client's daily ceiling at admission, and may not use more than. */
  readonly tokenCeiling?: number;
  readonly scrub?: SecretScrubber;
  /** The deployment's daily ceiling, shared with runs (DAILY_SPEND_CEILING_USD). */
  readonly ledger?: SpendLedger;
}

/**
 * A message of the conversation as it is shown: a question that will never be answered says why (S-270), so the
 * person can ask it again.
 */
export type ConversationMessage = InvestigationMessage & { readonly interrupted?: TurnInterruption };

/** An investigation opened: its files (status, no content) and its conversation, metrics on each answer (seed #22). */
export interface InvestigationDetail {
  readonly investigation: InvestigationRecord;
  readonly files: readonly InvestigationFileInfo[];
  readonly messages: readonly ConversationMessage[];
}

/**
 * A turn stopped because its replica is shutting down (S-269), after its `error` event was stored: its question reads
 * as interrupted, and its client is told `shutting_down` (ask again).
 */
export class TurnStoppedError extends ReplicaStoppingError {
  constructor(readonly turnId: number) {
    super(`Turn ${turnId} was stopped before it finished and is recorded interrupted; your question is kept.`);
  }
}

/** What `ask --json` prints and `POST /v1/investigations/:id/turns` answers (issue 10's shape). */
export interface TurnView {
  readonly investigationId: string;
  /** The turn: the id of the user message that asked it; its events replay from GET …/turns/:turnId/events. */
  readonly turnId: number;
  readonly messageId: number;
  readonly answer: string;
  readonly claims: readonly TurnClaim[];
  readonly citations: readonly TurnCitation[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly unknown: readonly string[];
  /** A fallback to the offline planner, claims the citation check dropped, the step limit — said, not hidden. */
  readonly notes: readonly string[];
  /** `provider`: the tool-calling loop answered; `offline`: the deterministic planner did. */
  readonly mode: 'provider' | 'offline';
  readonly metrics: TurnMetrics;
}

/**
 * The investigation workspace at the edge: the store's records, the engine's
 * tools and planner, the configured caps. The store's refusals become
 * ServiceErrors here, once, so HTTP answers 404/400/413 and the CLI one line —
 * never a 500 for a person's mistake. Every check on a file or a message runs
 * before anything is written, so a refused request loses nothing.
 */
export class InvestigationService {
  readonly #db: Database;
  readonly #kb: KnowledgeBase;
  readonly #models: InvestigationModels | undefined;
  readonly #embedder: Embedder;
  readonly #sandbox: SandboxToolsOption | undefined;
  readonly #inFlight: RunsInFlight;
  readonly settings: InvestigationSettings;

  /**
   * Without `models` (or with only the offline model among them) every turn is
   * the offline planner's. `embedder` embeds uploaded files and the searches
   * over them: the remote embedder (KB_EMBED_BASE_URL, seed #15) when one is
   * configured, else the hashing embedder (no service is called). `sandbox` is the
   * jailed tools turned on (seed #21, sandbox-tools-of.ts), or why none are. `inFlight` is the replica's runs and
   * turns in flight, which the run service shares (S-269); default: one of its own (the CLI's one-shot service).
   */
  constructor(options: {
    db: Database;
    kb: KnowledgeBase;
    settings: InvestigationSettings;
    models?: InvestigationModels;
    embedder?: Embedder;
    sandbox?: SandboxToolsOption;
    inFlight?: RunsInFlight;
  }) {
    this.#sandbox = options.sandbox;
    this.#inFlight = options.inFlight ?? new RunsInFlight();
    this.#db = options.db;
    this.#kb = options.kb;
    this.#models = options.models;
    this.#embedder = options.embedder ?? new HashingEmbedder();
    this.settings = options.settings;
  }

  create(title: unknown): Promise<InvestigationRecord> {
    return converted(async () => createInvestigation(this.#db, { title: oneLine(title) as string }));
  }

  list(): Promise<InvestigationSummary[]> {
    return listInvestigations(this.#db);
  }

  async show(id: string): Promise<InvestigationDetail> {
    return converted(async () => {
      const investigation = await getInvestigation(this.#db, id);
      if (!investigation) throw new StoreError('investigation_not_found', `there is no investigation ${id}`);
      const messages = await listInvestigationMessages(this.#db, id);
      const interrupted = await this.#interrupted(id, messages);
      return {
        investigation,
        files: await listInvestigationFiles(this.#db, id),
        messages: messages.map((m) => {
          const why = interrupted.get(m.id);
          return why ? { ...m, interrupted: why } : m;
        }),
      };
    });
  }

  /** The questions of this conversation that will never be answered, and why (S-270). */
  async #interrupted(id: string, messages: readonly InvestigationMessage[]): Promise<Map<number, TurnInterruption>> {
    const asked = messages.filter((m) => m.role === 'user').map((m) => m.id);
    return interruptedTurns(messages, await listTurnEnds(this.#db, id, asked), Date.now());
  }

  /**
   * Runs `work` — the caller's whole handling of a turn: the turn, telling its client, settling what was reserved
   * for it — as one of the replica's turns in flight, with the signal that stops it (S-269). `ask` takes the signal.
   */
  hold<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.#inFlight.hold(work, 'turn');
  }

  rename(id: string, title: unknown): Promise<InvestigationRecord> {
    return converted(async () => renameInvestigation(this.#db, id, oneLine(title) as string));
  }

  remove(id: string): Promise<void> {
    return converted(() => deleteInvestigation(this.#db, id));
  }

  /**
   * Adds (or replaces) a file. Refused before it is stored: over
   * INVESTIGATION_FILE_MAX_BYTES, binary, or not UTF-8 — the tools read text,
   * and a log of mojibake would be searched and cited as if it said something.
   */
  addFile(id: string, path: string, bytes: Uint8Array): Promise<InvestigationFileInfo> {
    return converted(async () => {
      const content = investigationFileText(path, bytes, this.settings.fileMaxBytes);
      if (!(await getInvestigation(this.#db, id))) throw new StoreError('investigation_not_found', `there is no investigation ${id}`);
      const embedded = await this.#embed(content);
      const file = { path, content, ...(embedded.ok ? { embeddings: embedded.embeddings } : { status: 'error' as const, error: embedded.reason }) };
      // The file and its passages are one write: a reader never sees the new text ranked by the old vectors.
      return this.#db.transaction((tx) => putInvestigationFile(tx, id, file));
    });
  }

  /**
   * Seed #15: the file's passages through the configured embedder, kept with
   * the file so search_files can rank lines by meaning. A remote embedder
   * has already retried each batch; what still fails marks THIS file `error`
   * with the reason, and the file is stored all the same — search_files and
   * read_file read its text, and no other file is touched. Only the
   * embedder's outage is caught: a bug still fails the upload loudly.
   */
  async #embed(content: string): Promise<{ ok: true; embeddings: FilePassageEmbeddings } | { ok: false; reason: string }> {
    try {
      const passages = filePassages(content);
      const vectors = await this.#embedder.embed(passages.map((p) => p.text));
      return {
        ok: true,
        embeddings: { embedderId: this.#embedder.id, passages: passages.map((p, i) => ({ startLine: p.startLine, endLine: p.endLine, vector: vectors[i]! })) },
      };
    } catch (error) {
      if (!(error instanceof EmbedderUnavailableError)) throw error;
      return {
        ok: false,
        reason: `embedding failed: ${error.message}. The file is stored and searchable by its text (search_files, read_file); upload it again to retry.`,
      };
    }
  }

  listFiles(id: string): Promise<InvestigationFileInfo[]> {
    return converted(() => listInvestigationFiles(this.#db, id));
  }

  readFile(id: string, path: string): Promise<InvestigationFile> {
    return converted(async () => {
      const file = await readInvestigationFile(this.#db, id, path);
      if (!file) throw new StoreError('file_not_found', `investigation ${id} has no file "${path}"`);
      return file;
    });
  }

  removeFile(id: string, path: string): Promise<void> {
    return converted(() => removeInvestigationFile(this.#db, id, path));
  }

  /**
   * One turn: the message is checked, then stored (so it is never lost, even
   * if the turn fails), the persisted history replayed (seed #17), the agent
   * run over the files — the provider loop when one is configured, else the
   * offline planner — and the answer stored with its metrics (seed #22).
   * `onEvent` hears each tool call, provider event and note once it is stored (AskOptions).
   */
  ask(id: string, message: string, options: AskOptions = {}): Promise<TurnView> {
    return converted(async () => {
      const text = this.#message(message);
      // Refused before the question is stored: a replica that is shutting down starts no turn (S-269).
      this.#refuseWhileStopping();
      options.signal?.throwIfAborted();
      const history = await listInvestigationMessages(this.#db, id);
      const interrupted = await this.#interrupted(id, history);
      const asked = await appendInvestigationMessage(this.#db, id, { role: 'user', text });
      const turnId = asked.id;
      // Every event is stored under (turn, seq), in order (one chain of writes), and only then passed on, so a
      // client that drops can resume from any replica with Last-Event-ID (GET …/turns/:turnId/events) and read
      // what it was sent. Each write stands alone: the chain used to be one promise, so after one failed write
      // every later one — the turn's result or error too — was skipped; the JSON route answered 500 for an
      // answer already stored, and the live stream had sent events the store never held.
      let seq = 0;
      let writes: Promise<void> = Promise.resolve();
      const record = (type: TurnEventType, data: unknown) => {
        const event = { type, data, seq: ++seq };
        writes = writes.then(async () => {
          let stored = true;
          // The turn's end is written again after a failure: without it a resumed stream cannot tell the turn is
          // over and waits TURN_STALE_MS (ten minutes) to say it was interrupted, though the answer is stored.
          const attempts = type === 'result' || type === 'error' ? TERMINAL_EVENT_WRITE_ATTEMPTS : 1;
          for (let attempt = 1; ; attempt++) {
            try {
              await appendTurnEvent(this.#db, { investigationId: id, turnId, seq: event.seq, type, data });
              break;
            } catch (error) {
              if (attempt < attempts) {
                await new Promise((resolve) => setTimeout(resolve, TERMINAL_EVENT_RETRY_MS * attempt));
                continue;
              }
              stored = false;
              options.log?.(
                `investigation ${id}, turn ${turnId}: event ${event.seq} (${type}) could not be stored${attempts > 1 ? ` in ${attempts} attempts` : ''}, so a resumed stream will not replay it: ${error instanceof Error ? error.message : String(error)}`,
              );
              break;
            }
          }
          try {
            options.onEvent?.({ ...event, stored });
          } catch {
            // A broken observer (a closed stream) must not change what is stored.
          }
        });
      };
      try {
        const view = await this.#turn(id, turnId, text, history, interrupted, options.signal, (event) => record(event.type, turnEventData(id, turnId, event)));
        record('result', { turn: view });
        await writes;
        return view;
      } catch (caught) {
        // Deleted while the turn ran: the answer's write failed on the missing investigation and was reported as an
        // internal error (a colleague's test, 2026-12-05). Said as what happened; the stream still hears it.
        // S-269: stopped from outside (the replica shutting down) — its `error` event is what marks the question
        // interrupted (S-270), stored while the store is still open.
        const error = options.signal?.aborted
          ? stoppedError(turnId, options.signal.reason)
          : (await deletedMeanwhile(this.#db, id))
            ? new ServiceError('not_found', `Investigation ${id} was deleted while this turn ran; its answer was not kept.`)
            : caught;
        record('error', (options.describeError ?? describeTurnError)(error));
        await writes;
        throw error;
      }
    });
  }

  /**
   * A turn's stored events after `afterSeq` (Last-Event-ID), and when it was
   * asked — what GET …/turns/:turnId/events replays on any replica.
   */
  turnEvents(id: string, turnId: number, afterSeq: number): Promise<TurnEventPage> {
    return converted(() => listTurnEvents(this.#db, id, turnId, afterSeq));
  }

  async #turn(
    id: string,
    turnId: number,
    text: string,
    history: readonly InvestigationMessage[],
    interrupted: ReadonlyMap<number, TurnInterruption>,
    signal: AbortSignal | undefined,
    onEvent: (event: TurnEvent) => void,
  ): Promise<TurnView> {
    const toolbox = new WorkspaceToolbox({
      files: new StoreWorkspaceFiles(this.#db, id, this.#embedder),
      kb: this.#kb,
      caps: { maxLines: this.settings.readFileMaxLines, maxChars: this.settings.readFileMaxChars },
      ...(this.#sandbox ? { sandbox: this.#sandbox } : {}),
      ...(signal ? { signal } : {}),
    });
    const models = this.#models;
    const turn: TurnOutcome = await answerTurn({
      message: text,
      // S-270: a question never answered is followed by a word saying so, so the model does not read it as answered.
      history: inTurnOrder(history).flatMap((m) => {
        const why = interrupted.get(m.id);
        const own = { role: m.role, text: m.text };
        return why ? [own, { role: 'assistant' as const, text: unansweredNote(why) }] : [own];
      }),
      ...(signal ? { signal } : {}),
      historyMaxMessages: this.settings.historyMaxMessages,
      ...(this.settings.historyMaxChars !== undefined ? { historyMaxChars: this.settings.historyMaxChars } : {}),
      toolbox,
      kb: this.#kb,
      ...(models ? { models: { ...models, maxSteps: this.settings.maxSteps } } : {}),
      onEvent,
    });
    const passages = turnPassages(turn.citations, (chunkId) => this.#kb.chunk(chunkId));
    const result = {
      claims: turn.claims,
      citations: turn.citations,
      toolCalls: turn.toolCalls,
      unknown: turn.unknown,
      notes: turn.notes,
      mode: turn.mode,
      passages,
    };
    // The turn it answers is stored with it: two turns asked at once store both questions before either answer.
    const saved = await appendInvestigationMessage(this.#db, id, {
      role: 'assistant',
      text: turn.answer,
      result: { turnId, ...result },
      metrics: turn.metrics,
    });
    return { investigationId: id, turnId, messageId: saved.id, answer: turn.answer, ...result, metrics: turn.metrics };
  }

  /**
   * What `ask` refuses before it writes anything — an empty or over-long
   * message, an unknown investigation — checked on its own, so a streamed turn
   * answers a 4xx before its stream opens instead of an error event after a 200.
   */
  checkTurn(id: string, message: string): Promise<void> {
    return converted(async () => {
      this.#message(message);
      this.#refuseWhileStopping();
      if (!(await getInvestigation(this.#db, id))) throw new StoreError('investigation_not_found', `there is no investigation ${id}`);
    });
  }

  /** S-269: a replica shutting down admits no turn, as it admits no run: 503 `shutting_down`, nothing stored. */
  #refuseWhileStopping(): void {
    if (this.#inFlight.stopping) throw new ReplicaStoppingError('No turn was started; your question was not stored.');
  }

  #message(message: string): string {
    const text = message.trim();
    if (text === '')
      throw new ServiceError('invalid_request', 'message must not be empty: ask something about the files, e.g. "why did checkout return 502?".');
    const length = charCount(text);
    // S-212: the same code and words as POST /v1/runs for a question over the same limit; this was `invalid_request`.
    if (length > this.settings.maxMessageChars) {
      throw new ServiceError('question_too_long', `The message is ${length} characters; the limit is ${this.settings.maxMessageChars} (MAX_QUESTION_CHARS).`);
    }
    return text;
  }
}

export interface AskOptions {
  /**
   * Told of each event once its write is done, in order: its type, its data, its id in the stream (seq), and whether
   * it was stored. A stream sends only what was stored, and the end (`result`, `error`) whatever its write did: the
   * answer is stored as the turn's message, and a live client must not wait for an end that never comes.
   */
  readonly onEvent?: (event: { readonly type: TurnEventType; readonly data: unknown; readonly seq: number; readonly stored: boolean }) => void;
  /** Server-side log: an event the store failed to hold (the turn goes on without it). */
  readonly log?: (line: string) => void;
  /** The `error` event's data for a failed turn; the HTTP layer passes its own (the API's error body). */
  readonly describeError?: (error: unknown) => unknown;
  /**
   * Stops the turn (S-269: `hold`'s signal, aborted when the replica shuts down): its model calls and tools stop, its
   * `error` event is stored, and `ask` rejects with TurnStoppedError (`shutting_down`), or with the signal's reason
   * when that is an error of the API's own vocabulary.
   */
  readonly signal?: AbortSignal;
}

/** What a turn stopped by `reason` ends with: a shutdown's TurnStoppedError, or a reason that says itself. */
function stoppedError(turnId: number, reason: unknown): Error {
  if (reason instanceof ServiceError) return reason;
  return new TurnStoppedError(turnId);
}

/** The investigation is gone now (it existed when the turn began); false when that cannot be read either. */
async function deletedMeanwhile(db: Parameters<typeof getInvestigation>[0], id: string): Promise<boolean> {
  try {
    return !(await getInvestigation(db, id));
  } catch {
    return false;
  }
}

/** A failed turn's `error` event, for a caller without an HTTP vocabulary of its own (the CLI). */
function describeTurnError(error: unknown): unknown {
  if (error instanceof ServiceError || error instanceof ReplicaStoppingError) return { error: { code: error.code, message: error.message } };
  return { error: { code: 'internal', message: 'The turn failed on the agent. Your message is kept; ask again.' } };
}

/**
 * An engine event as a turn's stream sends (and stores) it: which
 * investigation and turn it belongs to, and a provider event's token usage
 * flattened, as runs send theirs.
 */
function turnEventData(investigationId: string, turnId: number, event: TurnEvent): unknown {
  switch (event.type) {
    case 'tool':
      return { investigationId, turnId, ...event.call };
    case 'note':
      return { investigationId, turnId, text: event.text };
    case 'provider': {
      const { usage, ...rest } = event.event;
      return {
        investigationId,
        turnId,
        ...rest,
        ...(usage ? { tokensIn: usage.inputTokens.total ?? 0, tokensOut: usage.outputTokens.total ?? 0 } : {}),
      };
    }
  }
}

/**
 * The engine's WorkspaceFiles over the store. A file's content is fetched once
 * per turn (a turn searches the same log for several terms); nothing outlives
 * the turn, so no replica holds state another would need. Similarity search
 * ranks the passages stored at upload (migration 0023) in the embedder's own
 * space; a file embedded by another embedder, or whose embedding failed, is
 * left to the literal search.
 */
export class StoreWorkspaceFiles implements WorkspaceFiles {
  readonly #contents = new Map<string, string | null>();
  #outage: SimilarLinesResult | null = null;

  constructor(
    private readonly db: Database,
    private readonly investigationId: string,
    private readonly embedder?: Embedder,
  ) {}

  async similarLines(query: string, options: SimilarLinesOptions): Promise<SimilarLinesResult> {
    const embedder = this.embedder;
    if (!embedder) return { ok: true, lines: [] };
    // An embedder found down stays down for the rest of the turn: a turn searches several terms, and each would
    // otherwise wait out KB_EMBED_TIMEOUT and its retries again (minutes) before falling back to the literal search.
    // A refusal of one query (a 4xx: that pattern too long for the model) is no outage: it came back at once, and
    // remembered, it turned meaning search off for every later search of the turn (S-090).
    if (this.#outage) return this.#outage;
    const result = await similarLines({
      embedder,
      query,
      options,
      nearest: (vector, o) => similarInvestigationPassages(this.db, this.investigationId, vector, { embedderId: embedder.id, ...o }),
      read: (path) => this.read(path),
    });
    if (!result.ok && !result.rejected) this.#outage = result;
    return result;
  }

  async list(): Promise<WorkspaceFileInfo[]> {
    return listInvestigationFiles(this.db, this.investigationId);
  }

  async read(path: string): Promise<string | null> {
    if (!this.#contents.has(path)) this.#contents.set(path, (await readInvestigationFile(this.db, this.investigationId, path))?.content ?? null);
    return this.#contents.get(path)!;
  }
}

/**
 * The conversation as turns: each question followed by its answer (the
 * assistant message whose result names its turn). Two turns asked at once
 * store "A?, B?, B!, A!", and replayed in id order the next turn's model read
 * each answer under the other's question. An answer stored before turns were
 * named keeps its place.
 */
function inTurnOrder(history: readonly InvestigationMessage[]): InvestigationMessage[] {
  const questions = new Set(history.filter((m) => m.role === 'user').map((m) => m.id));
  const answers = new Map<number, InvestigationMessage>();
  for (const m of history) {
    const turnId = answeredTurnOf(m);
    if (turnId !== null && questions.has(turnId)) answers.set(turnId, m);
  }
  return history.flatMap((m) => {
    if (m.role === 'user') {
      const answer = answers.get(m.id);
      return answer ? [m, answer] : [m];
    }
    const turnId = answeredTurnOf(m);
    return turnId !== null && answers.get(turnId) === m ? [] : [m];
  });
}

async function converted<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    if (error.code === 'investigation_not_found' || error.code === 'file_not_found' || error.code === 'turn_not_found')
      // What lists them is the remedy's to say, per surface (S-191): the API's names the route, the CLI's the command.
      throw new ServiceError('not_found', `${capitalised(echoedWords(error.message))}.`);
    if (error.code === 'invalid_argument') throw new ServiceError('invalid_request', `${capitalised(error.message)}.`);
    throw error;
  }
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A not-found message with each run of over MAX_ECHOED_CHARS characters without a space or a quote cut to that, with an
 * ellipsis. The store names the id (and the path) the request gave, whole: an id of 5,000 characters filled the API's
 * 500-character detail, and the message never said there is no such investigation (S-212). A real id is 36 characters.
 */
const LONG_WORD = new RegExp(`[^\\s"]{${MAX_ECHOED_CHARS + 1},}`, 'gu');
const echoedWords = (message: string) => message.replace(LONG_WORD, (word) => echoed(word));

/**
 * Control characters — C0 (tab, line feed, carriage return, escape …), DEL and C1 (U+0080–U+009F, the 8-bit CSI among
 * them) — and the Unicode line and paragraph separators (U+2028, U+2029).
 */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** What a person calls the control characters they are likeliest to paste. */
const CONTROL_NAMES: ReadonlyMap<string, string> = new Map([
  ['\t', 'tab'],
  ['\n', 'line feed'],
  ['\r', 'carriage return'],
  ['\u001b', 'escape'],
  ['\u007f', 'delete'],
]);

/**
 * The title unchanged, or a refusal naming the first control character inside it (around it, the title is trimmed as
 * ever). S-212: a title kept ESC, CR and LF, so `\x1b[31m` came back in every list — painted in a terminal that lists
 * investigations (`sandscope investigation list` prints titles raw), a second line in a one-line list. A title is one
 * line of plain text: refused rather than stripped, so nothing sent is changed unseen. A tab is refused with the rest:
 * in a one-line list it is a jump of no fixed width, and a workspace path refuses it too (the engine's one rule).
 */
function oneLine(title: unknown): unknown {
  if (typeof title !== 'string') return title;
  const lead = title.length - title.trimStart().length;
  const found = CONTROL_CHARACTER.exec(title.trim());
  if (!found) return title;
  const at = lead + found.index;
  const codeUnit = title.charCodeAt(at);
  const name = CONTROL_NAMES.get(title.charAt(at));
  const hex = codeUnit.toString(16).toUpperCase().padStart(4, '0');
  throw new ServiceError(
    'invalid_request',
    `The title contains a control character (U+${hex}${name ? `, ${name}` : ''}) at character ${[...title.slice(0, at)].length + 1}; a title is one line of plain text: remove it.`,
  );
}

/**
 * A title as an investigation keeps it, or the refusal `create` would give (empty, blank, over the limit), said the
 * same way. `sandscope investigation new` asks it before it opens the database: it made .sandscope/ in the folder it
 * ran in and only then refused the title, so a typo left an empty database behind.
 */
export function investigationTitle(title: unknown): string {
  try {
    return normalizeTitle(oneLine(title));
  } catch (error) {
    if (error instanceof StoreError && error.code === 'invalid_argument') throw new ServiceError('invalid_request', `${capitalised(error.message)}.`);
    throw error;
  }
}

/**
 * A file's text as an investigation keeps it, or the refusal: over INVESTIGATION_FILE_MAX_BYTES, binary, or not
 * UTF-8. `sandscope investigation add` asks it of every file before it adds any: a binary second file was refused
 * after the first had been added (a colleague's test of the CLI, 2026-12-05).
 */
export function investigationFileText(path: string, bytes: Uint8Array, maxBytes: number): string {
  if (bytes.byteLength > maxBytes) {
    throw new ServiceError('payload_too_large', `${path} is ${bytes.byteLength} bytes; the limit is ${maxBytes} (INVESTIGATION_FILE_MAX_BYTES).`);
  }
  const text = decodeCorpusText(bytes);
  // The corpus's remedy is cut whole: `[^.]*` stopped at the "." of ".md", so a binary upload was told to
  // "remove it from the corpus or give it an extension other than .md" — no remedy for an investigation's file.
  if (!text.ok)
    throw new ServiceError(
      'invalid_request',
      `${path} was not added: ${text.reason.replace(/ (Remove it from the corpus|Save it as UTF-8 to have it indexed).*$/, '')} Add text files only (logs, configs, command output saved as UTF-8).`,
    );
  return text.text.replace(/^\uFEFF/, '');
}
