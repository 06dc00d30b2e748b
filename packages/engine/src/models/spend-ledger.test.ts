import { describeSpendLedgerContract } from './spend-ledger.contract.ts';
import { InProcessSpendLedger } from './spend-ledger.ts';

describeSpendLedgerContract('in-process', { create: async (options) => new InProcessSpendLedger(options) });
