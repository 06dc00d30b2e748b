import { describeThrown } from '@sandscope/store';
import { UserError } from '../user-error.ts';
import { refuseUndecodedArguments } from './args.ts';
import { askCommand } from './ask-command.ts';
import { graphCommand } from './graph-command.ts';
import { investigationCommand } from './investigation-command.ts';
import { passagesCommand } from './passages-command.ts';
import { calibrateCommand } from './calibrate-command.ts';
import { evalCommand } from './eval-command.ts';
import { feedbackCommand } from './feedback-command.ts';
import { questionsCommand } from './questions-command.ts';
import { serveCommand } from './serve-command.ts';
import { startCommand } from './start-command.ts';
import { toolsCommand } from './tools-command.ts';
import { diskFullLine } from './disk-full.ts';

const INTRO = `sandscope — an evidence-gated, cited on-call assistant

Usage:
`;

/**
 * Each command's part of the help, in the order `help` prints them: `ask --help` and `help ask` print the command's own
 * part. Both printed something else: `ask --help` "Unknown option '--help'" (exit 2), `help ask` the whole text.
 */
const USAGE: Record<string, string> = {
  ask: `  npx sandscope ask [options] "question"                 run the question through the graph: answer, refuse,
                                                         escalate, or stop for approval
      --workload, -w triage|change|postmortem            what kind of run (default triage)
      --trace                                            nodes visited, provider of each model call, tokens, cost
      --json                                             the whole run result as JSON (trace included)
      --fail-provider NAME                               fail this provider for this run only (repeatable)
      --corpus DIR                                       another folder of markdown (default: the bundled corpus)
`,
  graph: `  npx sandscope graph [--json]                           the compiled orchestration graph: Mermaid, or
                                                         { nodes, edges, mermaid }
`,
  eval: `  npx sandscope eval --loco [--corpora DIR] [--exclude a,b] [--held-out a,b] [--json [--rows]] [--record]
                                                         the headline: leave-one-corpus-out over the development
                                                         corpora; --exclude leaves corpora out; --held-out scores
                                                         only those corpora's folds (an experiment: no --record)
  npx sandscope eval [--corpus DIR] [--questions FILE.jsonl | --feedback] [--folds 5] [--seed N] [--cv] [--json [--rows]] [--skip-bad]
                     [--record] [--adjudicator model] [--model FILE]
                                                         held-out figures of the evidence gate; --feedback scores
                                                         the marked runs with what ships, never tuned on;
                                                         --json --rows: each question's verdict as well;
                                                         --record saves it for GET /v1/eval/latest;
                                                         --adjudicator model: the configured providers judge what
                                                         the adjudicated bands defer, counted in the figures;
                                                         --model FILE: score with a model held out of the corpus
                                                         (npm run train -- --exclude NAME --out FILE)
`,
  feedback: `  npx sandscope feedback RUN_ID --label wrong-answer|wrong-refusal|right [--note TEXT]
                     [--evidence PASSAGE_ID|TEXT [--corpus DIR]]
                                                         mark a run (replaces its earlier mark, and says which);
                                                         --evidence names the passage that answers (its id, or a
                                                         quotation of it): wrong-answer with it is an answer from
                                                         the wrong passage, right with it confirms the one cited
  npx sandscope feedback --export FILE.jsonl|- [--force] every mark as a question file (eval --questions), one
                                                         line per question (its newest mark); - for standard
                                                         output; --force replaces an existing file
`,
  calibrate: `  npx sandscope calibrate --corpus DIR [--questions FILE] [--force | --dry-run]
                                                         refit the bands on a corpus's own questions; writes
                                                         DIR/thresholds.json only if they beat the shipped bands held out
`,
  questions: `  npx sandscope questions [--corpus DIR] [--out FILE] [--seed N] [--force]
                                                         write the generated question set (JSONL), by default
                                                         to DIR/questions.jsonl; --force replaces an existing file
`,
  passages: `  npx sandscope passages [--corpus DIR] [--json]         every passage id of the library, with its document and
                                                         the headings it holds (a short section is merged into its
                                                         neighbour's passage and has no id of its own): the ids a
                                                         question file's "evidence" may name
`,
  serve: `  AGENT_TOKEN=… npx sandscope serve [--port 7860] [--host 127.0.0.1]
                                                         the agent's HTTP API alone (docs/API.md)
`,
  start: `  npx sandscope start [--port 7860] [--web-port 3000] [--web-host 127.0.0.1]
                                                         the agent and the website on this machine (npm start);
                                                         other ports let a second checkout run beside the first
`,
  investigation: `  npx sandscope investigation new TITLE | list | show ID [--json] | rename ID TITLE | rm ID
                              | add ID FILE... | ask ID "message" [--json]
                                                         multi-turn investigations over an incident's files;
                                                         answers cite file:line or runbook passages. With a
                                                         provider key (GROQ_API_KEY, GEMINI_API_KEY, …) a turn is
                                                         the tool-calling loop through the router (step limit,
                                                         spend guard); with none, or when every provider fails,
                                                         the offline planner answers with the same tools. Either
                                                         may run jq and log_summary in the jail when TOOLS_TEMPLATE
                                                         turns them on and bubblewrap is here
`,
  tools: `  npx sandscope tools build | list                       build the sandboxed tools' packages into TOOLS_DIR (once);
                                                         list them, built or not, offered or not, and whether a
                                                         bubblewrap jail can be made here (TOOLS_TEMPLATE turns them on)
`,
};

const HELP = `${INTRO}${Object.values(USAGE).join('')}  npx sandscope help [COMMAND]                           this text, or one command's part of it
                                                         (as does COMMAND --help)
`;

/** A command's part of the help; `investigate` is investigation's other name. */
const usageOf = (name: string) => `Usage:\n${USAGE[name === 'investigate' ? 'investigation' : name]}`;

/** `help`, or `help COMMAND`: one command's part, or what the commands are when it names none of them. */
async function helpCommand(argv: string[]): Promise<number> {
  const [name, ...more] = argv;
  if (name === undefined || name === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (commandOf(name) === undefined || more.length)
    throw new UserError(
      `${more.length ? 'help takes one command name' : `unknown command "${name}"`}. Commands: ${Object.keys(USAGE).join(', ')}. \`npx sandscope help\` prints them all.`,
    );
  process.stdout.write(usageOf(name));
  return 0;
}

/** `--help` or `-h` among a command's arguments, before a `--` that ends its options. */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  ask: askCommand,
  graph: graphCommand,
  investigation: investigationCommand,
  investigate: investigationCommand,
  eval: evalCommand,
  feedback: feedbackCommand,
  calibrate: calibrateCommand,
  questions: questionsCommand,
  passages: passagesCommand,
  serve: serveCommand,
  start: startCommand,
  tools: toolsCommand,
  help: helpCommand,
};

/** The command of that name; `sandscope toString` found Object's own and died with a stack trace. */
const commandOf = (name: string): Command | undefined => (Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined);

/**
 * The CLI boundary: unknown errors are converted once, here (STYLE rule 7).
 * A UserError prints its one line; anything else prints a one-line bug report.
 */
export async function main(argv: string[]): Promise<number> {
  const [name = 'help', ...rest] = argv;
  const command = commandOf(name === '--help' || name === '-h' ? 'help' : name);
  try {
    if (!command) throw new UserError(`unknown command "${name}". Run \`npx sandscope help\` for the commands.`);
    refuseUndecodedArguments(argv);
    if (command !== helpCommand && asksForHelp(rest)) {
      process.stdout.write(usageOf(name));
      return 0;
    }
    return await command(rest);
  } catch (error) {
    if (error instanceof UserError) {
      process.stderr.write(`sandscope: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(diskFullLine(error) ?? internalErrorLine(error));
    if (process.env.SANDSCOPE_DEBUG) console.error(error);
    return 1;
  }
}

/**
 * The line for a failure nobody foresaw: what was thrown, said in words even when it is no Error (PGlite's ErrnoError
 * was printed "internal error: [object Object]", naming nothing a report could carry).
 */
export function internalErrorLine(error: unknown): string {
  return `sandscope: internal error: ${describeThrown(error)}. This is a bug; rerun with SANDSCOPE_DEBUG=1 for details.\n`;
}
