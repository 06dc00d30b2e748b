import { feedbackLabelSchema } from '@sandscope/api';
import { describe, expect, it } from 'vitest';
import { FEEDBACK_CHOICES, feedbackText, isFeedbackLabel, MAX_NOTE_CHARS } from '../lib/feedback-labels';

/* The three answers to "Was this right?" (lib/feedback-labels.ts): the contract's labels, and the agent's note limit (docs/API.md). */

describe('feedback labels', () => {
  it('offers exactly the labels the contract accepts, each once, and the 2000-character note limit', () => {
    expect(FEEDBACK_CHOICES.map((c) => c.label).sort()).toEqual([...feedbackLabelSchema.options].sort());
    expect(MAX_NOTE_CHARS).toBe(2000);
  });

  it('recognises a label and words it', () => {
    expect(isFeedbackLabel('wrong-refusal')).toBe(true);
    expect(isFeedbackLabel('wrong')).toBe(false);
    expect(isFeedbackLabel(undefined)).toBe(false);
    expect(feedbackText('wrong-answer')).toMatch(/^Wrong answer/);
  });
});
