#!/usr/bin/env bash
# The previous evidence gate (commit 8085961: word-overlap checks, product-score thresholds) scored on today's
# development corpora with the thresholds it shipped, tuning nothing — the "before" beside the answerability
# model's "after". Writes docs/previous-gate.json. Needs the public corpora's texts (`npm run corpora`).
# Usage: bash scripts/previous-gate.sh [--exclude a,b]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
commit=8085961
exclude=",${2:-},"
work=$(mktemp -d)
trap 'git worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach "$work/old" "$commit" >/dev/null 2>&1
(cd "$work/old" && npm ci --no-audit --no-fund >/dev/null 2>&1)
rows=()
for dir in "$root"/eval-corpora/*/; do
  name=$(basename "$dir")
  [ -f "$dir/questions.jsonl" ] || continue
  case "$exclude" in *",$name,"*) continue ;; esac
  if [ -f "$dir/SOURCE.json" ] && [ ! -d "$dir/docs" ]; then echo "skipped $name: texts not here (npm run corpora)" >&2; continue; fi
  out=$(cd "$work/old" && node apps/agent/bin/sandscope.js eval --corpus "$dir" --questions "$dir/questions.jsonl" --json --skip-bad)
  rows+=("$(node -e '
    const r = JSON.parse(process.argv[1]);
    const m = Object.values(r.byMechanism);
    const sum = (f) => m.reduce((s, x) => s + f(x), 0);
    const unans = m.filter((x) => x.label === "unanswerable"), ans = m.filter((x) => x.label === "answerable");
    const fa = unans.reduce((s, x) => s + x.answered + x.partial, 0), fr = ans.reduce((s, x) => s + x.refused, 0);
    console.log(JSON.stringify({ name: process.argv[2], n: r.n, answerable: r.answerable, unanswerable: r.unanswerable, falseAnswers: fa, falseRefusals: fr, ambiguous: sum((x) => x.ambiguous) }));
  ' "$out" "$name")")
done
printf '%s\n' "${rows[@]}" | node -e '
  const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const rate = (a, b) => (b ? a / b : 0);
  const withRates = (r) => ({ ...r, falseAnswerRate: rate(r.falseAnswers, r.unanswerable), falseRefusalRate: rate(r.falseRefusals, r.answerable), deferralRate: rate(r.ambiguous, r.n) });
  const tot = (k) => rows.reduce((s, r) => s + r[k], 0);
  const pooled = withRates({ name: "pooled", n: tot("n"), answerable: tot("answerable"), unanswerable: tot("unanswerable"), falseAnswers: tot("falseAnswers"), falseRefusals: tot("falseRefusals"), ambiguous: tot("ambiguous") });
  const record = { commit: process.argv[1], command: "bash scripts/previous-gate.sh" + (process.argv[2] ? " --exclude " + process.argv[2] : ""), corpora: rows.map(withRates), pooled };
  require("fs").writeFileSync("docs/previous-gate.json", JSON.stringify(record, null, 1) + "\n");
  console.log(`previous gate (${process.argv[1]}), pooled over ${pooled.n}: false answers ${(100 * pooled.falseAnswerRate).toFixed(1)}%, false refusals ${(100 * pooled.falseRefusalRate).toFixed(1)}%, deferral ${(100 * pooled.deferralRate).toFixed(1)}%`);
' "$commit" "${2:-}"
