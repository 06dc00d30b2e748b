/**
 * Where a path names a file of an investigation's workspace, or why it does not.
 *
 * The workspace is the sandbox's cwd and HOME (`/root`, ARCHITECTURE "The
 * jail"): a tool or an upload names files relative to it. A path that could
 * leave it — `..` segments, an absolute path elsewhere, a drive letter, a URL,
 * a backslash (a Windows separator that a later join could honour) — is
 * refused here, once, so the store, the tools and both doors (HTTP, CLI)
 * refuse exactly the same paths with the same words. Files are stored as
 * content, never as links, so a symlink cannot exist inside the workspace to
 * lead out of it; a name that would be one on disk is just a name here.
 */
export type WorkspacePath = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string };

/** Longest path accepted, in characters (a file system's PATH_MAX is far longer; a person's file name is not). */
export const MAX_WORKSPACE_PATH_CHARS = 255;

/** The sandbox's name for the workspace root, accepted as a prefix: the agent sees its files at `/root` and `~`. */
const WORKSPACE_ROOTS = ['/root/', '~/'];

export function resolveWorkspacePath(input: unknown): WorkspacePath {
  if (typeof input !== 'string') return refuse('a path must be text');
  let path = input.trim();
  if (path === '') return refuse('the path is empty; name a file, e.g. app.log (list_files lists them)');
  // Every control, C1 too: U+009B is a terminal's CSI, as ESC [ is, and the name is shown in a terminal.
  if (/\p{Cc}/u.test(path)) return refuse(`the path ${shown(input)} contains a control character; name the file as list_files shows it`);
  if (path.includes('\\')) return refuse(`the path ${shown(input)} contains a backslash; use / between folders, relative to the workspace`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path))
    return refuse(`the path ${shown(input)} is a URL or a drive, not a workspace path; name a file relative to the workspace, e.g. app.log`);
  const root = WORKSPACE_ROOTS.find((r) => path.startsWith(r));
  if (root) path = path.slice(root.length);
  else if (path === '/root' || path === '~' || path === '.')
    return refuse('that is the workspace itself, not a file; name a file in it (list_files lists them)');
  if (path.startsWith('/') || path.startsWith('~')) {
    return refuse(
      `the path ${shown(input)} is outside the workspace; only the investigation's files can be read — name one relative to the workspace, e.g. app.log`,
    );
  }
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..')
      return refuse(`the path ${shown(input)} leaves the workspace ("..") — only the investigation's files can be read; name one as list_files shows it`);
    segments.push(segment);
  }
  const resolved = segments.join('/');
  if (resolved === '') return refuse('that is the workspace itself, not a file; name a file in it (list_files lists them)');
  if ([...resolved].length > MAX_WORKSPACE_PATH_CHARS)
    return refuse(`the path is ${[...resolved].length} characters; the limit is ${MAX_WORKSPACE_PATH_CHARS}`);
  return { ok: true, path: resolved };
}

function refuse(reason: string): WorkspacePath {
  return { ok: false, reason };
}

function shown(input: string): string {
  const chars = [...input];
  return JSON.stringify(chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : input);
}
