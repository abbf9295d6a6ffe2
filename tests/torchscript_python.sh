#!/usr/bin/env bash
# Exports every kind of network (tst_export with LCS_EXPORT_DIR) and checks from
# Debian's python3-torch that each loads with torch.jit.load and gives the C++ outputs.
set -euo pipefail
tst_export=$1
# Debian's interpreter, where python3-torch installs (a pyenv or venv python3 first on
# PATH would not see it).
python=${LCS_PYTHON:-/usr/bin/python3}
if ! "$python" -c "import torch, numpy" 2>/dev/null; then
  echo "FAIL: $python cannot import torch and numpy: install Debian's python3-torch (scripts/setup.sh does)" >&2
  exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
LCS_EXPORT_DIR=$dir QT_QPA_PLATFORM=offscreen "$tst_export" networksExportAsTorchScript >"$dir/log" 2>&1 ||
  { cat "$dir/log"; exit 1; }
"$python" "$(dirname "$0")/torchscript_python.py" "$dir"
