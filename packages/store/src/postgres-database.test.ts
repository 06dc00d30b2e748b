import { describe, expect, it } from 'vitest';
import { isConnectionFailure } from './postgres-database.ts';

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isConnectionFailure (issue 12, defect 4)', () => {
  it('is true for what node-postgres raises when the server is gone or goes away', () => {
    expect(isConnectionFailure(coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isConnectionFailure(coded('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isConnectionFailure(new AggregateError([coded('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''))).toBe(true);
    expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionFailure(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isConnectionFailure(coded('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isConnectionFailure(coded('the database system is starting up', '57P03'))).toBe(true);
    expect(isConnectionFailure(coded('connection failure', '08006'))).toBe(true);
  });

  it('is true when the server refuses a new connection for capacity (53300): no statement ran, the store cannot be reached', () => {
    // pg's pool opens connections as load grows and after idle ones close: at max_connections each of those is refused
    // with this, and was read as a bug — 500 internal instead of 503 store_unavailable, and a run whose record it cut
    // short left `running` for ever instead of being marked interrupted once the server answers.
    expect(isConnectionFailure(coded('sorry, too many clients already', '53300'))).toBe(true);
    expect(isConnectionFailure(coded('too many connections for role "sandscope"', '53300'))).toBe(true);
  });

  it('is false for a statement the server refused: those are bugs or refusals, not an outage', () => {
    expect(isConnectionFailure(coded('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isConnectionFailure(coded('syntax error at or near "selec"', '42601'))).toBe(false);
    expect(isConnectionFailure(coded('canceling statement due to statement timeout', '57014'))).toBe(false);
    expect(isConnectionFailure(new Error('something else'))).toBe(false);
    expect(isConnectionFailure('ECONNREFUSED')).toBe(false);
  });
});
