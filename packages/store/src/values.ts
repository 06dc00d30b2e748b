import { StoreError } from './store-error.ts';

/** Shared conversions between rows and records; both adapters return timestamptz as Date. */
export function iso(value: Date): string;
export function iso(value: Date | null): string | null;
export function iso(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Run ids are uuids; a malformed one is the caller's mistake, said plainly rather than as SQLSTATE 22P02. */
export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw new StoreError('invalid_argument', `${what} "${value}" is not a uuid`);
  return value;
}

/** jsonb parameters are sent as JSON text and cast in SQL: node-postgres would turn a JS array into a Postgres array. */
export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** A plain number array; node-postgres would send a Float32Array as bytea. */
export function floats(vector: ArrayLike<number>): number[] {
  const out = Array.from(vector);
  if (!out.every(Number.isFinite)) throw new StoreError('invalid_argument', 'a vector contains a non-finite number');
  return out;
}
