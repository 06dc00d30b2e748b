/**
 * Answerable questions from the shipped corpus's question set. A question the
 * gate refuses makes no model call and spends nothing, and the semantic cache
 * answers a repeated one without a call — so a test about spending or about
 * what a provider sends back asks real, different questions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './service.ts';

export function answerableQuestions(): string[] {
  return readFileSync(join(REPO_ROOT, 'corpus/questions.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { question: string; label: string })
    .filter((q) => q.label === 'answerable')
    .map((q) => q.question);
}
