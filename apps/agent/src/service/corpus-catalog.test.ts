import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCorpusSource } from '../corpus-source.ts';
import { knowledgeBaseOf } from '../knowledge-base-of.ts';
import { buildCorpusView } from './corpus-catalog.ts';

describe('GET /v1/corpus names the library (S-149)', () => {
  it("a team's own library is named by its folder, and is not the bundled one", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'team-runbooks-'));
    writeFileSync(join(dir, 'disk.md'), '# Disk full\n\n## Mitigation\n\nDelete rotated logs under /var/log first, then extend the volume.\n');
    const source = loadCorpusSource(dir, { warn: () => {} });
    expect(buildCorpusView(source, await knowledgeBaseOf(source)).library).toEqual({ name: basename(dir), bundled: false });
  });
});
