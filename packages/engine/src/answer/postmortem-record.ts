import { type Role, rolesOf } from '../answerability/section-role.ts';

/**
 * What a postmortem RECORDS, as opposed to what a runbook tells you to do. An
 * incident's timeline and its action items ("Add an alert", "Canary releases to
 * one warehouse") read like steps, but they are what happened and what was
 * promised, never a remedy for the incident in front of you (issue 9, class 6).
 */

// The words of `rolesOf`'s postmortem role that name nothing but a record. "Detection" alone is
// left to the exact heading: "Detection of node-level failures" is how a system works, not a record.
const RECORD_WORDS = /\b(?:timeline|action items?|lessons(?: learned)?|follow[- ]?ups?|what went (?:well|wrong)|contributing factors?|retrospective)\b/gi;

/**
 * Does this heading head a postmortem's record? Its role must be 'postmortem'
 * (the answerability model's reading of it), and once the record words are taken
 * out it must name no remedy or check of its own: `rolesOf` reads "Recovery and
 * Follow-up" (a runbook's last steps) and "Identify Timeline of Attack" (a
 * security response step) as postmortem, yet both are things to do. In a
 * postmortem's own document, a heading naming actions is its action items
 * whatever words it uses ("Actions agreed after the pool saturation" reads as
 * procedure to `rolesOf`, and was offered as the fix for the next outage).
 */
export function isRecordHeading(heading: string, inPostmortem = false): boolean {
  const plain = heading.replace(/[*_`#]/g, '').trim();
  if (inPostmortem && POSTMORTEM_ACTIONS.test(plain)) return true;
  if (!rolesOf(plain).includes('postmortem')) return false;
  if (/^detection\W*$/i.test(plain)) return true;
  if (!new RegExp(RECORD_WORDS.source, 'i').test(plain)) return false;
  const rest = rolesOf(plain.replace(RECORD_WORDS, ' '));
  return !rest.includes('procedure') && !rest.includes('diagnosis');
}

const POSTMORTEM_ACTIONS = /\b(?:actions?|follow[- ]?ups?|remediation|corrective|prevent(?:at)?ive|measures|next steps|to-?dos?)\b/i;
const POSTMORTEM_DOCUMENT =
  /\b(?:post-?mortems?|retrospective|incident (?:review|report)|post-incident review)\b|^(?:postmortem|post-mortem|incident)[-_]\d{4}/i;

/** Is this passage's document a postmortem (by its title or file name)? */
export function isPostmortemDocument(doc: string, docTitle: string): boolean {
  return POSTMORTEM_DOCUMENT.test(docTitle) || POSTMORTEM_DOCUMENT.test(doc);
}

/**
 * A heading's roles for drafting, and whether it heads a record. `rolesOf` lets
 * a postmortem word outrank every other role; for a heading that is not a record
 * ("Recovery and Follow-up") the roles of its other words are what it is for.
 */
export function headingRoles(heading: string, inPostmortem = false): { roles: Role[]; record: boolean } {
  const roles = rolesOf(heading);
  if (isRecordHeading(heading, inPostmortem)) return { roles, record: true };
  if (!roles.includes('postmortem')) return { roles, record: false };
  return { roles: rolesOf(heading.replace(RECORD_WORDS, ' ')).filter((r) => r !== 'postmortem'), record: false };
}

// "14:02", "06:02 UTC —", "[14:02:11]", "2024-03-14 06:02", "2024-03-14T06:02Z", "14 March 2024, 06:02", "Mar 14 06:02".
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*';
const TIMELINE_LINE = new RegExp(
  `^[\\[(]?(?:(?:\\d{4}-\\d{2}-\\d{2}|\\d{1,2}\\s+${MONTH}(?:\\s+\\d{4})?|${MONTH}\\s+\\d{1,2}(?:,?\\s+\\d{4})?)[\\sT,]+)?\\d{1,2}:\\d{2}(?::\\d{2})?(?!\\d)`,
  'i',
);

/** A line of a timeline: it opens with a time of day, or a date and a time ("14:02 — pager fired"). */
export function isTimelineLine(sentence: string): boolean {
  return TIMELINE_LINE.test(sentence.trim());
}

const ASKS_ABOUT_RECORD =
  /\b(?:post-?mortems?|action items?|timeline|follow[- ]?ups?|lessons(?: learned)?|retro(?:spective)?s?|incident review|post-incident review|what went (?:well|wrong))\b/i;

/**
 * Does the question ask about a postmortem itself ("I'm the postmortem owner,
 * what do I do first?", "what are the action items from the March outage?")?
 * Then the record is the answer, not a remedy offered in its place.
 */
export function asksAboutRecord(question: string): boolean {
  return ASKS_ABOUT_RECORD.test(question);
}
