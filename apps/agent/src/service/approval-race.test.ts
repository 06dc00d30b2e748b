import { startStore } from '@sandscope/store';
import { describeApprovalRace } from './testing/approval-race-suite.ts';

describeApprovalRace('embedded PGlite', async () => {
  const store = await startStore({ dataDir: 'memory://' });
  return { store, dispose: () => store.close() };
});
