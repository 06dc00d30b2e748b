import { isWorkload } from '@sandscope/api';
import { cookies } from 'next/headers';
import { ProblemPanel } from '@/components/problem';
import { RecordedRun } from '@/components/recorded-run';
import { attempt, getLibrary, getProviders, getRun } from '@/lib/agent';
import { CUT_PARAM, cutNotice } from '@/lib/kept-text';
import { libraryName, readsBundledLibrary } from '@/lib/library';
import { problemFromQuery } from '@/lib/problems';
import { REFUSAL_WORDS_COOKIE, withRefusalWords } from '@/lib/refusal-words';
import { RUN_PARAM } from '@/lib/run-address';
import { consoleRefusal, KEPT_QUESTION_CHARS } from '@/lib/run-request';
import { ConsoleForm } from './_console/console-form';

export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function ConsolePage({ searchParams }: { searchParams: Search }) {
  const [params, jar] = await Promise.all([searchParams, cookies()]);
  // The URL names the code; the reason ("question contains a NUL character …") is in this browser's cookie (S-197).
  const fromQuery = problemFromQuery(params);
  const problem = fromQuery ? withRefusalWords(fromQuery, 'console', jar.get(REFUSAL_WORDS_COOKIE)?.value) : null;
  // S-239: the run the console put in its address once it had an id (lib/run-address.ts), read back from
  // its record, so a reload or Back from the record shows the question and its answer again.
  const runId = first(params[RUN_PARAM]);
  const [providers, read, asked] = await Promise.all([
    attempt(getProviders),
    attempt(getLibrary),
    runId ? attempt(() => getRun(runId)) : Promise.resolve(null),
  ]);
  const library = read.ok ? read.value : null;
  const bundled = readsBundledLibrary(library);
  const recorded = asked?.ok ? asked.value.run : null;
  const workload = first(params.workload) ?? recorded?.workload;
  const initialQuestion = (first(params.q) ?? recorded?.question ?? '').slice(0, KEPT_QUESTION_CHARS);
  return (
    <>
      <header className="page-head">
        <h1>Console</h1>
        <p className="lede">
          {bundled ? 'Ask about Larkspur’s production estate.' : `Ask about the runbooks in ${libraryName(library)}, the library this agent reads.`} Every claim
          in an answer cites a passage from the library; when the library does not answer, the console says so and writes nothing.
        </p>
      </header>
      {problem ? <ProblemPanel problem={problem} context={consoleRefusal(problem.code)} /> : null}
      {problem && first(params[CUT_PARAM]) === '1' && initialQuestion ? (
        <p className="notice question-cut" data-cut="question">
          {cutNotice(initialQuestion, 'question')}
        </p>
      ) : null}
      {!providers.ok ? (
        <ProblemPanel problem={providers.problem} context="The provider list could not be loaded, so providers cannot be broken for a run." />
      ) : null}
      <ConsoleForm
        providers={providers.ok ? providers.value.filter((p) => p.configured !== false) : []}
        initialQuestion={initialQuestion}
        initialWorkload={isWorkload(workload) ? workload : 'triage'}
        presets={bundled}
        shown={
          asked?.ok ? (
            <RecordedRun detail={asked.value} />
          ) : asked && runId ? (
            <ProblemPanel problem={asked.problem} context="The run this address names could not be read back.">
              <p className="problem-next">
                Its record, if there is one: <a href={`/runs/${encodeURIComponent(runId)}`}>run {runId}</a>.
              </p>
            </ProblemPanel>
          ) : null
        }
      />
    </>
  );
}
