import { expect } from 'vitest';
import type { Database } from './database.ts';
import type { NewRun } from './run-repository.ts';
import { StoreError, type StoreErrorCode } from './store-error.ts';

/**
 * What each topic of the store contract reads from the suite that runs it
 * (store.contract.ts): the migrated database with the fixture corpus loaded,
 * and a template for the runs it creates. A getter, because the suite opens
 * the database in its beforeAll, after the topics are declared.
 */
export interface StoreContractContext {
  readonly db: Database;
  readonly corpusVersion: string;
  readonly session: string;
  readonly newRun: (over?: Partial<NewRun>) => NewRun;
}

/** Asserts a StoreError with this exact code — not merely "something threw". */
export async function expectStoreError(promise: Promise<unknown>, code: StoreErrorCode, message?: RegExp): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected StoreError ${code}, but nothing was thrown`).toBeInstanceOf(StoreError);
  const storeError = error as StoreError;
  expect(storeError.code).toBe(code);
  if (message) expect(storeError.message).toMatch(message);
  return storeError;
}

/** The SQLSTATE and constraint of a rejected raw statement. */
export async function rejection(promise: Promise<unknown>): Promise<{ code?: string; constraint?: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the statement to be rejected').toBeDefined();
  const e = error as { code?: string; constraint?: string };
  return { code: e.code, constraint: e.constraint };
}
