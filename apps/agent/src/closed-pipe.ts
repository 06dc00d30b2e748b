/**
 * `sandscope eval --json | head` or `npm run eval:groups | head`: the reader stops early and closes the pipe, and
 * Node's next write to it raises EPIPE as an unhandled 'error' event — a stack trace printed under output the person
 * already has, and the command killed mid-way. Here a closed pipe is what it is, a reader that has enough: what is
 * written after it goes nowhere, and the command finishes what it was doing (a file it writes is still written) and
 * exits with its own code. Any other error on the stream is still thrown.
 */
export function tolerateClosedPipe(stream: NodeJS.WritableStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}
