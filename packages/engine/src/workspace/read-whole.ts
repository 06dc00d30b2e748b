import type { WorkspaceToolbox } from './tools.ts';

/** A line of a file and its number (1-based, as citations count). */
export interface NumberedLine {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

/**
 * Every line of a file, read through read_file a window at a time, so the turn reads under the same caps and records
 * the same calls as any other read (tools.ts). For what no search pattern can find: the lines of a file a question
 * names with nothing else to look for (S-233), the lines stamped inside a time (S-234). `outputs` gets what each read
 * gave, as the turn's reads do. Null when the file cannot be read.
 */
export async function readWhole(toolbox: WorkspaceToolbox, path: string, outputs: string[]): Promise<NumberedLine[] | null> {
  const lines: NumberedLine[] = [];
  let offset = 1;
  for (;;) {
    const out = await toolbox.call('read_file', { path, offset });
    outputs.push(out.text);
    if (!out.ok || out.tool !== 'read_file') return lines.length > 0 ? lines : null;
    const { window } = out;
    window.lines.forEach((text, i) => {
      lines.push({ path, line: window.startLine + i, text });
    });
    // A window that returned nothing would be asked again forever.
    if (window.endLine >= window.totalLines || window.endLine < window.startLine) return lines;
    offset = window.endLine + 1;
  }
}
