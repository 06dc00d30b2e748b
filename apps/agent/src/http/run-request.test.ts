import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.ts';
import { parseRunRequest } from './run-request.ts';

describe('parseRunRequest', () => {
  it('reads a workload as `sandscope ask -w` does: any case, spaces around it ignored (S-140)', () => {
    expect(parseRunRequest({ question: 'q', workload: 'Change' }, 1000).workload).toBe('change');
    expect(parseRunRequest({ question: 'q', workload: ' POSTMORTEM ' }, 1000).workload).toBe('postmortem');
    expect(parseRunRequest({ question: 'q' }, 1000).workload).toBe('triage');
  });

  it('refuses a workload that is none of them, naming the choices', () => {
    for (const workload of ['deploy', 7, null]) {
      const refused = (() => {
        try {
          parseRunRequest({ question: 'q', workload }, 1000);
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).message).toMatch(/^workload must be one of triage, change, postmortem\./);
    }
  });
});
