#!/usr/bin/env bash
# Sweeps on the local backend, end to end through the real lcstudio-cli: a session written
# with --write-session, planned over seeds, run as a pool of processes, collected; then
# resumed (nothing runs again), one cell rerun alone with --cells, and a failing cell
# reported with its log and not averaged.
set -u
cli="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$cli" synthetic --replicates 2 --correction-iterations 100 --warm-start-steps 50 \
  --write-session "$tmp/table2.lcsession" > "$tmp/write.out" 2>&1 || fail "--write-session: $(cat "$tmp/write.out")"
[ -f "$tmp/table2.lcsession" ] || fail "--write-session wrote nothing"
grep -q '"replicates": 2' "$tmp/table2.lcsession" || fail "the session lacks replicates 2"
[ ! -e "$tmp/results.json" ] || fail "--write-session ran the experiment"

"$cli" sweep plan "$tmp/table2.lcsession" --over seed=0..1 --out "$tmp/sweep" > "$tmp/plan.out" 2>&1 ||
  fail "plan: $(cat "$tmp/plan.out")"
[ -f "$tmp/sweep/cells/0000.lcsession" ] && [ -f "$tmp/sweep/cells/0001.lcsession" ] || fail "plan wrote no cells"
[ ! -e "$tmp/sweep/cells/0002.lcsession" ] || fail "plan wrote a third cell"
"$cli" check "$tmp/sweep/cells/0001.lcsession" | grep -q "seed 1" || fail "cell 1 is not seed 1"

start=$(date +%s.%N)
"$cli" sweep run "$tmp/sweep" --backend local -j 2 > "$tmp/run.out" 2>&1 || fail "run: $(cat "$tmp/run.out")"
end=$(date +%s.%N)
echo "local backend: 2 cells in $(python3 -c "print(round($end - $start, 1))") s"
"$cli" sweep collect "$tmp/sweep" --csv "$tmp/table.csv" --json "$tmp/table.json" --wide-csv "$tmp/wide.csv" > "$tmp/collect.out" 2>&1 ||
  fail "collect: $(cat "$tmp/collect.out")"
head -1 "$tmp/table.csv" | grep -qx "method,rule,metric,n,mean,se" || fail "table header: $(head -1 "$tmp/table.csv")"
# 2 seeds x 2 replicates = 4 runs per method and rule.
grep -q "^bbvi,corrected,cost,4," "$tmp/table.csv" || fail "no bbvi corrected cost over 4 runs: $(cat "$tmp/table.csv")"

# The merged mean equals the mean of the cells' own per-replicate costs.
python3 - "$tmp/sweep" "$tmp/table.csv" <<'PY' || fail "the merged table disagrees with the cells' results"
import csv, json, math, sys
sweep, table = sys.argv[1], sys.argv[2]
costs, diffs = [], []
for cell in ("0000", "0001"):
    r = json.load(open(f"{sweep}/results/{cell}.json"))
    reps = r["methods"]["kfac_laplace"]["replicates"]
    costs += [rep["corrected"]["cost"] for rep in reps]
    diffs += [rep["uncorrected"]["cost"] - rep["corrected"]["cost"] for rep in reps]
rows = list(csv.DictReader(open(table)))
for rule, values in (("corrected", costs), ("paired_diff", diffs)):
    n = len(values); mean = sum(values) / n
    se = math.sqrt(sum((c - mean) ** 2 for c in values) / (n - 1)) / math.sqrt(n)
    row = [r for r in rows if r["method"] == "kfac_laplace" and r["rule"] == rule and r["metric"] == "cost"][0]
    assert int(row["n"]) == 4, row
    assert abs(float(row["mean"]) - mean) < 1e-12 and abs(float(row["se"]) - se) < 1e-12, (row, mean, se)
PY

# The wide table holds the same figures, a row per method and rule, a column per metric;
# the printed table is the wide one, each figure "mean ± se (n)".
python3 - "$tmp/table.csv" "$tmp/wide.csv" <<'PY' || fail "the wide table disagrees with the long one"
import csv, sys
long_rows = list(csv.DictReader(open(sys.argv[1])))
wide = {(r["method"], r["rule"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert len(wide) == len({(r["method"], r["rule"]) for r in long_rows}), wide.keys()
for r in long_rows:
    w = wide[(r["method"], r["rule"])]
    m = r["metric"]
    assert (w[m + "_n"], w[m + "_mean"], w[m + "_se"]) == (r["n"], r["mean"], r["se"]), (r, w)
PY
grep -Eq "^kfac_laplace +corrected +[0-9.]+ ± [0-9.]+ \(4\)" "$tmp/collect.out" || fail "printed table: $(cat "$tmp/collect.out")"

# Resume: every cell is done, nothing runs.
"$cli" sweep run "$tmp/sweep" > "$tmp/rerun.out" 2>&1 || fail "resume: $(cat "$tmp/rerun.out")"
grep -q "2 cell(s) skipped (done before), 0 run" "$tmp/rerun.out" || fail "resume ran cells: $(cat "$tmp/rerun.out")"

# One cell's results gone: --cells reruns it alone, the other cell's results untouched.
before=$(stat -c %Y.%N "$tmp/sweep/results/0000.json")
rm "$tmp/sweep/results/0001.json"
"$cli" sweep collect "$tmp/sweep" > "$tmp/partial.out" 2>&1
[ $? -eq 1 ] || fail "collect of a partial sweep did not exit 1"
grep -q "not merged: cell 1" "$tmp/partial.out" || fail "collect does not list the missing cell: $(cat "$tmp/partial.out")"
"$cli" sweep run "$tmp/sweep" --cells 1 > "$tmp/cell1.out" 2>&1 || fail "--cells 1: $(cat "$tmp/cell1.out")"
grep -q "0 cell(s) skipped (done before), 1 run" "$tmp/cell1.out" || fail "--cells 1: $(cat "$tmp/cell1.out")"
[ "$before" = "$(stat -c %Y.%N "$tmp/sweep/results/0000.json")" ] || fail "cell 0 ran again"
"$cli" sweep collect "$tmp/sweep" --csv "$tmp/table_again.csv" > /dev/null 2>&1 || fail "collect after the rerun"
# The same figures; only the timings (metrics named *seconds) may differ.
cmp -s <(grep -v seconds "$tmp/table.csv") <(grep -v seconds "$tmp/table_again.csv") ||
  fail "the rerun cell gave other numbers"

# A failing cell: reported with its log, exit 1, and not averaged by collect.
"$cli" sweep plan "$tmp/table2.lcsession" --over seed=0..1 --out "$tmp/broken" > /dev/null 2>&1 || fail "plan 2"
echo '{"format": "lcstudio-session"}' > "$tmp/broken/cells/0001.lcsession"
"$cli" sweep run "$tmp/broken" -j 2 > "$tmp/broken.out" 2>&1
[ $? -eq 1 ] || fail "a failed cell did not make run exit 1: $(cat "$tmp/broken.out")"
grep -q "cell 1: failed (exit status 2); log: .*logs/0001.log" "$tmp/broken.out" || fail "failure not reported: $(cat "$tmp/broken.out")"
grep -q "cells/0001.lcsession" "$tmp/broken/logs/0001.log" || fail "the log lacks the cell's error"
"$cli" sweep collect "$tmp/broken" --csv "$tmp/broken.csv" > "$tmp/bc.out" 2>&1
[ $? -eq 1 ] || fail "collect with a failed cell did not exit 1"
grep -q "^bbvi,corrected,cost,2," "$tmp/broken.csv" || fail "the failed cell was averaged: $(cat "$tmp/broken.csv")"
grep -q "not merged: cell 1 failed (exit status 2)" "$tmp/bc.out" || fail "collect does not list the failed cell"

# A sweep of correct (a user's own predictive with labels) plans, runs and collects like
# any other: its results carry the long table, every rule under its name.
python3 "$(dirname "$0")/own_predictive_fixture.py" "$tmp" 2 200 0 1 || fail "the own-predictive fixture"
"$cli" correct --features "$tmp/ox.csv" --predictive "$tmp/op.csv" --labels "$tmp/oy.csv" --preset synthetic \
  --correction-iterations 60 --warm-start-steps 20 --write-session "$tmp/own.lcsession" > /dev/null 2>&1 || fail "correct --write-session"
"$cli" sweep plan "$tmp/own.lcsession" --over seed=0..1 --out "$tmp/own_sweep" > /dev/null 2>&1 || fail "plan of correct"
"$cli" sweep run "$tmp/own_sweep" -j 2 > "$tmp/own_run.out" 2>&1 || fail "run of correct: $(cat "$tmp/own_run.out")"
"$cli" sweep collect "$tmp/own_sweep" --csv "$tmp/own_table.csv" > "$tmp/own_collect.out" 2>&1 ||
  fail "collect of correct: $(cat "$tmp/own_collect.out")"
for rule in uncorrected corrected kept temperature; do
  grep -q "^own,$rule,cost,2," "$tmp/own_table.csv" || fail "no $rule cost over 2 runs: $(cat "$tmp/own_table.csv")"
done
echo "sweep_local: ok"
