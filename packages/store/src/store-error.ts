/**
 * The store's closed set of failure codes, each with a remedy a person can act
 * on (STYLE 8). Constraint violations are converted here, once, so callers see
 * "claim 2 cites a chunk that does not exist" rather than a Postgres SQLSTATE.
 */
export type StoreErrorCode =
  | 'database_unreachable'
  | 'database_in_use'
  | 'data_dir_unusable'
  | 'data_dir_not_database'
  | 'database_unopenable'
  | 'migration_failed'
  | 'migration_edited'
  | 'citation_chunk_missing'
  | 'claim_without_citation'
  | 'already_approved'
  | 'not_awaiting_approval'
  | 'approval_session_mismatch'
  | 'run_not_found'
  | 'run_not_running'
  | 'run_without_verdict'
  | 'mark_contradicts_verdict'
  | 'evidence_not_cited'
  | 'vector_search_unavailable'
  | 'investigation_not_found'
  | 'file_not_found'
  | 'turn_not_found'
  | 'invalid_argument';

export const STORE_ERROR_REMEDIES: Readonly<Record<StoreErrorCode, string>> = {
  database_unreachable: 'Check that the Postgres server is running and DATABASE_URL is right, or unset DATABASE_URL to use the embedded PGlite database.',
  database_in_use:
    'Stop the other process and run this again, or give this one its own SANDSCOPE_DATA_DIR (or a Postgres server by DATABASE_URL, which many processes share). If nothing is running, a crash left the .owner file beside the folder: delete it.',
  data_dir_unusable:
    'Set SANDSCOPE_DATA_DIR to a folder this process can create and write (the default is .sandscope/ in the working folder), or DATABASE_URL to a Postgres server.',
  data_dir_not_database:
    'Nothing in it was changed. Set SANDSCOPE_DATA_DIR to another folder (the database is kept in its pglite/ folder), or move those files elsewhere and run this again.',
  database_unopenable:
    'Check that the folder is the database the agent made (SANDSCOPE_DATA_DIR) and that the disk has room. If it is damaged, move it elsewhere and run this again to start an empty one, or set SANDSCOPE_DATA_DIR to another folder.',
  migration_failed: 'Fix the migration SQL named in the message; nothing of that migration was applied.',
  migration_edited: 'Migrations are append-only: restore the applied file and put the change in a new numbered migration.',
  citation_chunk_missing: 'Cite only chunk ids from the loaded corpus; a citation pointing at nothing is not evidence.',
  claim_without_citation: 'Drop the claim or cite the passage that supports it.',
  already_approved: 'A gated run is approved once; read the existing approval instead.',
  not_awaiting_approval: 'Only a completed run whose terminal is await_approval can be approved.',
  approval_session_mismatch: 'Approve from the session that asked the question.',
  run_not_found: 'Check the run id.',
  run_not_running: 'The run already finished or was marked interrupted at start-up; start a new run instead of finishing this one.',
  run_without_verdict: 'Mark a run that answered, answered partially or refused; a run still running, failed or interrupted has no verdict to judge.',
  mark_contradicts_verdict:
    'Mark a run that answered right or wrong-answer, one that refused right or wrong-refusal; one that answered partially takes any of the three.',
  evidence_not_cited:
    'Name the passage the run cited to confirm its source with right; to say another passage answers, mark the run wrong-answer with that passage.',
  vector_search_unavailable: "Use vectorSearch 'in-process'; the pgvector migration is not applied on this database.",
  investigation_not_found: 'Check the investigation id; listing the investigations shows the ones there are.',
  file_not_found: "Check the file's path; listing the investigation's files shows the ones there are.",
  turn_not_found:
    "Check the turn id: it is the turnId a turn's events carry (the id of the message that asked it); opening the investigation lists its messages.",
  invalid_argument: 'Fix the argument named in the message.',
};

export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly remedy: string;

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.remedy = STORE_ERROR_REMEDIES[code];
  }
}

/** An embedded database folder this process cannot make or write: the setting, named with what the system said. */
export function unusableDataDir(dataDir: string, error: unknown): StoreError {
  const e = error as NodeJS.ErrnoException;
  // A file where a folder should be (SANDSCOPE_DATA_DIR, or its pglite/, a regular file) is said as that, with the code.
  const where = e.path ?? dataDir;
  const why =
    e.code === 'EEXIST'
      ? `EEXIST: ${where} is a file, not a folder`
      : e.code === 'ENOTDIR'
        ? `ENOTDIR at ${where}: a part of that path is a file, not a folder`
        : e.code
          ? `${e.code}${e.path ? ` at ${e.path}` : ''}`
          : String(error);
  return new StoreError('data_dir_unusable', `the embedded database folder ${dataDir} cannot be created or written (${why})`, { cause: error });
}

/** The fields node-postgres and PGlite both put on a server error. */
export interface PostgresErrorFields {
  readonly code?: string;
  readonly constraint?: string;
  readonly detail?: string;
  readonly table?: string;
}

/** SQLSTATE and constraint of a server error, or undefined for anything else. */
export function postgresError(error: unknown): PostgresErrorFields | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as Record<string, unknown>;
  if (typeof e.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) return undefined;
  return {
    code: e.code,
    constraint: typeof e.constraint === 'string' ? e.constraint : undefined,
    detail: typeof e.detail === 'string' ? e.detail : undefined,
    table: typeof e.table === 'string' ? e.table : undefined,
  };
}

export const FOREIGN_KEY_VIOLATION = '23503';
export const UNIQUE_VIOLATION = '23505';
