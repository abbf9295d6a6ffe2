#!/usr/bin/env bash
# The catalogue of bad inputs: every reader and every flag, fed what users and broken
# disks produce. Each row: the exit status expected, a fragment the message must contain,
# then the command. Exit 2 is bad usage or bad input; nothing may crash (a signal or
# std::terminate shows as status >= 128), and nothing may be left half-written.
# Grow this table with every new reader.
set -u
cli="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
rows=0

# expect STATUS FRAGMENT -- ARGS...
expect() {
  local want="$1" fragment="$2"
  shift 3
  rows=$((rows + 1))
  local out rc
  out=$("$cli" "$@" 2>&1 < /dev/null); rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: '$*' exited $rc, expected $want: $(echo "$out" | head -c 300)"
    failures=$((failures + 1))
  elif ! grep -qF -- "$fragment" <<< "$out"; then
    echo "FAIL: '$*': message lacks \"$fragment\": $(echo "$out" | head -c 300)"
    failures=$((failures + 1))
  fi
}

f="$tmp/files"
mkdir -p "$f"
# ---------------------------------------------------------------- cost matrices (JSON)
python3 -c 'print("[" * 50000 + "]" * 50000)' > "$f/deep.json"
python3 -c 'print("{\"costs\": " + "[" * 40000 + "0" + "]" * 40000 + "}")' > "$f/deep_costs.json"
echo '{"costs": [[0, 1e400], [1, 0]]}' > "$f/overflow.json"
echo '{"costs": [[0, -1e-310], [1, 0]]}' > "$f/negative_subnormal.json"
echo '{"costs": [[0, "nan"], [1, 0]]}' > "$f/nan_string.json"
echo '{"costs": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}' > "$f/three.json"
echo '{"costs": [[0, 1], [1]]}' > "$f/ragged.json"
echo '{"costs": [[0, 0.1], [1, 0]], "referal_cost": 0.2}' > "$f/misspelt.json"
echo '{"costs": [[0, 0.1], [1, 0]], "M": 0.5}' > "$f/small_m.json"
echo '{"costs": [[0, 0.1], [1, 0]], "M": "big"}' > "$f/m_string.json"
echo '{"costs": [[0, 0.1], [1, 0]], "version": 7}' > "$f/version.json"
echo '{"costs": [[0, 0.1], [1, 0]], "classes": ["a"]}' > "$f/names.json"
echo '{"costs": [[0, 0.1], [1, 0]], "referral": true}' > "$f/referral_flag.json"
echo '{"costs": [[0, 0.1], [1, 0]' > "$f/truncated.json"
: > "$f/empty.json"
head -c 3000 /dev/urandom > "$f/garbage.json"
python3 -c 'print("{\"costs\": [[0, 0.1], [1, 0]], \"name\": \"" + "x" * (9 << 20) + "\"}")' > "$f/huge.json"
mkdir -p "$f/folder.json"
expect 2 "nested deeper than" -- synthetic --costs "$f/deep.json"
expect 2 "nested deeper than" -- synthetic --costs "$f/deep_costs.json"
expect 2 "not valid JSON" -- synthetic --costs "$f/overflow.json"
expect 2 "is negative (-1e-310)" -- synthetic --costs "$f/negative_subnormal.json"
expect 2 "is not a number" -- synthetic --costs "$f/nan_string.json"
expect 2 "3 classes" -- synthetic --costs "$f/three.json"
expect 2 "(row 2) has 1 entries, row 1 has 2" -- synthetic --costs "$f/ragged.json"
expect 2 "unknown field \"referal_cost\"" -- synthetic --costs "$f/misspelt.json"
expect 2 "smaller than the largest cost" -- synthetic --costs "$f/small_m.json"
expect 2 "field \"M\" must be a finite number" -- synthetic --costs "$f/m_string.json"
expect 2 "field \"version\" must be an integer in 1..1" -- synthetic --costs "$f/version.json"
expect 2 "1 class names" -- synthetic --costs "$f/names.json"
expect 2 "field \"referral\" is true" -- synthetic --costs "$f/referral_flag.json"
expect 2 "not valid JSON" -- synthetic --costs "$f/truncated.json"
expect 2 "not valid JSON" -- synthetic --costs "$f/empty.json"
expect 2 "not valid JSON" -- synthetic --costs "$f/garbage.json"
expect 2 "are read" -- synthetic --costs "$f/huge.json"
expect 2 "not a regular file" -- synthetic --costs "$f/folder.json"
expect 2 "cannot open" -- synthetic --costs "$f/missing.json"
echo '{"costs": [[0, 0.1], [1, 0]]}' > "$f/costs.txt"
expect 2 "unknown cost matrix format" -- synthetic --costs "$f/costs.txt"
# ---------------------------------------------------------------- cost matrices (Weka)
printf '3e9 3e9\n0 1\n1 0\n' > "$f/float_header.cost"
printf '2 2\n0 1 1\n1 0\n' > "$f/shape.cost"
printf '2 2\n0 1\n1 0\n1 0\n' > "$f/extra_row.cost"
printf '2 2\n0 1\n1 abc\n' > "$f/word.cost"
printf '2 2\n0 nan\n1 0\n' > "$f/nan.cost"
printf '2 2\n0 inf\n1 0\n' > "$f/inf.cost"
printf '2 2\n0 1e400\n1 0\n' > "$f/overflow.cost"
printf '1000000 1000000\n' > "$f/huge_header.cost"
printf '2\n0 1\n1 0\n' > "$f/short_header.cost"
printf '%% only a comment\n' > "$f/no_header.cost"
printf '\v\n' > "$f/vtab.cost"
printf '2 4\n0 1 1 1\n1 0 1 1\n' > "$f/wide.cost"
expect 2 "is not two integers" -- synthetic --costs "$f/float_header.cost"
expect 2 "row 1 has 3 numbers, the header says 2" -- synthetic --costs "$f/shape.cost"
expect 2 "header says 2 rows, file has 3" -- synthetic --costs "$f/extra_row.cost"
expect 2 "\"abc\" is not a finite number" -- synthetic --costs "$f/word.cost"
expect 2 "\"nan\" is not a finite number" -- synthetic --costs "$f/nan.cost"
expect 2 "\"inf\" is not a finite number" -- synthetic --costs "$f/inf.cost"
expect 2 "\"1e400\" is not a finite number" -- synthetic --costs "$f/overflow.cost"
expect 2 "is not two integers" -- synthetic --costs "$f/huge_header.cost"
expect 2 "is not two integers" -- synthetic --costs "$f/short_header.cost"
expect 2 "no header line" -- synthetic --costs "$f/no_header.cost"
expect 2 "no header line" -- synthetic --costs "$f/vtab.cost"
expect 2 "expected square, or one extra referral column" -- synthetic --costs "$f/wide.cost"
# ---------------------------------------------------------------- flags
expect 2 "listed twice" -- synthetic --methods kfac_laplace,kfac_laplace
expect 2 "unknown method \"\"" -- synthetic --methods bbvi,
expect 2 "unknown method \"nuts\"" -- synthetic --methods bbvi,nuts
expect 2 "--json needs a non-empty value" -- synthetic --json ""
expect 2 "--costs needs a non-empty value" -- synthetic --costs ""
expect 2 "--preset needs a non-empty value" -- synthetic --preset ""
expect 2 "--quiet takes no value" -- synthetic --quiet=no
expect 2 "unexpected argument \"extra\"" -- synthetic extra
expect 2 "--seed is given twice" -- synthetic --seed 1 --seed 2
expect 2 "--replicates: \"0\" is not an integer in 1..10000" -- synthetic --replicates 0
expect 2 "is not an integer" -- synthetic --replicates 1e3
expect 2 "is not an integer" -- synthetic --seed -1
expect 2 "needs a value" -- synthetic --threads
expect 2 "unknown option \"--bogus\"" -- synthetic --bogus
expect 2 "does not exist" -- synthetic --json "$f/no/such/folder/out.json"
expect 2 "is a folder, not a file" -- synthetic --csv "$f/folder.json"
expect 2 "unknown cost preset" -- synthetic --preset nope
expect 2 "give --costs or --preset, not both" -- synthetic --preset synthetic --costs "$f/three.json"
expect 2 "one NAME at most" -- presets synthetic mnist
expect 2 "unknown command" -- frobnicate
# ---------------------------------------------------------------- models and decide
models="$tmp/models"
"$cli" synthetic --replicates 1 --methods kfac_laplace --correction-iterations 20 --quiet --save-models "$models" \
  > /dev/null 2>&1 || { echo "FAIL: could not make a model to corrupt"; exit 1; }
q="$models/kfac_laplace_r0_q.pt"
map="$models/kfac_laplace_r0_map.pt"
expect 0 "ok:" -- check "$q"
expect 2 "is not a finite number" -- decide --model "$q" --point nan,nan
expect 2 "is not a finite number" -- decide --model "$q" --point inf,1
expect 2 "is not a comma-separated list of numbers" -- decide --model "$q" --point 1,
expect 2 "has 3 features, the model takes 2" -- decide --model "$q" --point 1,2,3
printf 'x,y\n1,2\nnan,0\n' > "$f/points.csv"
expect 2 "line 3" -- decide --model "$q" --points "$f/points.csv"
expect 2 "no points" -- decide --model "$q"
expect 2 "--model FILE is required" -- decide --point 1,2
expect 2 "cannot open" -- decide --model "$f/missing.pt" --point 1,2

bad_model() {  # bad_model NAME PYTHON-EXPRESSION-ON-SIDECAR-DICT
  cp "$q" "$f/$1.pt"
  python3 - "$q.json" "$f/$1.pt.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
PY
}
bad_model inputs_huge 'd["architecture"]["inputs"] = 5.5e63'
bad_model inputs_fraction 'd["architecture"]["inputs"] = 2.7'
bad_model hidden_huge 'd["architecture"]["hidden"] = [30000, 30000]'
bad_model version_one 'd["version"] = 1; del d["weights"]'
bad_model unknown_field 'd["architecure"] = d["architecture"]'
bad_model classes_string 'd["architecture"]["classes"] = "2"'
bad_model costs_mismatch 'd["cost_matrix"]["costs"] = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]; d["cost_matrix"]["classes"] = ["a", "b", "c"]'
bad_model subnormal_cost_ok 'd["cost_matrix"]["costs"][0][1] = 1e-310'
expect 2 "field \"architecture.inputs\" must be an integer" -- decide --model "$f/inputs_huge.pt" --point 1,2
expect 2 "field \"architecture.inputs\" must be an integer" -- decide --model "$f/inputs_fraction.pt" --point 1,2
expect 2 "more than the" -- decide --model "$f/hidden_huge.pt" --point 1,2
expect 2 "save the model again" -- decide --model "$f/version_one.pt" --point 1,2
expect 2 "unknown field \"architecure\"" -- decide --model "$f/unknown_field.pt" --point 1,2
expect 2 "field \"architecture.classes\" must be an integer" -- decide --model "$f/classes_string.pt" --point 1,2
expect 2 "field \"cost_matrix\" has 3 classes" -- decide --model "$f/costs_mismatch.pt" --point 1,2
expect 0 "positive" -- decide --model "$f/subnormal_cost_ok.pt" --point 2,2
# Weights of one model with the sidecar of another (same architecture): refused.
cp "$map" "$f/swapped.pt"; cp "$q.json" "$f/swapped.pt.json"
expect 2 "does not match" -- decide --model "$f/swapped.pt" --point 1,2
# A save killed between the weights and the sidecar: new weights, old sidecar.
head -c 100 "$q" > "$f/truncated.pt"; cp "$q.json" "$f/truncated.pt.json"
expect 2 "does not match" -- decide --model "$f/truncated.pt" --point 1,2
python3 - "$q.json" "$f/deep_sidecar.pt.json" <<'PY'
import sys
text = open(sys.argv[1]).read().rstrip().rstrip("}") + ', "preset": ' + "[" * 40000 + "]" * 40000 + "}"
open(sys.argv[2], "w").write(text)
PY
cp "$q" "$f/deep_sidecar.pt"
expect 2 "nested deeper than" -- decide --model "$f/deep_sidecar.pt" --point 1,2
# ---------------------------------------------------------------- sessions (check)
session() {  # session NAME JSON
  printf '%s\n' "$2" > "$f/$1.lcsession"
}
costs='{"costs": [[0, 0.1], [1, 0]]}'
session good "{\"format\": \"lcstudio-session\", \"settings\": {\"replicates\": 2}, \"cost_matrix\": $costs}"
session settings_number "{\"format\": \"lcstudio-session\", \"settings\": 5, \"cost_matrix\": $costs}"
session settings_typo "{\"format\": \"lcstudio-session\", \"settings\": {\"replicate\": 2}, \"cost_matrix\": $costs}"
session methods_twice "{\"format\": \"lcstudio-session\", \"settings\": {\"methods\": [\"bbvi\", \"bbvi\"]}, \"cost_matrix\": $costs}"
session seed_word "{\"format\": \"lcstudio-session\", \"settings\": {\"seed\": \"abc\"}, \"cost_matrix\": $costs}"
session seed_overflow "{\"format\": \"lcstudio-session\", \"settings\": {\"seed\": \"18446744073709551616\"}, \"cost_matrix\": $costs}"
session replicates_fraction "{\"format\": \"lcstudio-session\", \"settings\": {\"replicates\": 2.5}, \"cost_matrix\": $costs}"
session device "{\"format\": \"lcstudio-session\", \"settings\": {\"device\": \"tpu\"}, \"cost_matrix\": $costs}"
session no_costs "{\"format\": \"lcstudio-session\"}"
session three_classes "{\"format\": \"lcstudio-session\", \"cost_matrix\": {\"costs\": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}}"
session experiment "{\"format\": \"lcstudio-session\", \"experiment\": \"chess\", \"cost_matrix\": $costs}"
session wrong_format "{\"format\": \"lcstudio-model\", \"cost_matrix\": $costs}"
session paths "{\"format\": \"lcstudio-session\", \"cost_matrix\": $costs, \"data_paths\": {\"camvid\": 7}}"
expect 0 "ok:" -- check "$f/good.lcsession"
expect 2 "field \"settings\" must be an object" -- check "$f/settings_number.lcsession"
expect 2 "unknown field \"settings.replicate\"" -- check "$f/settings_typo.lcsession"
expect 2 "listed twice" -- check "$f/methods_twice.lcsession"
expect 2 "field \"settings.seed\" must be a decimal string" -- check "$f/seed_word.lcsession"
expect 2 "field \"settings.seed\" must be a decimal string" -- check "$f/seed_overflow.lcsession"
expect 2 "field \"settings.replicates\" must be an integer" -- check "$f/replicates_fraction.lcsession"
expect 2 "not cpu or cuda" -- check "$f/device.lcsession"
expect 2 "missing field \"cost_matrix\"" -- check "$f/no_costs.lcsession"
expect 2 "3 classes but the experiment has 2" -- check "$f/three_classes.lcsession"
expect 2 "unknown experiment" -- check "$f/experiment.lcsession"
expect 2 "field \"format\" must be \"lcstudio-session\"" -- check "$f/wrong_format.lcsession"
expect 2 "field \"data_paths.camvid\" must be a path string" -- check "$f/paths.lcsession"
expect 2 "unknown kind of file" -- check "$f/points.csv"
expect 2 "no FILE given" -- check

# ---------------------------------------------------------------- nothing left behind
leftovers=$(find "$tmp" -name '*.tmp.*' | head -5)
[ -z "$leftovers" ] || { echo "FAIL: temporary files left behind: $leftovers"; failures=$((failures + 1)); }

echo "$((rows - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
