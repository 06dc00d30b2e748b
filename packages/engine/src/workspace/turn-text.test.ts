import { describe, expect, it } from 'vitest';
import { sentencesOf } from '../answer/sentences.ts';
import type { Chunk } from '../types.ts';
import type { TurnClaim } from './planner.ts';
import { turnAnswerText, turnPassages } from './turn-text.ts';

const text = [
  '1. Stop the writers.',
  '2. Promote the replica:',
  '',
  '   ```sh',
  '   pgctl promote \\',
  '     --replica db-2',
  '   ```',
  '3. Point the pooler at db-2.',
].join('\n');
const chunk = { id: 'failover#steps', doc: 'failover.md', heading: 'Steps', text } as Chunk;
const chunkOf = (id: string) => (id === chunk.id ? chunk : undefined);
const fromRunbook = sentencesOf(text).map((t): TurnClaim => ({ text: t, citations: [{ kind: 'passage', chunkId: chunk.id }] }));
const fromFile: TurnClaim = { text: 'app.log line 4312: pool exhausted', citations: [{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4312 }] };

describe("a turn's answer text (S-063: the workspace printed a runbook's steps one claim per line, numbers lost)", () => {
  it("numbers a runbook's steps as in the runbook and keeps a command's lines one fenced block, each finding on file lines a line of its own", () => {
    expect(turnAnswerText([fromFile, ...fromRunbook], ['Nothing says when it began.'], chunkOf).split('\n')).toEqual([
      'app.log line 4312: pool exhausted [app.log:4312]',
      '1. Stop the writers. [failover#steps]',
      '2. Promote the replica: [failover#steps]',
      '```',
      'pgctl promote \\',
      '  --replica db-2',
      '```',
      '[failover#steps]',
      '3. Point the pooler at db-2. [failover#steps]',
      'Unknown: Nothing says when it began.',
    ]);
  });

  it('prints a claim whose passage is not at hand as a line of its own, and lists only the passages there are', () => {
    expect(turnAnswerText(fromRunbook.slice(0, 1), [], () => undefined)).toBe('Stop the writers. [failover#steps]');
    const cited = [{ kind: 'passage', chunkId: chunk.id } as const, fromFile.citations[0]!, { kind: 'passage', chunkId: 'gone#x' } as const];
    expect(turnPassages(cited, chunkOf)).toEqual([{ chunkId: chunk.id, doc: 'failover.md', heading: 'Steps', text }]);
  });
});
