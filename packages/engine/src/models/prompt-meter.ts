/**
 * How many prompt tokens each provider has billed per token of the bound the
 * spend guard priced (issue 12, defect 6). Process-wide, like the cooldowns:
 * what one run learns about a provider's bill is true for the next run.
 *
 * `promptTokenBound` holds for any tokenizer that reads only what we send. A
 * provider that bills more — a gateway that adds its own system prompt, a
 * provider that miscounts, or a stub reporting 20,000 prompt tokens for a
 * 2 kB prompt, as in the report where 19 of 20 runs ended at $0.20 against
 * $0.02 — can overrun a reservation once; this remembers by how much, so the
 * guard prices that provider's next prompts at what it bills instead of
 * sending them again at the old price.
 *
 * The latest observation wins: a provider that bills within the bound again is
 * priced at the bound again. Memory is one number per provider name.
 */
export class PromptMeter {
  readonly #factors = new Map<string, number>();

  /** What to multiply the prompt bound by for `provider`: at least 1. */
  factor(provider: string): number {
    return this.#factors.get(provider) ?? 1;
  }

  /** Record that `provider` billed `billedTokens` for a prompt whose bound was `boundTokens`. Unknown usage teaches nothing. */
  observe(provider: string, boundTokens: number, billedTokens: number | undefined): void {
    if (billedTokens === undefined || !Number.isFinite(billedTokens) || !(boundTokens > 0)) return;
    const ratio = billedTokens / boundTokens;
    if (ratio > 1) this.#factors.set(provider, ratio);
    else this.#factors.delete(provider);
  }
}
