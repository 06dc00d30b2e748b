import { describe, expect, it } from 'vitest';
import { filesNamed } from './named-files.ts';

const files = ['app.log', 'app.log.1', 'old-app.log', 'hosts/web-1/nginx.log', 'hosts/web-2/nginx.log', 'events.jsonl'].map((path) => ({
  path,
  sizeBytes: 1,
  status: 'ok' as const,
  error: null,
}));

describe('filesNamed (S-233)', () => {
  it('finds a file by its stored path or its base name, at the end of a sentence or quoted', () => {
    expect(filesNamed('what errors are in events.jsonl?', files)).toEqual({ paths: ['events.jsonl'], names: ['events.jsonl'] });
    expect(filesNamed('what does "App.log" say.', files).paths).toEqual(['app.log']);
    expect(filesNamed('what does hosts/web-1/nginx.log show?', files).paths).toEqual(['hosts/web-1/nginx.log']);
    // A base name shared by two hosts' files names both.
    expect(filesNamed('what does nginx.log show?', files).paths).toEqual(['hosts/web-1/nginx.log', 'hosts/web-2/nginx.log']);
  });

  it('finds a name only as a whole word', () => {
    expect(filesNamed('what does old-app.log show?', files).paths).toEqual(['old-app.log']);
    expect(filesNamed('what is in app.log.1?', files).paths).toEqual(['app.log.1']);
    expect(filesNamed('why is the app failing?', files).paths).toEqual([]);
  });
});
