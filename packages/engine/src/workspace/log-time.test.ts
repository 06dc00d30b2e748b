import { describe, expect, it } from 'vitest';
import { lineTime } from './log-time.ts';

const at = (iso: string) => Date.parse(iso);

describe('lineTime (S-232)', () => {
  it('reads an ISO 8601 stamp, with or without a zone, seconds or a fraction', () => {
    expect(lineTime('2024-05-14T03:12:03Z ERROR payments-svc refused')).toEqual({
      at: at('2024-05-14T03:12:03Z'),
      clock: 3 * 3600 + 12 * 60 + 3,
      written: '2024-05-14T03:12:03Z',
    });
    expect(lineTime('2024-05-14 05:12:03,250+02:00 ERROR x')?.at).toBe(at('2024-05-14T03:12:03.250Z'));
    expect(lineTime('2024-05-14 03:12 WARN x')?.at).toBe(at('2024-05-14T03:12:00Z'));
  });

  it("reads an access log's stamp, its zone applied to the time and not to the clock it is written in", () => {
    const t = lineTime('10.0.0.1 - - [14/May/2024:05:12:04 +0200] "GET / HTTP/1.1" 502 512 "-" "curl"');
    expect(t?.at).toBe(at('2024-05-14T03:12:04Z'));
    expect(t?.clock).toBe(5 * 3600 + 12 * 60 + 4);
  });

  it.each(['ts', 'time', 'timestamp', '@timestamp'])('reads the %s field of a JSON line', (field) => {
    expect(lineTime(`{"level":"error","${field}":"2024-05-14T03:12:02Z","msg":"out of disk"}`)?.at).toBe(at('2024-05-14T03:12:02Z'));
  });

  it('reads a JSON time in seconds or milliseconds, and a JSON line cut short', () => {
    expect(lineTime('{"ts":1715656322,"msg":"x"}')?.at).toBe(at('2024-05-14T03:12:02Z'));
    expect(lineTime('{"ts":1715656322000,"msg":"x"}')?.at).toBe(at('2024-05-14T03:12:02Z'));
    expect(lineTime('{"time":"2024-05-14T03:12:02Z","msg":"a very long mess…')?.at).toBe(at('2024-05-14T03:12:02Z'));
  });

  it('reads a clock without a date as a clock only, and nothing from a line without one', () => {
    expect(lineTime('May 14 03:12:04 host sshd[1]: error')).toEqual({ at: null, clock: 3 * 3600 + 12 * 60 + 4, written: 'May 14 03:12:04' });
    expect(lineTime('03:12:04 ERROR x')?.at).toBeNull();
    expect(lineTime('ERROR worker lost its lease at port 5432')).toBeNull();
    expect(lineTime('{"msg":"no time here"}')).toBeNull();
    expect(lineTime('2024-13-14T03:12:04Z month thirteen')).toBeNull();
  });
});
