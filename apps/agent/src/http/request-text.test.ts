import { describe, expect, it } from 'vitest';
import { describeUnstorableCharacter, findUnstorableCharacter, requestText } from './request-text.ts';

/** Issue 12, defect 5: the characters a request's text may not carry, found where a person would count them. */
describe('findUnstorableCharacter', () => {
  it('finds a NUL and either half of a broken surrogate pair, by position in characters', () => {
    expect(findUnstorableCharacter('pool\u0000')).toEqual({ kind: 'nul', codeUnit: 0, position: 5 });
    expect(findUnstorableCharacter('a\ud800b')).toEqual({ kind: 'unpaired_surrogate', codeUnit: 0xd800, position: 2 });
    expect(findUnstorableCharacter('a\udfff')).toEqual({ kind: 'unpaired_surrogate', codeUnit: 0xdfff, position: 2 });
    // A high surrogate at the very end has no partner.
    expect(findUnstorableCharacter('ab\udbff')).toEqual({ kind: 'unpaired_surrogate', codeUnit: 0xdbff, position: 3 });
    // Two low halves in a row are not a pair either.
    expect(findUnstorableCharacter('\udc00\udc00')?.position).toBe(1);
    // A complete pair counts as one character, so the NUL after two emoji is the third.
    expect(findUnstorableCharacter('🙂🙂\u0000')?.position).toBe(3);
  });

  it('passes ordinary text, emoji and other control characters', () => {
    for (const text of ['', 'What is the pool ceiling?', '🙂 ünïcödé 中文', 'tab\there\nnewline']) expect(findUnstorableCharacter(text)).toBeNull();
  });

  it('says what to do', () => {
    expect(describeUnstorableCharacter({ kind: 'nul', codeUnit: 0, position: 3 })).toBe('contains a NUL character (U+0000) at character 3; remove it');
    expect(describeUnstorableCharacter({ kind: 'unpaired_surrogate', codeUnit: 0xd83d, position: 1 })).toMatch(
      /^contains an unpaired surrogate \(U\+D83D\) at character 1; send valid Unicode text/,
    );
  });

  it('requestText() refuses them as a schema issue, and is still a string schema', () => {
    const schema = requestText();
    expect(schema.safeParse('fine').success).toBe(true);
    const nul = schema.safeParse('x\u0000');
    expect(nul.success).toBe(false);
    expect(nul.error?.issues[0]?.message).toBe('contains a NUL character (U+0000) at character 2; remove it');
    expect(schema.safeParse(42).error?.issues[0]?.message).toBe('must be a string');
  });
});
