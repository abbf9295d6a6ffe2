#!/usr/bin/env bash
# The main job: build, then open LC Studio on the synthetic experiment. Without a display
# it runs the same experiment headless and prints the paper's Table 2.
set -euo pipefail
cd "$(dirname "$0")/.."
# The two programs only, and only the packages they need: the tests (scripts/test.sh) are
# a third of the build, and their tools (clang, Slurm, PyTorch) a large part of the download.
LCS_SETUP=run LCS_TARGETS="lcstudio lcstudio-cli" ./scripts/build.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec ./build/app/lcstudio "$@"
fi
echo "No display: running the synthetic experiment headless (lcstudio-cli synthetic)." >&2
exec ./build/app/lcstudio-cli synthetic "$@"
