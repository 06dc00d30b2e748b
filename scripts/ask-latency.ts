import type { KnowledgeBase } from '@sandscope/engine';

/** `ask` latencies in ms over `questions`, in-process, after one warm-up pass of up to 50 (shared by bench and eval:report). */
export async function askLatencies(kb: KnowledgeBase, questions: readonly string[]): Promise<number[]> {
  for (const q of questions.slice(0, 50)) await kb.ask(q);
  const times: number[] = [];
  for (const q of questions) {
    const t = performance.now();
    await kb.ask(q);
    times.push(performance.now() - t);
  }
  return times;
}
