import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/** Asking for help: a command's own usage, exit 0; parse errors that point to it in one clean line. */
const io = captureOutput();

describe('sandscope COMMAND --help and help COMMAND', () => {
  it('ask --help, ask -h and help ask print ask’s own usage and exit 0, not "Unknown option" nor the whole text', async () => {
    for (const argv of [
      ['ask', '--help'],
      ['ask', '-h'],
      ['help', 'ask'],
      ['ask', '--json', '--help'],
    ]) {
      io.out = '';
      io.err = '';
      expect(await main(argv), argv.join(' ')).toBe(0);
      expect(io.err, argv.join(' ')).toBe('');
      expect(io.out, argv.join(' ')).toMatch(/^Usage:\n {2}npx sandscope ask \[options\] "question"/);
      expect(io.out).toContain('--workload, -w triage|change|postmortem');
      expect(io.out).not.toContain('npx sandscope eval');
    }
  });

  it('every command has its own part, and the whole text is still every part', async () => {
    expect(await main(['help'])).toBe(0);
    const whole = io.out;
    for (const name of ['ask', 'graph', 'eval', 'feedback', 'calibrate', 'questions', 'passages', 'serve', 'start', 'investigation', 'investigate', 'tools']) {
      io.out = '';
      expect(await main([name, '--help']), name).toBe(0);
      const own = io.out.replace(/^Usage:\n/, '');
      expect(own.length, name).toBeGreaterThan(0);
      expect(whole, name).toContain(own);
      io.out = '';
      expect(await main(['help', name]), name).toBe(0);
      expect(io.out.replace(/^Usage:\n/, ''), name).toBe(own);
    }
  });

  it('eval’s usage names --loco and the options that go with it', async () => {
    expect(await main(['eval', '--help'])).toBe(0);
    expect(io.out).toMatch(/npx sandscope eval --loco \[--corpora DIR\] \[--exclude a,b\] \[--held-out a,b\]/);
  });

  it('help NAME for no command says which commands exist, exit 2', async () => {
    expect(await main(['help', 'nope'])).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toBe(
      'sandscope: unknown command "nope". Commands: ask, graph, eval, feedback, calibrate, questions, passages, serve, start, investigation, tools. `npx sandscope help` prints them all.\n',
    );
  });

  it('a name every object has (toString, constructor) is no command: one line, exit 2, not a stack trace', async () => {
    for (const argv of [['toString'], ['help', 'constructor']]) {
      io.out = '';
      io.err = '';
      expect(await main(argv), argv.join(' ')).toBe(2);
      expect(io.out, argv.join(' ')).toBe('');
      expect(io.err, argv.join(' ')).toMatch(/^sandscope: unknown command "(toString|constructor)"\. .*\n$/);
    }
  });

  it('a `--help` after `--` is the question, not a request for help', async () => {
    expect(await main(['ask', '--json', '--', '--help'])).toBe(0);
    expect(JSON.parse(io.out)).toHaveProperty('outcome');
  });
});

describe('option errors in one clean line', () => {
  it('points to the command’s own help without "questions’s"', async () => {
    expect(await main(['questions', '--bogus'])).toBe(2);
    expect(io.err).toBe("sandscope: Unknown option '--bogus'. `npx sandscope questions --help` lists its options.\n");
    io.err = '';
    expect(await main(['questions', 'out.jsonl'])).toBe(2);
    expect(io.err).toBe('sandscope: questions takes options only, not "out.jsonl". `npx sandscope questions --help` lists its options.\n');
  });

  it('eval --folds -3 says what --folds takes, not "\'--folds=-XYZ\'.."', async () => {
    for (const argv of [
      ['eval', '--folds', '-3'],
      ['eval', '--folds=-3'],
    ]) {
      io.err = '';
      expect(await main(argv), argv.join(' ')).toBe(2);
      expect(io.err, argv.join(' ')).toBe('sandscope: --folds must be a whole number from 2 to 20 (got "-3").\n');
    }
  });

  it('an option missing its value, or followed by another option, is said in one line naming it', async () => {
    expect(await main(['ask', '--corpus', '--json', 'q?'])).toBe(2);
    expect(io.err).toBe(
      'sandscope: --corpus needs a value, and is followed by "--json", not a value. Give --corpus its value (--corpus=VALUE for one starting with a dash). `npx sandscope ask --help` lists its options.\n',
    );
    io.err = '';
    expect(await main(['ask', '-w'])).toBe(2);
    expect(io.err).toBe('sandscope: --workload (-w) needs a value. `npx sandscope ask --help` lists its options.\n');
    expect(io.err).not.toMatch(/\.\./);
  });
});
