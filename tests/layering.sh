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

# check_includes FOLDER 'EXCLUDED-FILES' 'FORBIDDEN-TARGETS' ROOT... : each `#include "X"`
# in FOLDER's files (minus those matching the first regex) names a file beside it or under
# one of the roots, and that file's path does not match the second regex.
check_includes() {
  local folder="$1" excluded="$2" forbidden="$3"; shift 3
  local file inc root found bad=""
  while IFS= read -r file; do
    [ -n "$excluded" ] && [[ "$file" =~ $excluded ]] && continue
    while IFS= read -r inc; do
      found=""
      [ -e "$(dirname "$file")/$inc" ] && found="$(dirname "$file")/$inc"
      for root in "$@"; do [ -z "$found" ] && [ -e "$src/$root/$inc" ] && found="$src/$root/$inc"; done
      [ -n "$forbidden" ] && [[ "$found" =~ $forbidden ]] && found=""
      [ -n "$found" ] || bad="$bad ${file#$src/}:\"$inc\""
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$file")
  done < <(find "$src/$folder" -name '*.h' -o -name '*.cpp')
  [ -z "$bad" ] || fail "$folder includes outside its layers (${*}):$bad"
}

check_includes base '' '' base
check_includes datasets '' '' datasets base
check_includes engine '/engine/experiments/' '/engine/experiments/' base engine
check_includes engine/experiments '' '' base datasets engine

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
hits=$(grep -rlE '#include "fastpath/' "$src/engine" "$src/datasets" "$src/app" "$src/ui" \
       | grep -vE '/engine/(fastpath|inference)/|/engine/calibration/(correction\.(h|cpp)|image_training\.cpp)$' || true)
[ -z "$hits" ] || fail "fastpath used outside the synthetic experiment's methods: $hits"
command -v readelf >/dev/null || { echo "readelf missing: source check only"; exit 0; }
needed=$(readelf -d "$cli" | grep NEEDED | grep -iE 'libQt' || true)
[ -z "$needed" ] || fail "lcstudio-cli links Qt directly: $needed"
echo "layering: ok"
