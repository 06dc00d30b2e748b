import { describe, expect, it } from 'vitest';
import { estimateTokens, promptText } from './pricing.ts';

describe('promptText (what the spend guard estimates input tokens over)', () => {
  it("counts a tool loop's calls and results, not only its text: a read_file window is input the provider bills", () => {
    const window = '4312\tERROR orders-db connection pool exhausted\n'.repeat(1000);
    const text = promptText([
      { role: 'user', content: [{ type: 'text', text: 'Why 502?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'app.log', offset: 4300 } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: window } }] },
    ]);
    expect(text).toContain('Why 502?');
    expect(text).toContain('"path":"app.log"');
    expect(text).toContain(window);
    expect(estimateTokens(text)).toBeGreaterThan(window.length / 4);
  });
});
