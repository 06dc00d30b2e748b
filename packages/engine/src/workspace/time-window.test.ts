import { describe, expect, it } from 'vitest';
import { askedWindow, inWindow } from './time-window.ts';

const hms = (h: number, m: number, s = 0) => h * 3600 + m * 60 + s;

describe('askedWindow (S-234)', () => {
  it('reads a range from its first time to the end of its last', () => {
    for (const q of ['what happened between 03:11 and 03:13?', 'errors from 03:11 to 03:13', 'logs 03:11-03:13']) {
      expect(askedWindow(q)).toMatchObject({ from: hms(3, 11), to: hms(3, 13, 59), tokens: expect.arrayContaining(['03:11', '03:13']) });
    }
    expect(askedWindow('between 03:12:05 and 03:12:10')).toMatchObject({ from: hms(3, 12, 5), to: hms(3, 12, 10) });
  });

  it('reads one time as its minute (or second), and after / before as the rest of the day either side', () => {
    expect(askedWindow('what errors happened around 03:12?')).toMatchObject({ from: hms(3, 12), to: hms(3, 12, 59), said: 'at 03:12' });
    expect(askedWindow('what failed at 3:12:04?')).toMatchObject({ from: hms(3, 12, 4), to: hms(3, 12, 4) });
    expect(askedWindow('what broke after 23:50?')).toMatchObject({ from: hms(23, 50), to: hms(23, 59, 59) });
    expect(askedWindow('anything before 00:10?')).toMatchObject({ from: 0, to: hms(0, 10, 59) });
  });

  it('reads no time from a question without one, nor from a port, a version or a date', () => {
    for (const q of ['why is checkout failing?', 'is db-primary:5432 up?', 'since v1.2.3', 'on 2024-05-14']) expect(askedWindow(q)).toBeNull();
  });

  it('reads h:mm as a time only where it is written as one or its context makes it one (S-273)', () => {
    // Not times: a range of lines, a ratio, a score.
    for (const q of [
      'what happened in lines 1:10?',
      'what happened in lines 10:20 of app.log?',
      'where is the 1:10 sampling ratio set?',
      'is a ratio of 3:10 too low?',
      'why is the error rate 1:10 today?',
    ])
      expect(askedWindow(q), q).toBeNull();
    // Times: a two-digit hour, seconds, a word that places a time, a meridiem or zone, a range with a dash.
    expect(askedWindow('what broke at 1:10?')).toMatchObject({ from: hms(1, 10), to: hms(1, 10, 59), said: 'at 1:10' });
    expect(askedWindow('errors since 9:05')).toMatchObject({ from: hms(9, 5), to: hms(23, 59, 59) });
    expect(askedWindow('between 1:10 and 1:20')).toMatchObject({ from: hms(1, 10), to: hms(1, 20, 59) });
    expect(askedWindow('errors 1:10-1:20')).toMatchObject({ from: hms(1, 10), to: hms(1, 20, 59) });
    expect(askedWindow('what happened 1:10 UTC?')).toMatchObject({ from: hms(1, 10), to: hms(1, 10, 59) });
    expect(askedWindow('what happened 3:12 pm?')).toMatchObject({ from: hms(15, 12), to: hms(15, 12, 59) });
    expect(askedWindow('anything at 12:05 am?')).toMatchObject({ from: hms(0, 5), to: hms(0, 5, 59) });
    expect(askedWindow('what happened 01:10?')).toMatchObject({ from: hms(1, 10), to: hms(1, 10, 59) });
    expect(askedWindow('what happened 1:10:30?')).toMatchObject({ from: hms(1, 10, 30), to: hms(1, 10, 30) });
  });

  it('wraps a window that runs past midnight', () => {
    const w = askedWindow('between 23:55 and 00:05')!;
    expect([hms(23, 58), hms(0, 2), hms(12, 0)].map((c) => inWindow(w, c))).toEqual([true, true, false]);
  });
});
