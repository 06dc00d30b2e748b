/**
 * The file extensions a corpus reads as markdown: `.md` and `.markdown`, and the others editors and wikis save
 * markdown under (`.mdown`, `.mkd`, `.mkdn`, `.markdn`). A runbook saved as `failover.mkd` was left out without a
 * word, and the gate said the library does not answer what it held (S-209).
 */
export const MARKDOWN_EXTENSIONS = ['.md', '.markdown', '.mdown', '.mkd', '.mkdn', '.markdn'] as const;

const EXTENSION = new RegExp(`\\.(${MARKDOWN_EXTENSIONS.map((e) => e.slice(1)).join('|')})$`, 'i');

/** Whether a file name is one a corpus reads as markdown. */
export function isMarkdownName(name: string): boolean {
  return EXTENSION.test(name);
}

/** A document id without its markdown extension: `ops/failover.mkd` → `ops/failover`, a file name's words. */
export function withoutMarkdownExtension(doc: string): string {
  return doc.replace(EXTENSION, '');
}
