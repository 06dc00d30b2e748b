// `npm run corpora [-- DIR]`: rebuild each public development corpus's texts (eval-corpora/<name>/docs/, or
// DIR/<name>/docs/ — e.g. eval-corpora-pending, whose corpora wait to judge) from its SOURCE.json — the
// repository, the commit and the file list. The texts are not committed (fetched material stays out of commits);
// they come from a local snapshot of the repository, in the first of:
//   $SANDSCOPE_MIRROR_DIR/<owner>+<name>/repo, /work/.mirror/<owner>+<name>/repo (a git directory), or a copy
//   of the texts at ../shared/eval-corpora/<name>/docs.
// Each rebuilt file is checked against nothing but the commit it names; nothing is edited.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EVAL_CORPORA_DIR } from './corpora.ts';
import { absentTexts, readCorpusSourceFile } from 'sandscope/corpus';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

await runScript('corpora', async () => {
  const root = join(import.meta.dirname, '..');
  const mirrors = [process.env.SANDSCOPE_MIRROR_DIR, '/work/.mirror'].filter((d): d is string => Boolean(d));
  const base = process.argv[2] ?? EVAL_CORPORA_DIR;
  if (!existsSync(join(root, base)))
    throw new UserError(`${base}: no such folder here. Name a folder of corpora, e.g. \`npm run corpora -- eval-corpora-pending\`.`);
  let missing = 0;
  for (const name of readdirSync(join(root, base)).sort()) {
    const dir = join(root, base, name);
    const sourcePath = join(dir, 'SOURCE.json');
    if (!existsSync(sourcePath)) continue;
    const source = readCorpusSourceFile(sourcePath);
    // Every file SOURCE.json names, not the folder: a build cut short (or a copy of a folder still being written)
    // left docs/ with some of them, and "texts present" then hid the rest from every later run.
    if (absentTexts(dir, source).length === 0) {
      console.log(`${name}: texts present`);
      continue;
    }
    const shared = join(root, '..', 'shared', base, name, 'docs');
    if (existsSync(shared)) {
      cpSync(shared, join(dir, 'docs'), { recursive: true });
      const still = absentTexts(dir, source);
      if (still.length) {
        missing++;
        console.log(`${name}: ${shared} lacks ${still.join(', ')} — complete it and run this again; eval skips ${name} and says so`);
      } else console.log(`${name}: copied from ${shared}`);
      continue;
    }
    const gitDir = mirrors.map((m) => join(m, source.repository.replace('/', '+'), 'repo')).find((d) => existsSync(d));
    if (!gitDir) {
      missing++;
      console.log(
        `${name}: no snapshot of ${source.repository} here — fetch it (github:${source.repository}) and run this again; eval skips ${name} and says so`,
      );
      continue;
    }
    for (const file of source.files) {
      let text: Buffer;
      try {
        text = execFileSync('git', ['--git-dir', gitDir, 'show', `${source.commit}:${file.from}`], { maxBuffer: 64 * 1024 * 1024, stdio: 'pipe' });
      } catch {
        // A path mistyped in SOURCE.json, or a snapshot older than the commit: the user's to fix, not a bug.
        throw new UserError(
          `${sourcePath}: ${file.from} is not at ${source.repository}@${source.commit.slice(0, 12)} in ${gitDir}. Fix files[].from, or fetch a newer snapshot (github:${source.repository}); the files before it were written.`,
        );
      }
      const to = join(dir, file.to);
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, text);
    }
    console.log(`${name}: ${source.files.length} files from ${source.repository}@${source.commit.slice(0, 12)} (${source.licence})`);
  }
  if (missing) console.log(`${missing} corpus(es) could not be rebuilt here.`);
});
