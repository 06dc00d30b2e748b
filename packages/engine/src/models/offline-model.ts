import {
  InvalidPromptError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { draftExtractive } from '../answer/extractive.ts';
import { estimateTokens, FREE, promptText, tokenUsage, type Pricing } from './pricing.ts';
import { parseDraftPrompt } from './prompt.ts';
import { textToStream } from './text-stream.ts';

/**
 * The model that is always there: no key, no network, no cost. It is the last
 * router candidate, so a run with every provider down (or ticked off on the
 * console) still drafts — which is what lets the whole suite run offline.
 *
 * It answers the same prompt contract as the HTTP providers (it parses the draft
 * prompt back) instead of being called with structured arguments, so the router
 * can fail over to it without any special case. Deterministic: the same prompt
 * gives the same bytes, streamed or not.
 */
export class OfflineExtractiveModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'offline';
  readonly modelId = 'extractive-v1';
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** What it bills: nothing. */
  static readonly pricing: Pricing = FREE;

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { text, usage } = this.draft(options);
    return {
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      response: { modelId: this.modelId },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { text, usage } = this.draft(options);
    return { stream: textToStream(text, { usage, modelId: this.modelId }) };
  }

  private draft(options: LanguageModelV3CallOptions): { text: string; usage: LanguageModelV3Usage } {
    const parsed = parseDraftPrompt(options.prompt);
    if (!parsed) {
      throw new InvalidPromptError({
        prompt: options.prompt,
        message: 'The offline model answers only draft prompts built by buildDraftPrompt().',
      });
    }
    const claims = draftExtractive(parsed.question, parsed.passages, { feedback: parsed.feedback });
    const text = JSON.stringify({ claims });
    return { text, usage: tokenUsage(estimateTokens(promptText(options.prompt)), estimateTokens(text)) };
  }
}
