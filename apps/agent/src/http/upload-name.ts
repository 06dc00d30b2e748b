import type { IncomingMessage } from 'node:http';
import { exactFileName } from '@sandscope/engine/workspace';
import type { Context } from 'hono';
import { routePath } from 'hono/route';
import { ApiError } from './api-error.ts';

/**
 * The routes that name one file. `[\s\S]`, not `.`: a regex's `.` stops at a line break (LF, CR, U+2028, U+2029), so a
 * name holding one was answered 404 "There is no route", quoting the line break back, instead of refused for it (S-213).
 */
export const FILE_ROUTE = '/:id/files/:path{[\\s\\S]+}';

/**
 * The file a `…/files/<path>` request names (PUT, GET, DELETE alike, so a file
 * kept can be read and removed by the name it was sent with): the URL's path
 * after `files/`, percent-decoded exactly once, kept exactly or refused with
 * `invalid_request` naming the part to change (S-213). Hono's param decoding
 * kept a malformed escape as text (`%ZZ.log`, `%FF.log` were stored under those
 * names), and the URL parser had already resolved `%2e%2e` away: `a/%2e%2e/b.log`
 * was stored as `b.log`, replacing any file of that name.
 */
export function requestedFileName(c: Context): string {
  refuseDotSegments(c);
  const encoded = encodedFilePath(c);
  const checked = exactFileName(decodedOnce(encoded));
  if (!checked.ok) throw new ApiError('invalid_request', `${checked.reason.charAt(0).toUpperCase()}${checked.reason.slice(1)}.`);
  return checked.path;
}

/**
 * A `.` or `..` segment in the request as it came off the socket (node-server's `c.env.incoming`). The URL parser
 * removes them, `%2e` spellings included (WHATWG URL's single- and double-dot segments), before any route sees the
 * path: only the raw request line still shows that the name sent is not the name the route would keep. Driven
 * in-process (`app.request`) there is no socket, and the Request's URL was resolved by whoever made it.
 */
function refuseDotSegments(c: Context): void {
  const raw = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url;
  if (raw === undefined) return;
  const path = raw.split(/[?#]/, 1)[0]!;
  for (const segment of path.split('/')) {
    const dots = segment.replace(/%2e/gi, '.');
    if (dots !== '.' && dots !== '..') continue;
    throw new ApiError(
      'invalid_request',
      `The request path ${shown(path)} has a ${JSON.stringify(segment)} segment (${JSON.stringify(dots)}), which a URL ` +
        `${dots === '..' ? 'resolves away with the folder before it' : 'drops'}, so the file would be kept under another name. ` +
        'Name each folder, never "." or "..", e.g. logs/app.log.',
    );
  }
}

/** The route's `:path` as the URL has it, still percent-encoded (Hono's `param()` is decoded, and leniently). */
function encodedFilePath(c: Context): string {
  const at = routePath(c)
    .split('/')
    .findIndex((segment) => segment.startsWith(':path'));
  if (at < 0) throw new Error(`requestedFileName on a route without :path (${routePath(c)})`);
  return new URL(c.req.url).pathname.split('/').slice(at).join('/');
}

/** Percent-decoded once: a malformed escape or bytes that are not UTF-8 refused, never kept as text. */
function decodedOnce(encoded: string): string {
  const malformed = /%(?![0-9a-f]{2})/i.exec(encoded);
  if (malformed) {
    const bad = encoded.slice(malformed.index, malformed.index + 3);
    throw new ApiError(
      'invalid_request',
      `The file path ${shown(encoded)} has a malformed percent escape ${JSON.stringify(bad)}: "%" starts an escape of two hex digits. ` +
        `Send a "%" in a name as %25, e.g. ${encoded.replace(/%(?![0-9a-f]{2})/gi, '%25')}.`,
    );
  }
  try {
    return decodeURIComponent(encoded);
  } catch {
    const bytes = encoded.match(/(?:%[0-9a-f]{2})+/gi)?.find((run) => !decodes(run)) ?? encoded;
    throw new ApiError(
      'invalid_request',
      `The file path ${shown(encoded)} has percent escapes ${JSON.stringify(bytes)} that are not UTF-8 text. ` +
        'Send the name as UTF-8, each byte percent-encoded (encodeURIComponent).',
    );
  }
}

function decodes(escapes: string): boolean {
  try {
    decodeURIComponent(escapes);
    return true;
  } catch {
    return false;
  }
}

function shown(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
