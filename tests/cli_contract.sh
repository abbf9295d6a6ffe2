#!/usr/bin/env bash
# The CLI's contract: help, exit codes, JSON shape, atomic outputs, model round trip.
set -u
cli="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$cli" --help | grep -q "synthetic" || fail "--help does not list commands"
"$cli" synthetic --help | grep -q -- "--replicates" || fail "synthetic --help misses --replicates"
for flag in --methods --seed --threads --json --csv --save-models; do
  "$cli" synthetic --help | grep -q -- "$flag" || fail "synthetic --help misses $flag"
done

expect_usage() {
  local out rc
  out=$("$cli" "$@" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "'$*' exited $rc, expected 2"
  [ -n "$out" ] || fail "'$*' printed no message"
}
expect_usage synthetic --bogus
expect_usage synthetic --replicates 0
expect_usage synthetic --replicates abc
expect_usage synthetic --methods bbvi,nuts
expect_usage synthetic --threads
expect_usage synthetic --device tpu
expect_usage frobnicate
expect_usage presets nope
printf '{"costs": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}' > "$tmp/three.json"
expect_usage synthetic --costs "$tmp/three.json"
"$cli" synthetic --costs "$tmp/three.json" 2>&1 | grep -q "3 classes" || fail "class-count message"

# An earlier results file survives a run that fails on bad input.
echo '{"old": true}' > "$tmp/out.json"
"$cli" synthetic --replicates 1 --methods nope --json "$tmp/out.json" 2>/dev/null
grep -q old "$tmp/out.json" || fail "bad run clobbered the JSON file"

"$cli" synthetic --replicates 1 --methods kfac_laplace --correction-iterations 50 --seed 3 --quiet \
  --json "$tmp/out.json" --csv "$tmp/out.csv" --save-models "$tmp/models" > "$tmp/table.txt" \
  || fail "synthetic run failed"
grep -q "KFAC-Laplace" "$tmp/table.txt" || fail "table lacks the method row"
python3 - "$tmp/out.json" <<'PY' || fail "JSON shape"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "synthetic" and d["replicates"] == 1 and isinstance(d["seconds"], (int, float))
m = d["methods"]["kfac_laplace"]
for k in ("uncorrected", "corrected", "paired_diff"):
    assert set(m[k]) >= {"mean", "std"}, k
PY
[ "$(wc -l < "$tmp/out.csv")" -eq 2 ] || fail "CSV rows"
ls "$tmp"/out.json.tmp* >/dev/null 2>&1 && fail "temporary file left behind"

q="$tmp/models/kfac_laplace_r0_q.pt"
[ -f "$q" ] && [ -f "$q.json" ] || fail "model or sidecar missing"
"$cli" decide --model "$q" --point=-2,-2 --point 2,2 > "$tmp/decisions.txt" || fail "decide failed"
[ "$(sed -n 1p "$tmp/decisions.txt" | awk -F, '{print $NF}')" = negative ] || fail "(-2,-2) should be negative"
[ "$(sed -n 2p "$tmp/decisions.txt" | awk -F, '{print $NF}')" = positive ] || fail "(2,2) should be positive"
expect_usage decide --model "$q" --point 1,2,3
# The rule the run kept is saved beside q, named in its sidecar as in the results.
kr="$tmp/models/kfac_laplace_r0_kept_rule.pt"
[ -f "$kr" ] && [ -f "$kr.json" ] || fail "synthetic kept rule or its sidecar missing"
python3 - "$tmp/out.json" "$kr.json" <<'PY' || fail "the saved kept rule is not the run's"
import json, sys
run = json.load(open(sys.argv[1]))["methods"]["kfac_laplace"]["replicates"][0]
side = json.load(open(sys.argv[2]))
kept = run["kept"] or "q"
assert side["role"] == "kept_rule" and side["decision_rule"] == kept, (side.get("decision_rule"), kept)
assert side.get("residual_on_predictive", False) == (kept != "q"), side
PY
"$cli" check "$kr" | grep -q "the kept rule" || fail "check does not name the synthetic kept rule"
# Your own data: --save-models writes the table's networks, named by its classes.
python3 - "$tmp/table.csv" <<'PY'
import sys
rows = ["u,v,animal"]
for i in range(150):
    c = i % 3
    x, y = [(-3, 0), (3, 0), (0, 4)][c]
    rows.append("%g,%g,%s" % (x + 0.5 * ((i * 7) % 5 - 2) / 2, y + 0.5 * ((i * 11) % 5 - 2) / 2,
                              "" if i % 5 == 0 else ["cat", "dog", "emu"][c]))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
"$cli" tabular --help | grep -q -- "--save-models" || fail "tabular --help misses --save-models"
"$cli" tabular --data "$tmp/table.csv" --label animal --replicates 1 --methods kfac_laplace \
  --correction-iterations 50 --quiet --save-models "$tmp/tmodels" > /dev/null || fail "tabular run failed"
tq="$tmp/tmodels/kfac_laplace_r0_q.pt"
grep -q '"experiment": "tabular"' "$tq.json" || fail "tabular sidecar's experiment"
[ -f "$tmp/tmodels/kfac_laplace_r0_map.pt" ] || fail "tabular MAP network missing"
"$cli" decide --model "$tq" --point=-3,0 --point 3,0 --point 0,4 | awk -F, '{print $NF}' | tr '\n' ' ' \
  | grep -qx "cat dog emu " || fail "tabular q decides the blobs' classes"

# correct --out saves the rule the run kept as one model, forward(x, p): decide applies
# it to X's rows with P and gives the run's kept decisions (decisions.csv) on every row.
# P is twice as sure as the world (logit 4a against 2a): a calibration should win here.
python3 - "$tmp" <<'PY'
import math, random, sys
random.seed(1)
d = sys.argv[1]
with open(d + "/cx.csv", "w") as x, open(d + "/cp.csv", "w") as p, open(d + "/cy.csv", "w") as y:
    for i in range(600):
        a, b = random.uniform(-2, 2), random.uniform(-2, 2)
        p1 = 1 / (1 + math.exp(-4 * a))
        x.write(f"{a},{b}\n")
        p.write(f"{1 - p1},{p1}\n")
        y.write("positive\n" if random.random() < 1 / (1 + math.exp(-2 * a)) else "negative\n")
PY
"$cli" correct --features "$tmp/cx.csv" --predictive "$tmp/cp.csv" --labels "$tmp/cy.csv" --preset synthetic \
  --correction-iterations 100 --out "$tmp/corrected" --quiet > "$tmp/correct.txt" || fail "correct --out failed"
kept=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["decision_rule"])' "$tmp/corrected/kept_rule.pt.json")
grep -q "kept_rule.pt (+ .json; the kept rule, $kept)" "$tmp/correct.txt" || fail "correct does not name the kept rule's file"
"$cli" check "$tmp/corrected/kept_rule.pt" | grep -q "the kept rule $kept" || fail "check does not name the kept rule"
"$cli" decide --model "$tmp/corrected/kept_rule.pt" --points "$tmp/cx.csv" --predictive "$tmp/cp.csv" \
  | awk -F, '{print $NF}' > "$tmp/kept_decided.txt" || fail "decide of the kept rule failed"
python3 - "$tmp/corrected/decisions.csv" "$tmp/kept_decided.txt" "$kept" <<'PY' || fail "the kept rule's file decides otherwise than the run"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["role"] != "test set"]
decided = open(sys.argv[2]).read().split()
assert len(rows) == len(decided) == 600, (len(rows), len(decided))
differ = [i for i, (r, d) in enumerate(zip(rows, decided)) if r["decision_kept"] != d]
assert not differ, f"kept rule {sys.argv[3]}: rows {differ[:5]} differ"
print(f"kept rule {sys.argv[3]}: decide reproduces the run's 600 decisions")
PY
echo "cli contract: ok"
