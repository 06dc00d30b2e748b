import type { Intent } from './question-intent.ts';
import { fenceAfter, HEADING } from '../corpus/markdown-lines.ts';
import { withoutSiteMarkup } from '../corpus/site-markup.ts';
import { isLinksOnly } from './links-only.ts';
import { holdsLink, links, withoutEmbeds, withoutHtmlComments, withoutLinks, withoutLinkTargets } from './markup-spans.ts';

/**
 * What a section is FOR, read from its heading: the role a question's intent is
 * weighed against. A heading is how a runbook's author says what a section
 * answers; "How to investigate" answers "how do I check …" whatever words its
 * body uses.
 */
export type Role = 'procedure' | 'diagnosis' | 'impact' | 'cause' | 'meaning' | 'postmortem';

const ROLE_PATTERNS: readonly (readonly [Role, RegExp])[] = [
  ['postmortem', /\b(?:timeline|action items?|lessons(?: learned)?|follow[- ]?ups?|what went (?:well|wrong)|contributing factors?|detection|retrospective)\b/i],
  [
    'diagnosis',
    /\b(?:diagnos\w*|investigat\w*|troubleshoot\w*|debug\w*|check(?:s|ing)?|verif\w*|triage|identify\w*|inspect\w*|symptoms?|dashboards?|queries|logs|how to (?:tell|know|find))\b/i,
  ],
  [
    'procedure',
    /\b(?:mitigat\w*|remediat\w*|remed(?:y|ies)|resolution|resolv\w*|fix(?:es|ing)?|steps?|procedures?|actions?|what to do|respon(?:se|d|ding)|recover\w*|workarounds?|runbook|solutions?|restor\w*|handling|playbook|instructions?|roll ?back|fail ?over|how to (?!investigate|diagnose|check|debug|tell|know|find|identify)|escalat\w*|next steps|operations?)\b/i,
  ],
  ['impact', /\b(?:impacts?|effects?|consequences?|severity|blast radius|user experience|affected|risk)\b/i],
  ['cause', /\b(?:causes?|why|reasons?|root|how (?:it|this) works|background|explanation|what happened)\b/i],
  ['meaning', /\b(?:overview|description|summary|about|what (?:is|it means|this (?:alert )?means)|meaning|context|introduction|purpose|alert|details?)\b/i],
];

/** Every role a heading names (a heading may name two: "Diagnosis and mitigation"). */
export function rolesOf(heading: string): Role[] {
  const roles = ROLE_PATTERNS.filter(([, re]) => re.test(heading)).map(([role]) => role);
  // "Action items" and "Timeline" are a postmortem's record, never a remedy to offer (issue 9, class 6).
  return roles.includes('postmortem') ? ['postmortem'] : roles;
}

/** The role that answers a question of this intent, if one does. */
export function roleFor(intent: Intent): Role | null {
  switch (intent) {
    case 'procedure':
    case 'diagnosis':
    case 'impact':
    case 'cause':
    case 'meaning':
      return intent;
    default:
      return null;
  }
}

const PLACEHOLDER =
  /^(?:todo|tbd|tba|tbc|to ?do|to be (?:added|written|done|completed|defined|determined|confirmed|documented)|coming soon|n\/a|none(?: yet)?|placeholder|work in progress|wip|fill (?:me )?in|pending|\.\.\.|…|-|nothing yet|not yet written|add (?:content|details) here)[.!]*$/i;

/**
 * A line opening or closing a code fence. Only `.test` reads it. It was `^\s*(?:```|~~~)`: `\s` crosses lines, so from
 * every line's start it ran over all the blank lines after it, and a section of 80,000 blank lines took 5.7 s to index
 * (S-211). Whitespace before a fence within its own line finds the same fences: one found across blank lines is also
 * found from the start of its own line.
 */
const FENCE_LINE = /^[^\S\n\r\u2028\u2029]*(?:```|~~~)/m;

/** A body's lines as they read: no comments, no list markers, no blank lines. */
function bodyLines(body: string): string[] {
  // S-214: comments, embeds and links, here and below, are found by scanners that return what their regular
  // expressions did in time in proportion to the text; the expressions read to the end of the text from every unclosed
  // `<!--`, `<img `, `[` or `[a](`, and a corpus of one such runbook took seconds to load.
  return withoutHtmlComments(body)
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim())
    .filter(Boolean);
}

/**
 * A section body that says nothing: empty, a placeholder ("To be added.",
 * "TODO"), or only a link, a picture or an embedded player. Such a section answers nothing, however well its
 * heading matches (issue 9, class 1: the question was answered from the
 * runbook's other sections instead). Nor does one made of site markup alone: a section whose body is
 * `{% include_cached common/upgrade/patch-rollback.md %}` holds its text in another file, and was answered, verified,
 * with the include line (S-119). Outside a code fence only: a fenced Jinja template is content.
 */
export function isPlaceholder(body: string): boolean {
  const text = FENCE_LINE.test(body) ? body : withoutSiteMarkup(body);
  // A link, or a picture: `![decision tree](tree.png)` is no more an answer in words than a link is (S-042).
  return bodyLines(withoutEmbeds(text))
    .map((l) => l.replace(/[*_`>]/g, '').trim())
    .filter(Boolean)
    .every((l) => PLACEHOLDER.test(l) || isLinksOnly(l));
}

const POINTS_ELSEWHERE =
  /\b(?:see|refer(?:s|red)? to|read|follow(?:ing)?|go to|check out|consult|documented|described|instructions|more (?:details|information|info)|details (?:are|can be))\b/i;

/**
 * A body that only points elsewhere: every line holds a link and says "see …", "follow the instructions
 * at …", "documented in …". It tells where the answer is, not what it is: "See the [PagerDuty
 * documentation](…) if you need to make a rota swap" holds no step of a schedule override (S-043).
 */
export function isReferral(body: string): boolean {
  const lines = bodyLines(body);
  return lines.length > 0 && lines.every((l) => holdsLink(l) && POINTS_ELSEWHERE.test(withoutLinkTargets(l)));
}

/** A section of a passage: its heading, roles, and whether its body says anything. */
export interface SectionRole {
  readonly heading: string;
  readonly roles: readonly Role[];
  readonly placeholder: boolean;
  /** Its body only points elsewhere (`isReferral`): no content of its own for a how, an impact or a cause. */
  readonly referral?: boolean;
  /** Words of its body outside links, and the share of its body's characters that are links. */
  readonly words: number;
  readonly linkShare: number;
}

function bodyShape(body: string): { words: number; linkShare: number } {
  const text = withoutHtmlComments(body).trim();
  if (!text) return { words: 0, linkShare: 0 };
  const linked = links(text).reduce((s, l) => s + l.length, 0);
  return { words: (withoutLinks(text, ' ').match(/[A-Za-z0-9]+/g) ?? []).length, linkShare: linked / text.length };
}

/**
 * The sections a passage holds: its own heading and body up to the first merged
 * sub-heading, then each merged sub-heading and its body (short sections merge
 * into one passage, so an empty "## Mitigation" may stand above "## Escalation").
 * A section whose body is empty but which has deeper sub-sections with content
 * is a container ("## Alerts" over "### DiskFull"), not a placeholder. `lead`
 * marks the document's first section, which describes what the document is about.
 */
export function sectionsOfPassage(heading: string, text: string, level = 2, lead = false): SectionRole[] {
  const raw: { heading: string; level: number; body: string[] }[] = [{ heading, level, body: [] }];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const was = fence;
    fence = fenceAfter(fence, line);
    const m = was === null && fence === null ? HEADING.exec(line) : null;
    if (m) raw.push({ heading: m[2]!, level: m[1]!.length, body: [] });
    else raw[raw.length - 1]!.body.push(line);
  }
  const empty = raw.map((r) => isPlaceholder(r.body.join('\n')));
  return raw.map((r, i) => {
    let container = false;
    if (!r.body.join('').trim()) {
      for (let j = i + 1; j < raw.length && raw[j]!.level > r.level; j++) if (!empty[j]) container = true;
    }
    const roles = rolesOf(r.heading);
    if (lead && i === 0 && !roles.includes('meaning')) roles.push('meaning');
    const body = r.body.join('\n');
    return {
      heading: r.heading,
      roles,
      placeholder: empty[i]! && !container,
      ...(!empty[i] && isReferral(body) ? { referral: true } : {}),
      ...bodyShape(body),
    };
  });
}
