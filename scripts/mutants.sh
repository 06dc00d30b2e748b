#!/usr/bin/env bash
# Breaks guarded code one mutation at a time and checks the named test goes red
# (STYLE rule 15, the seed's D-013/D-015: a test that has only seen a passing tree
# has not been tested). Restores every file. Usage: bash scripts/mutants.sh
set -u
cd "$(dirname "$0")/.."
pass=0; fail=0
mutate() { # file, perl substitution, test path, description
  local file=$1 expr=$2 test=$3 what=$4
  cp "$file" "$file.orig"
  perl -0pi -e "$expr" "$file"
  if cmp -s "$file" "$file.orig"; then echo "  ?? mutation did not apply: $what"; fail=$((fail+1)); mv "$file.orig" "$file"; return; fi
  if npx vitest run "$test" >/dev/null 2>&1; then echo "  SURVIVED  $what"; fail=$((fail+1)); else echo "  killed    $what"; pass=$((pass+1)); fi
  mv "$file.orig" "$file"
}
E=packages/engine/src
mutate $E/retrieval/bm25.ts 's/BM25_K1 = 1.5/BM25_K1 = 1.2/' $E/retrieval/bm25.test.ts "BM25 k1 changed"
mutate $E/retrieval/bm25.ts 's/\(df \+ 0.5\)\)/(df + 1))/' $E/retrieval/bm25.test.ts "BM25 idf formula changed"
mutate $E/retrieval/hashing-embedder.ts "s/0.25 \* w/0.5 * w/" $E/retrieval/hashing-embedder.test.ts "embedder trigram weight changed"
mutate $E/retrieval/hashing-embedder.ts 's/h = Math.imul\(h, 0x01000193\)/h = Math.imul(h, 0x01000197)/' $E/retrieval/hashing-embedder.test.ts "FNV prime changed"
mutate $E/corpus/chunker.ts 's/MIN_PASSAGE_CHARS = 200/MIN_PASSAGE_CHARS = 0/' $E/corpus/chunker.test.ts "no merging of short passages"
mutate $E/corpus/chunker.ts 's/if \(\/\^\\s\*\(```\|~~~\)\/.test\(line\)\) inFence = !inFence;//' $E/corpus/chunker.test.ts "code fences not respected"
mutate $E/retrieval/gate-features.ts 's/Math.max\(0, result.dense \?\? 0\) \* result.bm25/Math.max(0, result.dense ?? 0) + result.bm25/' $E/retrieval/hybrid-retriever.test.ts "score is a sum, not a product (features)"
mutate $E/retrieval/evidence-gate.ts 's/score >= thresholds.sufficientAbove/score > thresholds.insufficientBelow/' $E/retrieval/evidence-gate.test.ts "no ambiguous band"
mutate $E/retrieval/evidence-gate.ts 's/band === .sufficient. && strongest.missingEntities.length/false/' $E/retrieval/evidence-gate.test.ts "entity guard removed"
mutate $E/retrieval/evidence-gate.ts "s/band === 'sufficient' && !strongest.statesDemandedValue/false/" $E/retrieval/evidence-gate.test.ts "value guard removed"
mutate $E/retrieval/evidence-gate.ts "s/band === 'sufficient' && strongest.disclaims/false/" $E/retrieval/evidence-gate.test.ts "disclaimer guard removed"
mutate $E/retrieval/adjudicator.ts "s/if \\(p.disclaims\\) out.push/if (false) out.push/" $E/retrieval/evidence-gate.test.ts "adjudicator accepts disclaimers"
mutate $E/retrieval/gate-features.ts "s/\\(!demandsValue && p.rarestEntityPassages <= t.identifyingEntityMaxPassages\\)/false/" $E/retrieval/evidence-gate.test.ts "rare entities no longer identify the topic"
mutate $E/retrieval/gate-features.ts "s/\\(!demandsValue && /(/" $E/retrieval/evidence-gate.test.ts "a rare entity carries a value question (S-015)"
mutate $E/retrieval/question-shape.ts "s/NUMBER_WORDS\\}\\\\\\\\s\\+\\)/NUMBER_WORDS}\\\\\\\\s*)/" $E/retrieval/question-shape.test.ts "'and' reads as a duration again (S-014)"
mutate $E/retrieval/question-shape.ts "s/\\(\\?:out of scope\\|/(?:/" $E/retrieval/question-shape.test.ts "scope negation misses 'out of scope'"
mutate $E/answer/extractive.ts "s/map\\(rejectedClaim\\)/map(normalise)/" $E/answer/extractive.test.ts "offline retry ignores the verifier's feedback format"
mutate $E/retrieval/evidence-gate.ts 's/f.coverage < thresholds.minTermCoverage/false/' $E/retrieval/evidence-gate.test.ts "coverage guard removed"
mutate $E/retrieval/evidence-gate.ts 's/if \(f.degraded \|\| f.score === null\)/if (false)/' $E/retrieval/evidence-gate.test.ts "degraded run scored"
mutate $E/retrieval/adjudicator.ts 's/if \(p.missingEntities.length\) out.push/if (false) out.push/' $E/retrieval/evidence-gate.test.ts "adjudicator ignores entities"
mutate $E/retrieval/adjudicator.ts "s/decision: 'partial',/decision: 'refuse',/" $E/retrieval/evidence-gate.test.ts "adjudicator never lets partial through"
mutate $E/retrieval/tokenizer.ts 's/: camel\?\.get\(w\)/: undefined/' $E/retrieval/bm25.test.ts "CamelCase names no longer index their parts (S-018)"
mutate $E/retrieval/question-shape.ts 's/return !this\.isSubject\(entity\) && /return /' $E/retrieval/hybrid-retriever.test.ts "a service identifies the topic by rarity (S-019)"
mutate $E/retrieval/question-shape.ts 's/this\.subjects\.size > 0 \? this\.subjects\.has\(entity\) : KEBAB_NAME\.test\(entity\)/this.subjects.has(entity)/' $E/retrieval/question-shape.test.ts "no subjects without an estate (S-019)"
mutate $E/retrieval/question-shape.ts 's/\|\\b\(\?:remind\|tell\|give\|show\) me\\b//' $E/retrieval/question-shape.test.ts "an imperative request demands no value"
mutate $E/retrieval/question-shape.ts 's/if \(ASKS_WHAT_IT_SAYS\.test\(question\)\) return null;//' $E/retrieval/question-shape.test.ts "what a document says about X demands a value"
mutate $E/retrieval/gate-features.ts 's/&& here\.every\(\(e\) => e === subject \|\| textNames\(sentence, e\)\)//' $E/retrieval/hybrid-retriever.test.ts "a value stands with any entity the passage names (S-021)"
mutate $E/retrieval/gate-features.ts 's/block\.subheading \? unplaced\.filter\(\(e\) => !textNames\(block\.subheading!, e\)\) : unplaced/unplaced/' $E/retrieval/hybrid-retriever.test.ts "a merged sub-heading no longer places its entity (S-021)"
mutate $E/corpus/chunker.ts 's/\$\{s\.marker\} \$\{s\.heading\}/\$\{s.heading\}/' $E/corpus/chunker.test.ts "a merged section loses its heading marker"
mutate $E/retrieval/question-shape.ts 's/\|\\\\bonce\\\\b\(\?!/|\\\\bonce\\\\b(?=/' $E/retrieval/question-shape.test.ts "'once they' reads as a count"
mutate $E/retrieval/question-shape.ts 's/if \(m\[0\]\.toLowerCase\(\)\.startsWith\(compact\)\) return true;//' $E/retrieval/question-shape.test.ts "an alert no longer names its service (S-023)"
mutate $E/retrieval/question-shape.ts 's/ && !LEVEL_CODE\.test\(entity\)//' $E/retrieval/question-shape.test.ts "a level code identifies a topic (S-025)"
mutate $E/answer/sentences.ts 's/\|\[a-z\]\[a-z0-9\]\*\[-_\]\[a-z0-9\]\)/)/' $E/answer/sentences.test.ts "no split before a lower-case name (S-026)"
mutate $E/retrieval/question-shape.ts 's/  if \(PLURAL_CODE\.test\(entity\) && containsPhrase\(hay, entity\.slice\(0, -1\)\)\) return true;\n//' $E/retrieval/question-shape.test.ts "a plural code is a name of its own (S-022)"
mutate $E/answer/sentences.ts 's/if \(continues && !listItem && last\?\.prose !== undefined\)/if (false)/' $E/answer/sentences.test.ts "hard-wrapped lines are not joined (S-026)"
V=packages/eval/src
mutate $V/calibration.ts 's/wilsonUpper\(r\.falseAnswerRate, nU\)/r.falseAnswerRate/' $V/evaluation.test.ts "fit meets the false-answer budget on the point estimate (S-020)"
mutate $V/cross-validation.ts 's/if \(leaked.length\) throw/if (false) throw/' $V/evaluation.test.ts "leak check removed from cross-validation"
mutate $V/cross-validation.ts 's/const train = measured.filter\(\(m\) => assignment.get\(m.question.id\) !== f\);/const train = [...measured];/' $V/evaluation.test.ts "cross-validation fits on all folds"
mutate $V/generator.ts 's/if \(gap.terms.some\(\(t\) => mentions\(corpusText, t\)\)\) continue;//' $V/evaluation.test.ts "gap absence not verified"
mutate $V/measure.ts 's/ \|\| !p.statesDemandedValue \|\| p.disclaims\) continue;/ || !p.statesDemandedValue) continue;/' $V/evaluation.test.ts "fast verdict path ignores disclaimers"
mutate $V/question-set.ts 's/bad.push\(\{ line, message: `duplicate id/void ({ line, message: `duplicate id/' $V/question-set.test.ts "duplicate ids accepted"
mutate $V/calibration.ts 's/range\(A.notBest, b \+ 1, G \+ 1\)/range(A.carried, b + 1, G + 1)/' $V/evaluation.test.ts "fast sweep miscounts deferral in the top band"
echo "mutants: $pass killed, $fail survived"
[ "$fail" -eq 0 ]
