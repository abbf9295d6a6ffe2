#!/usr/bin/env bash
# Builds the readers' libFuzzer harnesses (clang, ASan + UBSan) in build-fuzz/ and runs
# each for SECONDS (default 60) from its seed corpus. Prints executions and findings per
# harness; exits 1 if any harness found a crash, a sanitizer report or a broken invariant.
# With --runs N each harness runs N inputs instead (however long that takes).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
#   scripts/fuzz.sh --runs N [HARNESS...]      (e.g. --runs 1000000 fuzz_arrays fuzz_session)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=""
if [ "${1:-}" = "--runs" ]; then
  runs="${2:?--runs needs a number of inputs}"
  [[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --runs $runs is not a positive integer" >&2; exit 2; }
  seconds=0
  shift 2
else
  seconds="${1:-60}"
  shift || true
fi
ctest_seconds="$seconds"  # what CTest's short run of each harness takes in build-fuzz
[ -z "$runs" ] || ctest_seconds=5
limit=(-max_total_time="$seconds")
[ -z "$runs" ] || limit=(-runs="$runs")
command -v clang++ >/dev/null || { echo "fuzz.sh needs clang++ (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DLCS_BUILD_FUZZERS=ON -DLCS_FUZZ_SECONDS="$ctest_seconds" > build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
cmake --build build-fuzz -j "$(nproc)" >> build-fuzz.log 2>&1 || { tail -50 build-fuzz.log; exit 1; }
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_cost_json fuzz_cost_weka fuzz_session fuzz_model_sidecar fuzz_idx fuzz_cifar fuzz_camvid fuzz_arrays fuzz_arff)
status=0
for h in "${harnesses[@]}"; do
  work="build-fuzz/tests/fuzz/corpus/$h"
  artifacts="build-fuzz/tests/fuzz/findings/$h/"
  mkdir -p "$work" "$artifacts"
  log="build-fuzz/tests/fuzz/$h.log"
  start=$(date +%s)
  if "build-fuzz/tests/fuzz/$h" "${limit[@]}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
       -artifact_prefix="$artifacts" "$work" "tests/fuzz/corpus/$h" > "$log" 2>&1; then
    result="no findings"
  else
    result="FINDING (see $log and $artifacts)"
    status=1
  fi
  executed=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  printf '%-20s %10s executions in %ss, coverage %5s edges, corpus %4s files: %s\n' \
    "$h" "$executed" "$(( $(date +%s) - start ))" "$cov" "$(ls "$work" | wc -l)" "$result"
done
exit $status
