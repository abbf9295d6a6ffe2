#!/usr/bin/env bash
# The engine and the data sources never touch Qt (and keep OpenCV out of headers): no Qt include in their sources, and
# the headless CLI built on them has no Qt library among its direct dependencies.
# (Debian's libtorch itself pulls Qt5 in through OpenCV's highgui; that is not ours.)
set -u
src="$1"; cli="$2"
fail() { echo "FAIL: $*"; exit 1; }
hits=$(grep -rlE '#include <Q[A-Za-z]|#include <qcustomplot' "$src/engine" "$src/datasets" || true)
[ -z "$hits" ] || fail "Qt included in engine/datasets: $hits"
# OpenCV stays in .cpp files: no engine or datasets header includes it.
hits=$(grep -rlE '#include <opencv' --include='*.h' "$src/engine" "$src/datasets" || true)
[ -z "$hits" ] || fail "OpenCV included in a header: $hits"
# The hand-written gradients are a fast path for the synthetic experiment's small MLPs
# only: outside engine/fastpath, only its inference methods and its correction use them;
# every other network trains with autograd.
hits=$(grep -rlE '#include "fastpath/' "$src/engine" "$src/datasets" "$src/app" "$src/ui" \
       | grep -vE '/engine/(fastpath|inference)/|/engine/calibration/(correction\.(h|cpp)|image_training\.cpp)$' || true)
[ -z "$hits" ] || fail "fastpath used outside the synthetic experiment's methods: $hits"
# Data sources sit below the models and everything above them: datasets include only the
# base library (core/, decision/) and their own headers, never a network or an experiment.
hits=$(grep -rlE '#include "(models|inference|calibration|experiments|fastpath|io)/' "$src/datasets" || true)
[ -z "$hits" ] || fail "datasets reach up into the engine: $hits"
# The readers, writers and seed mixing in the base library (lcs_formats) need no LibTorch.
hits=$(grep -lE '#include <(torch|ATen|c10)/' "$src"/engine/core/{seeds,version,number_format,json_input,atomic_file}.* \
       "$src"/engine/inference/method_catalog.* || true)
[ -z "$hits" ] || fail "the base library includes LibTorch: $hits"
command -v readelf >/dev/null || { echo "readelf missing: source check only"; exit 0; }
needed=$(readelf -d "$cli" | grep NEEDED | grep -iE 'libQt' || true)
[ -z "$needed" ] || fail "lcstudio-cli links Qt directly: $needed"
echo "layering: ok"
