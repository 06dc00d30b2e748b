import type { Metadata } from 'next';
import { CorpusDocumentView } from '@/components/corpus-document';
import { EstateGraph } from '@/components/estate-graph';
import { ProblemPanel } from '@/components/problem';
import type { Corpus, Gap } from '@sandscope/api/corpus';
import type { Estate } from '@sandscope/api/estate';
import { docAnchor, docHref, serviceAnchor } from '@/lib/anchors';
import { attempt, getCorpus, getEstate } from '@/lib/agent';
import { libraryName, readsBundledLibrary } from '@/lib/library';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Data' };

export default async function DataPage() {
  const [corpus, estate] = await Promise.all([attempt(getCorpus), attempt(getEstate)]);
  const c = corpus.ok ? corpus.value : null;
  return (
    <>
      <header className="page-head">
        <h1>Data</h1>
        <p className="lede">
          Everything the assistant knows, published.{' '}
          {readsBundledLibrary(c?.library)
            ? 'Larkspur is an invented company; every document below was written for this project.'
            : `The documents below are the library this agent reads, ${libraryName(c?.library)}.`}{' '}
          Citations elsewhere on the site link to the passage they cite, here.
        </p>
        {c ? (
          <p className="stats">
            <b>{c.documents.length}</b> documents · <b>{c.documents.reduce((s, d) => s + d.words, 0).toLocaleString('en-GB')}</b> words ·{' '}
            <b>{c.chunks.length}</b> passages · corpus version <code>{c.version}</code>
          </p>
        ) : null}
        <nav className="toc" aria-label="On this page">
          <a href="#estate">Estate</a> · <a href="#faults">Faults</a> · <a href="#gaps">What it does not cover</a> · <a href="#questions">Question set</a> ·{' '}
          <a href="#documents">Documents</a>
        </nav>
      </header>

      <section id="estate" aria-labelledby="estate-title">
        <h2 id="estate-title">The estate</h2>
        {!estate.ok ? (
          <ProblemPanel problem={estate.problem} context="The estate could not be loaded." />
        ) : estate.value ? (
          <EstateSection estate={estate.value} />
        ) : (
          <p className="empty">
            This corpus publishes no estate: it has no <code>estate.json</code> beside its documents.
          </p>
        )}
      </section>

      <section id="faults" aria-labelledby="faults-title">
        <h2 id="faults-title">Faults, their signals, and their runbooks</h2>
        {estate.ok && estate.value ? <Faults estate={estate.value} corpus={c} /> : <p className="muted">No faults: they are part of the estate.</p>}
      </section>

      {!corpus.ok ? <ProblemPanel problem={corpus.problem} context="The document library could not be loaded." /> : null}
      {c ? (
        <>
          <section id="gaps" aria-labelledby="gaps-title">
            <h2 id="gaps-title">What the library deliberately does not cover</h2>
            <Gaps gaps={c.gaps} />
          </section>
          <section id="questions" aria-labelledby="questions-title">
            <h2 id="questions-title">The question set</h2>
            <QuestionCounts corpus={c} />
          </section>
          <section id="documents" aria-labelledby="documents-title">
            <h2 id="documents-title">The documents</h2>
            <ol className="doc-index">
              {c.documents.map((d) => (
                <li key={d.doc}>
                  <a href={`#${docAnchor(d.doc)}`}>{d.title}</a> <code className="muted">{d.doc}</code>
                </li>
              ))}
            </ol>
            {c.documents.map((d) => (
              <CorpusDocumentView key={d.doc} document={d} chunks={c.chunks.filter((ch) => ch.doc === d.doc)} />
            ))}
          </section>
        </>
      ) : null}
    </>
  );
}

function EstateSection({ estate }: { estate: Estate }) {
  const tiers = [...new Set(estate.services.map((s) => s.tier))].sort((a, b) => a - b);
  const dependents = (id: string) => estate.dependencies.filter((d) => d.to === id).map((d) => d.from);
  const dependsOn = (id: string) => estate.dependencies.filter((d) => d.from === id).map((d) => d.to);
  return (
    <>
      <p>
        {estate.company ? `${estate.company} runs ` : ''}
        <b>{estate.services.length}</b> services in <b>{tiers.length}</b> criticality tiers, with <b>{estate.dependencies.length}</b> dependencies between them
        and <b>{estate.faults.length}</b> kinds of fault.
      </p>
      <div className="figure-scroll">
        <EstateGraph estate={estate} />
      </div>
      {tiers.map((tier) => (
        <div key={tier} className="tier-block">
          <h3>Tier {tier}</h3>
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th>service</th>
                  <th>kind</th>
                  <th>owner</th>
                  <th>what it does</th>
                  <th>depends on</th>
                  <th>used by</th>
                </tr>
              </thead>
              <tbody>
                {estate.services
                  .filter((s) => s.tier === tier)
                  .sort((a, b) => a.id.localeCompare(b.id))
                  .map((s) => (
                    <tr key={s.id} id={serviceAnchor(s.id)}>
                      <td>
                        <code>{s.id}</code>
                        <div className="muted">{s.name}</div>
                      </td>
                      <td>{s.kind}</td>
                      <td>{s.owner ?? '—'}</td>
                      <td>{s.description ?? ''}</td>
                      <td>
                        {dependsOn(s.id).map((d) => (
                          <code key={d} className="dep">
                            {d}
                          </code>
                        ))}
                      </td>
                      <td>
                        {dependents(s.id).map((d) => (
                          <code key={d} className="dep">
                            {d}
                          </code>
                        ))}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </div>
      ))}
    </>
  );
}

function Faults({ estate, corpus }: { estate: Estate; corpus: Corpus | null }) {
  const titleOf = (doc: string) => corpus?.documents.find((d) => d.doc === doc)?.title ?? doc;
  return (
    <div className="faults">
      {estate.faults.map((f) => (
        <article key={f.id} className="fault" id={`fault-${f.id}`}>
          <h3>
            {f.name} <code className="muted">{f.id}</code>
          </h3>
          {f.serviceKinds?.length ? <p className="muted">Can occur in: {f.serviceKinds.join(', ')}</p> : null}
          <h4>Signals</h4>
          <ul>
            {f.signals.map((s) => (
              <li key={s}>
                <code>{s}</code>
              </li>
            ))}
          </ul>
          <p>
            Runbook: <a href={docHref(f.runbook)}>{titleOf(f.runbook)}</a> <code className="muted">{f.runbook}</code>
          </p>
        </article>
      ))}
    </div>
  );
}

const isCorrection = (g: Gap): boolean => g.correction;

function Gaps({ gaps }: { gaps: readonly Gap[] }) {
  const open = gaps.filter((g) => !isCorrection(g));
  const corrected = gaps.filter(isCorrection);
  return (
    <>
      <p>
        A question about any of these should be refused: no passage answers it. Each term’s absence from every document is checked, so the list is a verified
        claim about the corpus, not an assumption.
      </p>
      <div className="table-scroll">
        <table className="gaps">
          <thead>
            <tr>
              <th>topic</th>
              <th>terms checked absent</th>
            </tr>
          </thead>
          <tbody>
            {open.map((g) => (
              <tr key={g.topic}>
                <td>{g.topic}</td>
                <td>
                  {g.terms.map((t) => (
                    <code key={t} className="dep">
                      {t}
                    </code>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {corrected.length > 0 ? (
        <div className="correction">
          <h3>Corrections — the gap list was wrong about these</h3>
          <p>Listed once as gaps, found covered. They are kept in the open rather than deleted, because a gap list is itself a claim about the corpus.</p>
          <ul>
            {corrected.map((g) => (
              <li key={g.topic}>
                <b>{g.topic}</b> — terms{' '}
                {g.terms.map((t) => (
                  <code key={t} className="dep">
                    {t}
                  </code>
                ))}
                {' — the library does cover it.'}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}

function QuestionCounts({ corpus }: { corpus: Corpus }) {
  const rows = Object.entries(corpus.questions.byMechanism).sort((a, b) => b[1].n - a[1].n);
  const byLabel = (label: string) => rows.filter(([, r]) => r.label === label).reduce((s, [, r]) => s + r.n, 0);
  return (
    <>
      <p>
        <b>{corpus.questions.total}</b> questions whose correct behaviour is known in advance — <b>{byLabel('answerable')}</b> answerable,{' '}
        <b>{byLabel('unanswerable')}</b> deliberately not. Nobody labelled them by hand: an answerable question is generated from the passage that answers it.
      </p>
      <div className="table-scroll">
        <table className="mechanisms">
          <thead>
            <tr>
              <th className="num">count</th>
              <th>mechanism</th>
              <th>label</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([m, r]) => (
              <tr key={m}>
                <td className="num">{r.n}</td>
                <td>{m.replace(/[-_]/g, ' ')}</td>
                <td>
                  <span className={`tag ${r.label === 'answerable' ? 'tag-answered' : 'tag-refused'}`}>{r.label}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
