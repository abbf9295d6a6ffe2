#!/usr/bin/env bash
# Installs what LC Studio needs from Debian 12's packages. Run as root (CI, containers);
# as another user it prints the exact apt-get line and stops.
#   setup.sh        what building and testing need (scripts/test.sh)
#   setup.sh run    what building and running the programs need (scripts/run.sh): not
#                   the test tools (clang for the fuzzers, Slurm, PyTorch)
set -euo pipefail
purpose="${1:-test}"
if [ "$purpose" != test ] && [ "$purpose" != run ]; then
  echo "setup.sh: unknown purpose \"$purpose\" (run or test)" >&2
  exit 2
fi

packages=(
  cmake ninja-build g++ ccache pkg-config
  qt6-base-dev libqt6svg6-dev
  libtorch-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libopencv-dev
  nlohmann-json3-dev
  libcli11-dev
  libxtensor-dev
  zlib1g-dev
  dataset-fashion-mnist
  # Thread-safe OpenBLAS: LibTorch's default reference BLAS is 2-3x slower on small
  # matrices, and the serial OpenBLAS build is not safe to call from several threads.
  libopenblas0-pthread
)
if [ "$purpose" = test ]; then
  packages+=(
    # Proves that exported TorchScript models load in PyTorch (tests/torchscript_python.py).
    python3-torch
    # The readers' fuzz harnesses: clang with libFuzzer and the sanitizer runtimes.
    clang libclang-rt-14-dev
    # tests/slurm_sweep.sh starts a single-node Slurm on the loopback to test
    # `lcstudio-cli sweep run --backend slurm` (sbatch, squeue, scontrol, scancel).
    slurmctld slurmd slurm-client munge
  )
fi

# The package that installs each name: Debian 12 ships libqt6svg6-dev as a name that
# qt6-svg-dev provides, which dpkg does not list as installed.
installed_as() {
  case "$1" in
    libqt6svg6-dev) echo qt6-svg-dev ;;
    *) echo "$1" ;;
  esac
}
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$(installed_as "$p")" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "LC Studio needs these Debian packages. Install them as root, then run again:" >&2
  echo "  sudo apt-get update && sudo $line" >&2
  exit 1
fi
echo "Installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$line
