#!/usr/bin/env bash
# lcstudio's screenshot mode as a user runs it: exit 0 and a real PNG for each demo
# (synthetic, label corruption and selective classification on Fashion-MNIST, CamVid
# segmentation when a CamVid folder is given as $2 or $LCS_CAMVID_DIR); bad use exits 2,
# and so does an image demo without data.
set -u
app="$1"
camvid="${2:-${LCS_CAMVID_DIR:-}}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME="$tmp/config"   # no remembered window state or data folder from the user
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

"$app" --demo synthetic --replicates 1 --screenshot "$tmp/window.png" --export-plots "$tmp/plots" > "$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; fail "demo run failed"; }
for plot in regions_uncorrected regions_corrected correction_curves; do
  for format in png svg pdf; do
    # Named by the experiment, the task shown and the plot: synthetic_bbvi_r0_regions_corrected.png
    ls "$tmp"/plots/synthetic_*_r0_"$plot.$format" > /dev/null 2>&1 || fail "--export-plots did not write synthetic_METHOD_r0_$plot.$format ($(ls "$tmp/plots" | head -3 | tr '\n' ' '))"
  done
done
grep -q "event-loop delay" "$tmp/out.txt" || fail "no responsiveness figure printed"
is_png "$tmp/window.png" || fail "not a PNG"
[ "$(stat -c %s "$tmp/window.png")" -gt 20000 ] || fail "PNG suspiciously small"

# A user's steps after the run, in the window: edit a cost (the page re-corrects), then
# File > Export Model (on a user's predictive, the kept rule); the PNG shows the result.
python3 "$(dirname "$0")/own_predictive_fixture.py" "$tmp" 5 300 negative positive || fail "the own-predictive fixture"
own=(--demo correct --set "features=$tmp/ox.csv" --set "predictive=$tmp/op.csv" --set "labels=$tmp/oy.csv" --set correction_iterations=60)
"$app" "${own[@]}" --edit-cost 1,0=2 --export-model "$tmp/kept.pt" --screenshot "$tmp/edited.png" > "$tmp/edited.txt" 2>&1 || { cat "$tmp/edited.txt"; fail "--edit-cost with --export-model failed"; }
grep -q "re-corrected after the cost edit(s)" "$tmp/edited.txt" || { cat "$tmp/edited.txt"; fail "no re-correction after the edit"; }
grep -q "model saved: $tmp/kept.pt" "$tmp/edited.txt" || { cat "$tmp/edited.txt"; fail "the model was not saved"; }
is_png "$tmp/edited.png" || fail "no PNG after the edit"
python3 - "$tmp/kept.pt.json" <<'PY' || fail "the saved model is not the kept rule under the edited matrix"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cost_matrix"]["costs"][1][0] == 2, d["cost_matrix"]
assert d["role"] == "kept_rule" and d["decision_rule"], d
PY
"$app" "${own[@]}" --edit-cost 1,0 --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--edit-cost without =VALUE should exit 2"
"$app" "${own[@]}" --edit-cost 5,0=1 --screenshot "$tmp/x.png" > "$tmp/range.txt" 2>&1; [ $? -eq 2 ] || fail "--edit-cost outside the matrix should exit 2"
grep -q "the matrix has 2 rows (true classes) and 2 columns (decisions)" "$tmp/range.txt" || { cat "$tmp/range.txt"; fail "no message naming the matrix's size"; }
"$app" "${own[@]}" --export-model "$tmp/x.png" --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--export-model onto the screenshot should exit 2"
"$app" --demo synthetic --export-model "$tmp/m.pt" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--export-model without --screenshot should exit 2"
[ ! -e "$tmp/x.png" ] || fail "a refused step left a screenshot"

# The image demos: Debian's dataset-fashion-mnist (scripts/setup.sh installs it).
if [ -d /usr/share/datasets/fashion-mnist ]; then
  for demo in corruption selective; do
    "$app" --demo "$demo" --screenshot "$tmp/$demo.png" > "$tmp/$demo.txt" 2>&1 || { cat "$tmp/$demo.txt"; fail "$demo demo failed"; }
    grep -q "screenshot written" "$tmp/$demo.txt" || fail "$demo: no confirmation printed"
    is_png "$tmp/$demo.png" || fail "$demo: not a PNG"
    # A window full of heat maps, curves and image tiles compresses far less than an empty one.
    [ "$(stat -c %s "$tmp/$demo.png")" -gt 150000 ] || fail "$demo: PNG suspiciously small ($(stat -c %s "$tmp/$demo.png") bytes)"
  done
else
  echo "screenshot mode: /usr/share/datasets/fashion-mnist missing (apt-get install dataset-fashion-mnist): image demos skipped"
fi
# CamVid: the demo preset trains in about a minute on one core.
if [ -n "$camvid" ] && [ -d "$camvid/train" ]; then
  start=$(date +%s)
  "$app" --demo camvid --data "$camvid" --screenshot "$tmp/camvid.png" > "$tmp/camvid.txt" 2>&1 || { cat "$tmp/camvid.txt"; fail "camvid demo failed"; }
  echo "screenshot mode: camvid demo took $(( $(date +%s) - start )) s"
  grep -q "screenshot written" "$tmp/camvid.txt" || fail "camvid: no confirmation printed"
  is_png "$tmp/camvid.png" || fail "camvid: not a PNG"
  [ "$(stat -c %s "$tmp/camvid.png")" -gt 150000 ] || fail "camvid: PNG suspiciously small ($(stat -c %s "$tmp/camvid.png") bytes)"
else
  echo "screenshot mode: no CamVid folder (${camvid:-none given}): camvid demo skipped"
fi
"$app" --demo camvid --data "$tmp/no-such-folder" --screenshot "$tmp/x.png" > "$tmp/nocamvid.txt" 2>&1
[ $? -eq 2 ] || { cat "$tmp/nocamvid.txt"; fail "the camvid demo without data should exit 2"; }
grep -q "no CamVid data.*no-such-folder" "$tmp/nocamvid.txt" || { cat "$tmp/nocamvid.txt"; fail "no clear message naming the missing CamVid folder"; }
"$app" --demo corruption --data "$tmp/no-such-folder" --screenshot "$tmp/x.png" > "$tmp/nodata.txt" 2>&1
[ $? -eq 2 ] || { cat "$tmp/nodata.txt"; fail "an image demo without data should exit 2"; }
grep -q "no image data" "$tmp/nodata.txt" || fail "no clear message for missing data"

"$app" --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--screenshot without --demo should exit 2"
"$app" --demo corruption --max-train 0 --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--max-train 0 should exit 2"
"$app" --demo synthetic --max-test 100 --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--max-test without an image demo should exit 2"
"$app" --demo nothing --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown demo should exit 2"
"$app" "$tmp/missing.lcsession" --demo synthetic --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 1 ] || fail "missing session should exit 1"
# The screenshot path is checked before the demo runs, against what the window reads.
printf '{"format": "lcstudio-session", "version": 2, "experiment": "synthetic", "settings": {"replicates": 1, "grid_resolution": 0}, "cost_matrix": {"costs": [[0, 1], [1, 0]]}}' > "$tmp/s.lcsession"
cp "$tmp/s.lcsession" "$tmp/s.png"
before=$(cksum < "$tmp/s.png")
"$app" "$tmp/s.png" --demo synthetic --screenshot "$tmp/s.png" > "$tmp/same.txt" 2>&1; [ $? -eq 2 ] || fail "a screenshot onto the session it opened should exit 2"
grep -q "is also the input of the session" "$tmp/same.txt" || { cat "$tmp/same.txt"; fail "no message naming the session"; }
[ "$before" = "$(cksum < "$tmp/s.png")" ] || fail "the session was overwritten"
"$app" --demo synthetic --screenshot "$tmp/x.jpg" > /dev/null 2>&1; [ $? -eq 2 ] || fail "a screenshot not named .png should exit 2"
"$app" --demo synthetic --export-plots "$tmp/p" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--export-plots without --screenshot should exit 2"
"$app" --demo synthetic --screenshot "$tmp/x.png" --export-plots "$tmp/x.png" > "$tmp/shared.txt" 2>&1; [ $? -eq 2 ] || fail "--export-plots onto the screenshot path should exit 2"
grep -q "is the --screenshot path" "$tmp/shared.txt" || { cat "$tmp/shared.txt"; fail "no message naming the shared path"; }
"$app" --demo synthetic --set device=cuda:7 --screenshot "$tmp/x.png" > "$tmp/cuda.txt" 2>&1; [ $? -eq 2 ] || fail "--set device=cuda:7 should exit 2 on a build without that device"
grep -q 'setting "device": "cuda:7" cannot be chosen here' "$tmp/cuda.txt" || { cat "$tmp/cuda.txt"; fail "no message naming the device"; }
"$app" --demo synthetic --set seed=1 --set seed=2 --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--set twice should exit 2"
[ ! -e "$tmp/x.png" ] && [ ! -e "$tmp/x.jpg" ] || fail "failed runs wrote a screenshot"
# A session the command line runs without a region grid (0) runs in the window too.
"$app" "$tmp/s.lcsession" --demo synthetic --screenshot "$tmp/grid0.png" > "$tmp/grid0.txt" 2>&1 || { cat "$tmp/grid0.txt"; fail "a session with grid_resolution 0 did not run"; }
# Help and version need no display.
env -u QT_QPA_PLATFORM -u DISPLAY -u WAYLAND_DISPLAY "$app" --help > "$tmp/help.txt" 2>&1 || { cat "$tmp/help.txt"; fail "--help without a display failed"; }
grep -q -- "--screenshot" "$tmp/help.txt" || fail "--help does not list --screenshot"
echo "screenshot mode: ok"
