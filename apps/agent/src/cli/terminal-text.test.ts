import { expect, it } from 'vitest';
import { terminalText } from './terminal-text.ts';

it('writes out controls and bidi controls, and keeps line breaks, tabs and ordinary text (S-229)', () => {
  expect(terminalText('a\tb\nc')).toBe('a\tb\nc');
  expect(terminalText('\x1b[2J\x07\r\x7f\x9b\u202e\u2066 x')).toBe('\\u001b[2J\\u0007\\u000d\\u007f\\u009b\\u202e\\u2066 x');
  expect(terminalText('naïve — 日本語 ‏עברית‎ 👩‍💻')).toBe('naïve — 日本語 ‏עברית‎ 👩‍💻');
});
