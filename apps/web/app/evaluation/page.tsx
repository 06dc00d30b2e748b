import type { Metadata } from 'next';
import { ProblemPanel } from '@/components/problem';
import { attempt, getLibrary, getEvalLatest } from '@/lib/agent';
import { libraryName, readsBundledLibrary } from '@/lib/library';
import { probability } from '@/lib/bands';
import { Report } from './report';
import { readReport } from './report-view';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Evaluation' };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function EvaluationPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const [latest, read] = await Promise.all([attempt(getEvalLatest), attempt(getLibrary)]);
  const library = read.ok ? read.value : null;
  return (
    <>
      <header className="page-head">
        <h1>Evaluation</h1>
        <p className="lede">
          How often the gate answers what the library cannot answer, and refuses what it can — each hand-written corpus scored by an answerability model trained
          without it. No figure here comes from a model or bands fitted on the questions it scores, except the band explorer’s, which says so.
        </p>
        {readsBundledLibrary(library) ? null : (
          <p className="lede" data-testid="other-library">
            This agent reads {libraryName(library)}. Unless an evaluation of it was recorded (
            <code>npx sandscope eval --corpus DIR --questions FILE.jsonl --record</code>, with questions in your engineers’ words), the figures below are
            Sandscope’s record on its development libraries, not a measurement of {libraryName(library)}.
          </p>
        )}
      </header>
      {!latest.ok ? (
        <ProblemPanel problem={latest.problem} context="The latest evaluation could not be loaded." />
      ) : latest.value === null ? (
        <div className="empty" data-testid="no-evaluation">
          <h2>No evaluation has been recorded yet</h2>
          <p>
            Produce one from the repository root with <code>npm run eval:report</code>. It runs leave-one-corpus-out over the hand-written corpora,
            cross-validates the generated question set and writes <code>docs/evaluation.json</code>, which this page then shows.
          </p>
        </div>
      ) : (
        <Report view={readReport(latest.value)} below={probability(first(params.below))} above={probability(first(params.above))} />
      )}
    </>
  );
}
