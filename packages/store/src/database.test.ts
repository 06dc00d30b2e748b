import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.ts';
import { redactUrl } from './postgres-database.ts';
import { StoreError } from './store-error.ts';

describe('openDatabase against a server that is not there', () => {
  it('fails with a message naming DATABASE_URL, the host, and no password', async () => {
    // Port 1 on loopback: nothing listens, so the connection is refused at once.
    const error = await openDatabase({ url: 'postgres://sandscope:hunter2@127.0.0.1:1/sandscope' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    const e = error as StoreError;
    expect(e.code).toBe('database_unreachable');
    expect(e.message).toContain('DATABASE_URL');
    expect(e.message).toContain('127.0.0.1:1');
    expect(e.message).toMatch(/ECONNREFUSED/);
    expect(e.message).not.toContain('hunter2');
  });

  it('refuses a schema name that could smuggle options', async () => {
    const error = await openDatabase({ url: 'postgres://127.0.0.1:1/x', schema: 'a -c x=y' }).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe('invalid_argument');
  });
});

describe('redactUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(redactUrl('postgres://u:secret@db.example:5432/app')).toBe('postgres://u:***@db.example:5432/app');
    expect(redactUrl('postgres://u@db/app')).toBe('postgres://u@db/app');
    expect(redactUrl('not a url')).toBe('(unparseable URL)');
  });
});
