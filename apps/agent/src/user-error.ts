/**
 * An error a person can act on: its message says what is wrong and what to do.
 * Boundaries (the CLI's main, the HTTP layer) print it as one line; anything
 * else is a bug and is reported as one, never as a stack trace to a user.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    message: string,
    /** Process exit code at the CLI boundary. */
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
