import { describe, expect, it } from 'vitest';
import { actionIntent } from './action-intent.ts';

/**
 * The act detector on its own. The labelled set (`risk-questions.test.ts`)
 * pins what the gate decides; these pin why, one form at a time, with
 * sentences that are not in that set.
 */
const reads = (question: string) => {
  const a = actionIntent(question);
  return a.asks === 'act' ? a.acts.map((x) => `${x.verb}/${x.form}`).join(', ') : `lookup:${a.intent}`;
};

describe('actionIntent: what the question asks to do', () => {
  it('reads an imperative, with or without an object, typed casually or with a slip of the keyboard', () => {
    expect(reads('fail over orders-db now')).toBe('fail over/imperative');
    expect(reads('restart checkout-api in production')).toBe('restart/imperative');
    expect(reads('raise the pool ceiling')).toBe('raise/imperative');
    expect(reads('checkout-api 5xx spiking. roll it back')).toBe('roll back/imperative');
    expect(reads('pls go ahead and rotate the keys')).toBe('rotate/imperative');
    expect(reads('restrat payments-api')).toBe('restart/imperative');
    expect(reads('fail-over session-cache')).toBe('fail over/imperative');
    expect(reads('checkout-api is wedged - restart?')).toBe('restart/imperative');
    // A change described as under way, or as a value → value.
    expect(reads('raising the orders-db pool ceiling to 150 tonight')).toBe('raise/imperative');
    expect(reads('orders-db max_connections 100 -> 150')).toBe('change/described');
  });

  it('reads a proposal: asking whether to act, or asking someone to', () => {
    expect(reads('should we restart checkout-api?')).toBe('restart/proposal');
    expect(reads('ok to flush pricing-cache?')).toBe('flush/proposal');
    expect(reads('is it safe to restart inventory-db during peak?')).toBe('restart/proposal');
    expect(reads('is restarting orders-db safe during peak?')).toBe('restart/proposal');
    expect(reads('am i ok to promote the inventory-db replica')).toBe('promote/proposal');
    expect(reads('mind if i bounce catalog-api')).toBe('bounce/proposal');
    expect(reads('any objection to restarting catalog-api?')).toBe('restart/proposal');
    expect(reads('can you restart the order-worker for me')).toBe('restart/proposal');
  });

  it('reads a declared intention, with or without its subject', () => {
    expect(reads("i'm going to restart edge-gateway, anything i should know")).toBe('restart/declared');
    expect(reads('we are rolling back checkout-api')).toBe('roll back/declared');
    expect(reads('planning to upgrade payments-api tomorrow, ok?')).toBe('upgrade/declared');
    expect(reads('need to manually fail over the session-cache primary, what do i pass')).toBe('fail over/declared');
    expect(reads('help me roll back checkout-api')).toBe('roll back/declared');
    expect(reads('action item says restart order-worker nightly - do it')).toBe('restart/confirmed');
  });

  it('reads a question about an act as a look-up: how to do it, whether it helps, what happened, what it is called', () => {
    expect(reads('how do i fail over orders-db now')).toBe('lookup:procedure');
    expect(reads('Remind me how to restart checkout-api')).toBe('lookup:procedure');
    expect(reads('would restarting checkout-api help')).toBe('lookup:yes-no');
    expect(reads('what happens if i restart orders-db')).toBe('lookup:lookup');
    expect(reads('if we fail over orders-db what breaks')).toBe('lookup:impact');
    expect(reads('did we restart orders-db during the march incident?')).toBe('lookup:lookup');
    expect(reads('we restarted checkout-api yesterday, why is it still leaking')).toBe('lookup:cause');
    expect(reads('restarting checkout-api did not help, what next')).toBe('lookup:lookup');
    expect(reads('draft a postmortem for the orders-db pool saturation')).toBe('lookup:lookup');
    // A generated procedure question: the imperative is what to find out how to do.
    expect(reads('For consumer lag: add consumer capacity without rebalance storms — how?')).toBe('lookup:value');
  });

  it('reads an act word used as a noun as a noun (the defect: "the failover time of session-cache" was gated)', () => {
    expect(reads('what is the failover time of session-cache')).toBe('lookup:lookup');
    expect(reads('session-cache failover time?')).toBe('lookup:lookup');
    expect(reads('restart count for checkout-api?')).toBe('lookup:lookup');
    expect(reads('deploy freeze?')).toBe('lookup:lookup');
    expect(reads('rollback plan for payments-api')).toBe('lookup:lookup');
    expect(reads('drop in traffic on checkout-api after the deploy, why')).toBe('lookup:cause');
    expect(reads('replay lag growing for more than 5 minutes on inventory-db')).toBe('lookup:lookup');
    expect(reads('Tell me about orders-db replicas, failover and snapshots.')).toBe('lookup:meaning');
    expect(reads('status of the orders-db failover')).toBe('lookup:lookup');
    // A verb that is not also a noun keeps its object.
    expect(reads('enable request coalescing on pricing-cache')).toBe('enable/imperative');
  });

  it('lets an information-seeking intent overrule the weak signals, never the strong forms', () => {
    expect(reads('orders-db failover now pls')).toBe('fail over/urged');
    expect(reads('checkout-api needs a restart')).toBe('restart/needed');
    // The same signals beside a question that seeks information: a pattern reported, a cause or a procedure asked.
    expect(reads('checkout-api needs a restart every few hours, why?')).toBe('lookup:cause');
    expect(reads('order-worker needs a redeploy after every config change, how do we avoid that')).toBe('lookup:procedure');
    expect(reads('orders-db failing over now, how long does it take')).toBe('lookup:value');
    // An imperative stays an act whatever else the question asks.
    expect(reads('restart checkout-api now, how long will it take?')).toBe('restart/imperative');
  });

  it('names acts only by verbs from its closed lists, never by the text typed (T-16: factors are exported as spans)', () => {
    const a = actionIntent('pls rollback the <script>alert(1)</script> svc-xyz-secret-42 NOW');
    expect(a.acts.map((x) => x.verb)).toEqual(['roll back']);
    expect(JSON.stringify(a)).not.toMatch(/script|secret|xyz/);
  });
});
