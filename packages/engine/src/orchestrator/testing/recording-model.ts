import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamResult } from '@ai-sdk/provider';
import { estimateTokens, promptText, tokenUsage } from '../../models/pricing.ts';
import { parseDraftPrompt, type ParsedDraftPrompt } from '../../models/prompt.ts';
import { textToStream } from '../../models/text-stream.ts';

export interface DraftCall {
  /** 0-based call number. */
  readonly index: number;
  /** The draft prompt as the contract reads it back (null if it was not one). */
  readonly draft: ParsedDraftPrompt | null;
  readonly options: LanguageModelV3CallOptions;
}

/**
 * A model that answers each draft prompt with whatever `respond` returns and
 * records every call (STYLE 12). `respond` sees the parsed prompt — passages,
 * question, feedback — so a script can cite the passages of THIS run, and a
 * test can read what the Nth prompt said.
 */
export class RecordingModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly modelId = 'recording';
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly calls: DraftCall[] = [];

  constructor(
    private readonly respond: (call: DraftCall) => string,
    readonly provider = 'scripted',
  ) {}

  private answer(options: LanguageModelV3CallOptions): { text: string; inputTokens: number } {
    const call: DraftCall = { index: this.calls.length, draft: parseDraftPrompt(options.prompt), options };
    this.calls.push(call);
    return { text: this.respond(call), inputTokens: estimateTokens(promptText(options.prompt)) };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { text, inputTokens } = this.answer(options);
    return {
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: tokenUsage(inputTokens, estimateTokens(text)),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { text, inputTokens } = this.answer(options);
    return { stream: textToStream(text, { usage: tokenUsage(inputTokens, estimateTokens(text)), modelId: this.modelId }) };
  }
}

/** A draft reply in the prompt contract's JSON shape. */
export function draftReply(claims: readonly { text: string; citations: readonly string[] }[]): string {
  return JSON.stringify({ claims });
}
