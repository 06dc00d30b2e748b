"""S-291's criterion, counted (docs/experiments/README.md, 2026-12-08).

python3 docs/experiments/2026-12-08-empty-section-named.py BASE_DIR CHANGE_DIR QUESTIONS_ROOT
Each DIR holds one `sandscope eval --corpus … --questions … --json --rows` output per corpus (NAME.json); QUESTIONS_ROOT
holds NAME/questions.jsonl (the labels and mechanisms). Aggregates only: no question is shown.
"""
import json, os, sys

base_dir, change_dir, root = sys.argv[1:4]
ANSWERED = {"answered", "partial"}

def rows(path):
    with open(path) as f:
        data = json.load(f)
    return {r["id"]: r for r in data["questions"]}

aim = [0, 0, 0]  # empty-section questions: scored, answered base, answered change
newly = {"answerable": 0, "unanswerable": 0}
unrefused = {"answerable": 0, "unanswerable": 0}
changed = questions = corpora = 0
for name in sorted(os.listdir(base_dir)):
    if not name.endswith(".json") or not os.path.exists(os.path.join(change_dir, name)):
        continue
    corpus = name[:-5]
    qfile = os.path.join(root, corpus, "questions.jsonl")
    if not os.path.exists(qfile):
        continue
    labels = {}
    with open(qfile) as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                labels[q["id"]] = q
    b, c = rows(os.path.join(base_dir, name)), rows(os.path.join(change_dir, name))
    corpora += 1
    for qid, rb in b.items():
        rc = c.get(qid)
        if rc is None or qid not in labels:
            continue
        questions += 1
        q = labels[qid]
        vb, vc = rb["verdict"], rc["verdict"]
        if vb != vc:
            changed += 1
        if q.get("mechanism") == "empty-section":
            aim[0] += 1
            aim[1] += vb in ANSWERED
            aim[2] += vc in ANSWERED
        kind = "answerable" if q["label"] == "answerable" else "unanswerable"
        if vb in ANSWERED and vc not in ANSWERED:
            newly[kind] += 1
        if vb not in ANSWERED and vc in ANSWERED:
            unrefused[kind] += 1

print(f"{corpora} corpora, {questions} questions; verdict changed on {changed}")
print(f"(aim) empty-section questions answered or partial: {aim[1]} of {aim[0]} → {aim[2]} of {aim[0]}")
print(f"(harm) newly refused: {newly['answerable']} answerable, {newly['unanswerable']} unanswerable; newly answered: {unrefused['answerable']} answerable, {unrefused['unanswerable']} unanswerable")
