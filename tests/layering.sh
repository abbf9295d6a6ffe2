#!/usr/bin/env bash
# The folders are the layers, bottom up:
#   base/                  formats, settings, seeds, sweeps: no LibTorch, no Qt, no OpenCV
#   datasets/              data files into bytes and tensors: base only
#   engine/ (lower layers) decisions, models, inference, calibration: base only
#   engine/experiments/    the experiments: the only engine code that may use datasets/
#   ui/, app/              front ends
# Every quoted include must resolve inside the layers a file may use; one include that
# points up fails. Qt stays out of everything below ui/, and the CLI links no Qt library.
# (Debian's libtorch itself pulls Qt5 in through OpenCV's highgui; that is not ours.)
set -u
src="$1"; cli="$2"
fail() { echo "FAIL: $*"; exit 1; }

# check_includes FOLDER 'EXCLUDED-FILES' 'ALLOWED' : each `#include "X"` in FOLDER's files
# (minus those matching the first regex) names a file from the repository's root, and X
# matches ALLOWED: the layers the folder may use, named by the include itself.
check_includes() {
  local folder="$1" excluded="$2" allowed="$3"
  local file inc bad=""
  while IFS= read -r file; do
    [ -n "$excluded" ] && [[ "$file" =~ $excluded ]] && continue
    while IFS= read -r inc; do
      [[ "$inc" == *.moc ]] && continue  # Qt's moc output, generated beside the build
      if [ ! -f "$src/$inc" ] || ! [[ "$inc" =~ $allowed ]]; then bad="$bad ${file#$src/}:\"$inc\""; fi
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$file")
  done < <(find "$src/$folder" -name '*.h' -o -name '*.cpp')
  [ -z "$bad" ] || fail "$folder includes outside its layers ($allowed):$bad"
}

check_includes base '' '^base/'
check_includes datasets '' '^(base|datasets)/'
check_includes engine '/engine/experiments/' '^(base/|engine/(calibration|core|decision|fastpath|inference|io|models)/)'
check_includes engine/experiments '' '^(base|datasets|engine)/'
check_includes ui '' '^(base|datasets|engine|ui)/'
# The CLI's files use no ui/; the window's main (gui_main.cpp) is the one that does.
check_includes app '/app/gui_main\.cpp$' '^(base|datasets|engine|app)/'

hits=$(grep -rlE '#include <Q[A-Za-z]|#include <qcustomplot' "$src/base" "$src/engine" "$src/datasets" || true)
[ -z "$hits" ] || fail "Qt included below ui/: $hits"
hits=$(grep -rlE '#include <(torch|ATen|c10)/' "$src/base" || true)
[ -z "$hits" ] || fail "the base library includes LibTorch: $hits"
hits=$(grep -rlE '#include <opencv' "$src/base" || true)
[ -z "$hits" ] || fail "the base library includes OpenCV: $hits"
# OpenCV stays in .cpp files: no engine or datasets header includes it.
hits=$(grep -rlE '#include <opencv' --include='*.h' "$src/engine" "$src/datasets" || true)
[ -z "$hits" ] || fail "OpenCV included in a header: $hits"
# The hand-written gradients are a fast path for the synthetic experiment's small MLPs
# only: outside engine/fastpath, only its inference methods and its correction use them;
# every other network trains with autograd.
hits=$(grep -rlE '#include "engine/fastpath/' "$src/engine" "$src/datasets" "$src/app" "$src/ui" \
       | grep -vE '/engine/(fastpath|inference)/|/engine/calibration/(correction\.(h|cpp)|image_training\.cpp)$' || true)
[ -z "$hits" ] || fail "fastpath used outside the synthetic experiment's methods: $hits"
# The window draws, the engine computes: ui/ handles no tensor or network and calls no
# engine computation (decisions, regions, projections, predictions); the engine hands it
# plain views (engine/experiments/plane_views.h, run_views.h).
hits=$(grep -rnE '(#include <(torch|ATen|c10)/|\b(at|torch|c10)::|\bMlpImpl\b|\b(bayesDecisions|fitPrincipalPlane|projectOntoPlane|predictProbabilities|correctedProbabilities|syntheticGrid)\()' \
       "$src/ui" || true)
[ -z "$hits" ] || fail "tensors, networks or engine computations in ui/: $hits"
# One results document: an experiment fills ExperimentOutput and one file writes every
# results file from it; nothing else in engine/experiments dumps JSON (a CamVid model
# folder's manifest is a model file, not results).
hits=$(grep -rlE '\.dump\(' "$src/engine/experiments" \
       | grep -vE '/engine/experiments/(results_document\.cpp|camvid/camvid_model_folder\.cpp|run_record\.cpp)$' || true)
[ -z "$hits" ] || fail "results JSON assembled outside results_document.cpp: $hits"
command -v readelf >/dev/null || { echo "readelf missing: source check only"; exit 0; }
needed=$(readelf -d "$cli" | grep NEEDED | grep -iE 'libQt' || true)
[ -z "$needed" ] || fail "lcstudio-cli links Qt directly: $needed"
echo "layering: ok"
