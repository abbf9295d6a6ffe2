#!/usr/bin/env bash
# Configures and builds LC Studio (Release, Ninja, ccache when present) into build/.
# Arguments go to CMake's configure step. LCS_TARGETS names the targets to build
# (default: every target, the tests included); LCS_SETUP=run installs only the packages
# the programs need (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh "${LCS_SETUP:-test}"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
# shellcheck disable=SC2086 # LCS_TARGETS is a list of target names
cmake --build build -j "$jobs" ${LCS_TARGETS:+--target $LCS_TARGETS}
