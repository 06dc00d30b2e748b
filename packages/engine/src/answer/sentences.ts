/**
 * Split a passage into citable sentences. Markdown list items, table rows and
 * command lines each stand alone; emphasis markers are dropped (the words stay
 * verbatim, so a claim's numbers and identifiers still stand in its passage).
 */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let inFence = false;
  for (const raw of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) {
      inFence = !inFence;
      continue;
    }
    let line = raw.trim();
    if (!line || /^\|?\s*:?-{3,}/.test(line) || /^#{1,6}\s/.test(line)) continue;
    if (inFence) {
      out.push(line);
      continue;
    }
    line = line
      .replace(/^(?:[-*+]|\d+[.)])\s+/, '')
      .replace(/^>\s*/, '')
      .replace(/\*\*|__/g, '');
    if (line.startsWith('|')) {
      out.push(line.replace(/^\||\|$/g, '').split('|').map((c) => c.trim()).filter(Boolean).join(' — '));
      continue;
    }
    for (const s of line.split(/(?<=[.!?])\s+(?=[A-Z0-9`("'])/)) if (s.trim()) out.push(s.trim());
  }
  return out;
}
