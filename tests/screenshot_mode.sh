#!/usr/bin/env bash
# lcstudio's screenshot mode as a user runs it: exit 0 and a real PNG; bad use exits 2.
set -u
app="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME="$tmp/config"   # no remembered window state from the user
"$app" --demo synthetic --replicates 1 --screenshot "$tmp/window.png" > "$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; fail "demo run failed"; }
grep -q "event-loop delay" "$tmp/out.txt" || fail "no responsiveness figure printed"
[ "$(head -c 8 "$tmp/window.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "not a PNG"
[ "$(stat -c %s "$tmp/window.png")" -gt 20000 ] || fail "PNG suspiciously small"
"$app" --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--screenshot without --demo should exit 2"
"$app" --demo nothing --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown demo should exit 2"
"$app" "$tmp/missing.lcsession" --demo synthetic --screenshot "$tmp/x.png" > /dev/null 2>&1; [ $? -eq 1 ] || fail "missing session should exit 1"
[ ! -e "$tmp/x.png" ] || fail "failed runs wrote a screenshot"
echo "screenshot mode: ok"
