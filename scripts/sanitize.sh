#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (LCS_SANITIZE=ON)
# in build-asan/ and runs the whole CTest suite there. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLCS_SANITIZE=ON
cmake --build build-asan -j "$(nproc 2>/dev/null || echo 2)"
export QT_QPA_PLATFORM=offscreen
# LibTorch and Qt keep allocations alive until exit by design; leaks are not what this
# run looks for. Any ASan or UBSan report fails the test that triggered it.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
ctest --test-dir build-asan --output-on-failure -j 2 --timeout 1800 "$@"
