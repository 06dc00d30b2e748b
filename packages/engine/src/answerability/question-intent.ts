import { type DemandedValue, demandedValue } from '../retrieval/question-shape.ts';
import { contentTerms } from '../retrieval/tokenizer.ts';

/**
 * What a question asks for, read from its shape alone. The answerability model
 * weighs it against the role of a passage (its heading): "how do I mitigate X?"
 * is answered by X's Mitigation section, which shares few words with the
 * question (issue 9, class 1), and not by X's Impact section, which shares more.
 */
export type Intent = 'procedure' | 'diagnosis' | 'impact' | 'cause' | 'value' | 'meaning' | 'yes-no' | 'lookup';

export interface QuestionIntent {
  readonly intent: Intent;
  readonly demanded: DemandedValue;
  /**
   * For a yes/no question about a remedy or a cause ("would restarting the
   * ingesters help with X?", "could a bad deploy explain X?"): the content terms
   * of the remedy or cause. X's runbook must mention it for the question to be
   * answered (issue 9, class 2); empty otherwise.
   */
  readonly proposition: readonly string[];
}

// A yes/no question may follow the symptom it is about: "es cluster red - should i restart the nodes?".
const YES_NO_CLAUSE = /(?:^|[-–—:,;?.!]\s+|\bso\s+)((?:would|could|should|can|will|might|may|does|do|is|are|did|was)\b.*)$/i;
const PROPOSITION =
  /^(?:would|could|should|can|will|might|may|does|do|is|are|did|was)\s+(?:it\s+(?:help|work)\s+(?:to|if)\s+(?:i|we)?\s*)?(.+?)\s+(?:help|helps|fix|fixes|solve|resolve|work|cause|causes|caused|causing|explain|explains|trigger|triggers|trip|lead to|be behind|be the (?:cause|culprit|reason)|be what|be why|clear|unstick|release|stop|get it|recover|prevent|reduce|sort it)\b/i;
const SHOULD_I = /^(?:should|can|do|could|may)\s+(?:i|we)\s+(?:just\s+|safely\s+)?(.+?)(?:\s+(?:to|for|when|if|while|during|before|after)\b.*)?\s*[?.!]?$/i;
// A question after a specific setting or fact that need not be a number ("which port", "the default log level").
const VALUE_LOOKUP =
  /\b(?:default|defaults|set to|configured (?:to|as)|capped at|which (?:port|user(?:name)?|permission|version|format|policy|command|rake task|script|namespace|bucket|url|endpoint)|what (?:port|time|cron|format|version|policy|username|permission|url|endpoint|namespace)\b)/i;
// "how do I check / find / tell …" asks how to investigate; checked before the general "how do I …".
const DIAGNOSIS =
  /\b(?:how (?:do|can|should|would|to|shall) (?:i|we|you|one)?\s*(?:check|diagnose|investigate|debug|troubleshoot|find out|tell|know|confirm|verify|see|figure out|identify|look|determine|spot|detect|work out|inspect|monitor)\b|what (?:should|do|can) (?:i|we) (?:check|look)|where (?:do|should|can) (?:i|we) (?:look|check|find)|diagnos\w*|investigat\w*|troubleshoot\w*|debug\w*|which (?:dashboard|logs?|metrics?|query|queries)\b)/i;
/** Words that ask what to do, said once for both patterns below. */
const WHAT_TO_DO = 'what (?:do|should|can|must) (?:i|we) do|what now|now what|what to do';
/** A question asking what to do, whatever else it names: read before a value, a diagnosis or any other shape (S-155). */
const ASKS_WHAT_TO_DO = new RegExp(String.raw`\b(?:${WHAT_TO_DO})\b`, 'i');
// Any "how do I <do something>" asks for a procedure, whatever the verb ("how do I move the cluster").
const PROCEDURE = new RegExp(
  String.raw`\b(?:${WHAT_TO_DO}|wh?at do\b|what(?:'s| is) the (?:fix|procedure|process|remedy|mitigation|workaround|command|script)|how (?:do|can|should|would|shall|might) (?:i|we|you|one)\b|how to\b|,\s*how\s*\??$|\bsteps?\b|procedure|runbook for|mitigat\w*|remediat\w*|\bfix(?:es|ing)?\b|workaround|recover(?:y)?\b)`,
  'i',
);
const IMPACT =
  /\b(?:impact|impacts|affect(?:s|ed|ing)?|user[- ]facing|customers?|users? (?:see|notice)|what breaks|consequences?|blast radius|how bad|is it bad|matter)\b/i;
const CAUSE = /\b(?:why|causes?|caused|causing|root cause|reasons?|what (?:makes|triggers|leads)|triggers?|triggered|behind|responsible for)\b/i;
const MEANING =
  /\b(?:what (?:does|do|is|are|'s)\b.*\bmean|meaning of|what(?:'s| is| are) (?:a |an |the )?[\w-]+\??$|explain|definition|what is this alert|tell me about)\b/i;

/** The question's intent, the value it demands, and the proposition of a yes/no question. */
export function questionIntent(question: string): QuestionIntent {
  const demanded = demandedValue(question);
  const q = question.trim();
  const clause = YES_NO_CLAUSE.exec(q)?.[1];
  if (clause) {
    const m = PROPOSITION.exec(clause) ?? SHOULD_I.exec(clause);
    const proposition = m ? contentTerms(m[1]!).filter((t) => !PRONOUN_TERMS.has(t)) : [];
    if (proposition.length) return { intent: 'yes-no', demanded, proposition };
  }
  // "…capacity didn't change, now what" asks what to do, though it names a quantity: the value it names is the
  // symptom, and the answer is the steps (S-155). The quantity is still demanded of the passage.
  if (ASKS_WHAT_TO_DO.test(q)) return { intent: 'procedure', demanded, proposition: [] };
  if (demanded || VALUE_LOOKUP.test(q)) return { intent: 'value', demanded, proposition: [] };
  if (DIAGNOSIS.test(q)) return { intent: 'diagnosis', demanded, proposition: [] };
  if (PROCEDURE.test(q)) return { intent: 'procedure', demanded, proposition: [] };
  if (IMPACT.test(q)) return { intent: 'impact', demanded, proposition: [] };
  if (CAUSE.test(q)) return { intent: 'cause', demanded, proposition: [] };
  if (MEANING.test(q)) return { intent: 'meaning', demanded, proposition: [] };
  return { intent: 'lookup', demanded, proposition: [] };
}

const PRONOUN_TERMS = new Set(['thing', 'stuff', 'someth', 'anyth']);
