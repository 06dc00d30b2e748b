import { afterAll, describe, expect, it } from 'vitest';
import { perMillionTokens } from './pricing.ts';
import { ProviderHealth } from './provider-health.ts';
import { RouterModel } from './router.ts';
import { BudgetExceededError, SpendGuard } from './spend-guard.ts';
import { SpendGuardedModel } from './spend-guarded-model.ts';
import type { SpendLedger, SpendLedgerOptions } from './spend-ledger.ts';
import { contendedReservations } from './testing/contended-reservations.ts';
import { ScriptedModel } from './testing/scripted-model.ts';

/**
 * The one contract every `SpendLedger` keeps (STYLE rule 11): the in-process
 * ledger (`spend-ledger.test.ts`), the database ledger on PGlite and on a
 * Postgres server (packages/store) and the Redis ledger (apps/agent). The
 * replica cases are the point of the shared ones: a second ledger over the same
 * backing is what another agent process opens.
 */
export interface SpendLedgerContractHarness {
  /** A ledger over an EMPTY backing (its own schema rows or key prefix). */
  create(options: SpendLedgerOptions): Promise<SpendLedger>;
  /** A second ledger over the backing `create` made last; absent for a process-local ledger. */
  createReplica?(options: SpendLedgerOptions): Promise<SpendLedger>;
  dispose?(): Promise<void>;
}

/** 2026-11-30T12:00:00Z: a fixed clock, so the day and expiry cases do not depend on when the suite runs. */
const NOON = Date.UTC(2026, 10, 30, 12);
const DAY_MS = 24 * 60 * 60 * 1000;

export function describeSpendLedgerContract(name: string, harness: SpendLedgerContractHarness, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`SpendLedger contract: ${name}`, () => {
    afterAll(async () => {
      await harness.dispose?.();
    });

    const clock = () => {
      const c = { ms: NOON, now: () => c.ms };
      return c;
    };

    it('reserves up to the ceiling exactly, refuses past it booking nothing, and a settlement frees what was not spent', async () => {
      const c = clock();
      const ledger = await harness.create({ ceilingUsd: 0.05, now: c.now });
      const a = await ledger.reserve(0.03);
      expect(a).not.toBeNull();
      expect(await ledger.reserve(0.020_000_001)).toBeNull();
      expect(await ledger.usage()).toEqual({ day: '2026-11-30', spentUsd: 0, reservedUsd: 0.03, ceilingUsd: 0.05 });
      const b = await ledger.reserve(0.02);
      expect(b).not.toBeNull();
      expect(await ledger.reserve(0.000_000_001)).toBeNull();
      await ledger.settle(a!, 0.01);
      expect(await ledger.usage()).toMatchObject({ spentUsd: 0.01, reservedUsd: 0.02 });
      expect(await ledger.reserve(0.02)).not.toBeNull();
      expect(await ledger.reserve(0.000_000_001)).toBeNull();
    });

    it('refuses a negative or non-finite amount', async () => {
      const ledger = await harness.create({ ceilingUsd: 1, now: clock().now });
      await expect(ledger.reserve(-1)).rejects.toThrow(RangeError);
      await expect(ledger.reserve(Number.NaN)).rejects.toThrow(RangeError);
      const hold = (await ledger.reserve(0.1))!;
      await expect(ledger.settle(hold, -0.1)).rejects.toThrow(RangeError);
    });

    it('settling a hold twice records nothing the second time', async () => {
      const ledger = await harness.create({ ceilingUsd: 1, now: clock().now });
      const hold = (await ledger.reserve(0.4))!;
      await ledger.settle(hold, 0.3);
      await ledger.settle(hold, 0.3);
      expect(await ledger.usage()).toMatchObject({ spentUsd: 0.3, reservedUsd: 0 });
    });

    it('a hold left open past its time to live is charged in full (its process died mid-call); a late settlement adds only what it billed above the hold', async () => {
      const c = clock();
      const ledger = await harness.create({ ceilingUsd: 1, holdTtlMs: 60_000, now: c.now });
      const dead = (await ledger.reserve(0.25))!;
      const late = (await ledger.reserve(0.25))!;
      c.ms += 60_001;
      expect(await ledger.usage()).toMatchObject({ spentUsd: 0.5, reservedUsd: 0 });
      await ledger.settle(late, 0.1);
      expect((await ledger.usage()).spentUsd).toBe(0.5);
      void dead;
      const over = (await ledger.reserve(0.2))!;
      c.ms += 60_001;
      await ledger.settle(over, 0.3);
      expect((await ledger.usage()).spentUsd).toBeCloseTo(0.8, 9);
    });

    it('each UTC day has its own ceiling, and a hold settles against the day it was booked on', async () => {
      const c = clock();
      const ledger = await harness.create({ ceilingUsd: 0.1, now: c.now });
      const yesterday = (await ledger.reserve(0.1))!;
      expect(await ledger.reserve(0.01)).toBeNull();
      c.ms += DAY_MS;
      expect(await ledger.usage()).toEqual({ day: '2026-12-01', spentUsd: 0, reservedUsd: 0, ceilingUsd: 0.1 });
      const today = await ledger.reserve(0.1);
      expect(today).not.toBeNull();
      await ledger.settle(yesterday, 0.05);
      expect(await ledger.usage()).toMatchObject({ spentUsd: 0, reservedUsd: 0.1 });
    });

    if (harness.createReplica) {
      const createReplica = harness.createReplica.bind(harness);

      it('another replica over the same backing books against the same ceiling, both ways', async () => {
        const c = clock();
        const a = await harness.create({ ceilingUsd: 0.1, now: c.now });
        const b = await createReplica({ ceilingUsd: 0.1, now: c.now });
        const held = (await a.reserve(0.07))!;
        expect(await b.reserve(0.04)).toBeNull();
        expect(await b.usage()).toMatchObject({ reservedUsd: 0.07 });
        await b.settle(held, 0.02); // a hold is plain data: any replica may settle it
        const fromB = await b.reserve(0.08);
        expect(fromB).not.toBeNull();
        expect(await a.reserve(0.000_000_001)).toBeNull();
        expect(await a.usage()).toMatchObject({ spentUsd: 0.02, reservedUsd: 0.08 });
      });

      it('replicas set to different ceilings all book against the lowest any of them has declared (S-144)', async () => {
        const c = clock();
        const high = await harness.create({ ceilingUsd: 0.1, now: c.now });
        const low = await createReplica({ ceilingUsd: 0.05, now: c.now });
        // The lower replica has not booked yet: its ceiling counts from when it first books or reads.
        expect(await high.reserve(0.04)).not.toBeNull();
        expect(await low.usage()).toEqual({ day: '2026-11-30', spentUsd: 0, reservedUsd: 0.04, ceilingUsd: 0.05 });
        expect(await high.reserve(0.02)).toBeNull();
        expect(await high.usage()).toMatchObject({ ceilingUsd: 0.05 });
        expect(await low.reserve(0.01)).not.toBeNull();
        expect(await low.reserve(0.000_000_001)).toBeNull();
        // The next day starts from each replica's own again.
        c.ms += DAY_MS;
        expect(await high.reserve(0.09)).not.toBeNull();
        expect(await high.usage()).toMatchObject({ ceilingUsd: 0.1 });
      });

      it('a call refused on the replica set higher quotes the ceiling in force and what is left of it, not its own setting (S-259)', async () => {
        const c = clock();
        const low = await harness.create({ ceilingUsd: 0.05, now: c.now });
        const high = await createReplica({ ceilingUsd: 0.1, now: c.now });
        expect(high.ceilingUsd).toBe(0.1);
        // The replica set to $0.05 books first, so the day is held to $0.05; it spends $0.04 of it.
        await low.settle((await low.reserve(0.04))!, 0.04);
        // The replica set to $0.10 asks for a call of up to $0.02 (1,000 tokens at $10/M in, 500 at $20/M out): refused.
        const provider = new ScriptedModel('dear', [{ kind: 'text', text: 'never sent' }]);
        const router = new RouterModel({ candidates: [{ name: 'dear', model: provider, pricing: perMillionTokens(10, 20) }], health: new ProviderHealth() });
        const model = new SpendGuardedModel(router, new SpendGuard(1), { promptTokens: () => 1_000, ledger: high });
        const call = { prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'q' }] }], maxOutputTokens: 500 };
        const refused = await model.doGenerate(call).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(BudgetExceededError);
        // It used to say "only $0.060000 of the deployment's $0.100000 … is left": its own setting, not the day's.
        expect((refused as Error).message).toBe(
          "Daily spend ceiling reached: this model call could cost up to $0.020000, but only $0.010000 of the deployment's $0.050000 for this UTC day " +
            '(DAILY_SPEND_CEILING_USD, the lowest any replica has set, shared by every replica) is left. The call was not made.',
        );
        expect((refused as BudgetExceededError).details).toMatchObject({ reason: 'daily', dailyCeilingUsd: 0.05 });
        expect(provider.calls).toHaveLength(0);
        expect(high).toMatchObject({ ceilingUsd: 0.05, declaredCeilingUsd: 0.1 });
        // The next day is held to each replica's own again, until a lower one is declared.
        c.ms += DAY_MS;
        expect(high.ceilingUsd).toBe(0.1);
        expect(await high.usage()).toMatchObject({ ceilingUsd: 0.1 });
        expect(high.ceilingUsd).toBe(0.1);
      });

      it('1,000 concurrent reservations over two ledgers never settle more than the ceiling', async () => {
        const ceiling = 0.02;
        const c = clock();
        const a = await harness.create({ ceilingUsd: ceiling, now: c.now });
        const b = await createReplica({ ceilingUsd: ceiling, now: c.now });
        const result = await contendedReservations([a, b], 1_000, 0.0006, 20261130);
        const usage = await a.usage();
        expect(result.granted + result.refused).toBe(1_000);
        expect(result.settledUsd).toBeLessThanOrEqual(ceiling);
        expect(result.refused).toBeGreaterThan(0); // the ceiling was really contended
        expect(result.granted).toBeGreaterThan(0);
        expect(usage.reservedUsd).toBe(0);
        expect(usage.spentUsd).toBeCloseTo(result.settledUsd, 9);
      });
    } else {
      it('1,000 concurrent reservations never settle more than the ceiling', async () => {
        const ceiling = 0.02;
        const ledger = await harness.create({ ceilingUsd: ceiling, now: clock().now });
        const result = await contendedReservations([ledger], 1_000, 0.0006, 20261130);
        expect(result.refused).toBeGreaterThan(0);
        expect(result.settledUsd).toBeLessThanOrEqual(ceiling);
        expect((await ledger.usage()).spentUsd).toBeCloseTo(result.settledUsd, 9);
      });
    }
  });
}
