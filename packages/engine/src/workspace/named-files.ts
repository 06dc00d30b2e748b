import type { WorkspaceFileInfo } from './workspace-files.ts';

/** The investigation's files a question names, and the names as it wrote them (lower case). */
export interface NamedFiles {
  readonly paths: readonly string[];
  readonly names: readonly string[];
}

/**
 * S-233: "what does nginx.log show?" searched the files for the text "nginx.log" and answered that no line mentions it;
 * "what errors are in events.jsonl?" cited app.log. A question that names a file of the investigation — by the path it
 * is stored under, or by its base name when that is how a person says it (`nginx.log` for `hosts/web-1/nginx.log`,
 * which names every host's nginx.log) — is asked of that file, and its name is not a term to search for. A name counts
 * only as a whole word: `app.log` is not named by `old-app.log` or `app.log.1`.
 */
export function filesNamed(message: string, files: readonly WorkspaceFileInfo[]): NamedFiles {
  const lowered = message.toLowerCase();
  const paths: string[] = [];
  const names = new Set<string>();
  for (const file of files) {
    for (const name of new Set([file.path, file.path.slice(file.path.lastIndexOf('/') + 1)].map((n) => n.toLowerCase()))) {
      if (name === '' || !new RegExp(`(?<![\\w./-])${escaped(name)}(?![\\w/-]|\\.\\w)`).test(lowered)) continue;
      if (!paths.includes(file.path)) paths.push(file.path);
      names.add(name);
    }
  }
  return { paths, names: [...names] };
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
