import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { identifierTokens } from '../retrieval/question-shape.ts';
import { isStopword, stem } from '../retrieval/tokenizer.ts';

type Nlp = ReturnType<typeof winkNLP>;
let nlp: Nlp | undefined;

/**
 * The things a question names: its nouns and proper nouns (wink-nlp's English
 * part-of-speech model, shipped by an npm package) and any identifier. "chat
 * answers taking forever" is about chat answers; "taking forever" is how it was
 * said. A passage that lacks the question's nouns is about something else; one
 * that lacks its casual verbs may still answer it (issue 9, class 5).
 */
export function questionNouns(question: string): string[] {
  nlp ??= winkNLP(model, ['pos']);
  const doc = nlp.readDoc(question);
  const tokens = doc.tokens().out();
  const tags = doc.tokens().out(nlp.its.pos);
  const out = new Set<string>();
  tokens.forEach((t, i) => {
    if (tags[i] !== 'NOUN' && tags[i] !== 'PROPN') return;
    for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) if (!isStopword(w) && w.length > 1) out.add(stem(w));
  });
  for (const id of identifierTokens(question)) out.add(stem(id));
  return [...out];
}
