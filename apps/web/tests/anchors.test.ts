import { describe, expect, it } from 'vitest';
import { chunkAnchor, chunkHref, docAnchor, docHref, serviceAnchor } from '../lib/anchors';

/* Fragment ids on the data page (lib/anchors.ts): a chunk id carries `#`, which a fragment cannot. */

describe('anchors', () => {
  it('a chunk id becomes one fragment-safe id, distinct per document and heading', () => {
    expect(chunkAnchor('runbook-consumer-lag.md#signals')).toBe('chunk-runbook-consumer-lag_md--signals');
    expect(chunkAnchor('runbook-x.md#step 2: drain')).toBe('chunk-runbook-x_md--step_2__drain');
    expect(chunkAnchor('estate')).toBe('chunk-estate--');
    expect(chunkAnchor('a.md#b')).not.toBe(chunkAnchor('a.md#c'));
    for (const id of ['a.md#x y', 'b.md#<script>', 'c.md#ü']) expect(chunkAnchor(id)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('documents drop their extension; links point into the data page', () => {
    expect(docAnchor('runbook-consumer-lag.md')).toBe('doc-runbook-consumer-lag');
    expect(docAnchor('NOTES.Markdown')).toBe('doc-NOTES');
    expect(docHref('policy.md')).toBe('/data#doc-policy');
    expect(chunkHref('policy.md#scope')).toBe('/data#chunk-policy_md--scope');
    expect(serviceAnchor('orders-db')).toBe('service-orders-db');
  });
});
