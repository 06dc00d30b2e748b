/**
 * Text the CLI prints that came from outside it — a line of an incident's log quoted in an answer, a runbook's
 * sentence, a question echoed back — made safe for the terminal it lands in (S-229). A User-Agent in an nginx log is
 * the client's to write: quoted raw, `ESC ] 0 ; … BEL ESC [ 2 J` set the terminal's title and cleared the screen, a
 * bare CR let a line overwrite what was printed before it, and a bidi override showed a line reordered. Each such
 * character is written out as `\uXXXX`; line breaks and tabs are kept. JSON output needs it too: JSON escapes C0
 * controls but not DEL, the C1 controls (U+009B is a terminal's CSI) or the bidi controls, and `\uXXXX` is a valid
 * escape inside a JSON string, the only place such a character can stand in JSON.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

// Controls (C0 but tab and line feed, DEL, C1) and the explicit bidi embeddings, overrides and isolates.
const UNSAFE = /[\0-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
