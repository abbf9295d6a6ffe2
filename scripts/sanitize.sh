#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (LCS_SANITIZE=ON)
# in build-asan/ and runs the whole CTest suite there. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLCS_SANITIZE=ON

# A source saved while the compiler was still reading its old text leaves an object that
# is newer than the source, so ninja calls it up to date although it holds the old code.
# build-asan is rebuilt rarely and slowly, so it keeps such an object for long: an
# in-place mutation run once left a mutant (the warm start's gradient with its sign
# flipped) in it, and q collapsed in this build only. Objects whose inputs changed after
# their compile began are removed and built again.
remove_stale_objects() {
  python3 - build-asan <<'PY'
import os, subprocess, sys
build = os.path.abspath(sys.argv[1])
source = os.path.dirname(build)
last = {}
with open(os.path.join(build, ".ninja_log")) as log:
    for line in log:
        f = line.rstrip("\n").split("\t")
        if len(f) == 5 and not line.startswith("#"):
            last[f[3]] = (int(f[0]), int(f[1]), int(f[2]))
deps = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, check=True).stdout
target, inputs = None, {}
for line in deps.splitlines():
    if line and not line[0].isspace():
        target = line.split(": #deps")[0]
        inputs[target] = []
    elif line.strip() and target:
        inputs[target].append(line.strip())
stale = 0
for out, (start_ms, end_ms, mtime_ns) in last.items():
    path = os.path.join(build, out)
    if out not in inputs or not os.path.exists(path):
        continue
    began = mtime_ns / 1e9 - (end_ms - start_ms) / 1000.0 - 1.0
    for dep in inputs[out]:
        dep = os.path.normpath(os.path.join(build, dep))
        if not dep.startswith(source + os.sep) or os.path.commonpath([dep, build]) == build:
            continue
        try:
            if os.path.getmtime(dep) >= began:
                print(f"sanitize.sh: {os.path.relpath(dep, source)} changed after {out} began compiling; rebuilding it")
                os.remove(path)
                stale += 1
                break
        except OSError:
            pass
sys.exit(3 if stale else 0)
PY
}
for round in 1 2 3; do
  cmake --build build-asan -j "$(nproc 2>/dev/null || echo 2)"
  status=0
  remove_stale_objects || status=$?
  [ "$status" -eq 0 ] && break
  [ "$status" -eq 3 ] || exit "$status"
  [ "$round" -lt 3 ] || { echo "sanitize.sh: sources keep changing during the build" >&2; exit 1; }
done

export QT_QPA_PLATFORM=offscreen
# LibTorch and Qt keep allocations alive until exit by design; leaks are not what this
# run looks for. Any ASan or UBSan report fails the test that triggered it.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
ctest --test-dir build-asan --output-on-failure -j 2 --timeout 1800 "$@"
