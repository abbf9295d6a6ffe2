#!/usr/bin/env bash
# Builds everything and runs the whole test suite (CTest, offscreen Qt platform), then
# builds the readers' fuzz harnesses (clang, ASan + UBSan) and fuzzes each briefly.
# LCS_FUZZ_SECONDS sets how long each harness runs (default 5; 0 skips fuzzing).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j 2 "$@"
seconds="${LCS_FUZZ_SECONDS:-5}"
if [ "$seconds" != 0 ]; then
  echo "Fuzzing every reader for ${seconds}s (scripts/fuzz.sh runs them longer):"
  ./scripts/fuzz.sh "$seconds"
fi
