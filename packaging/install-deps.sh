#!/usr/bin/env bash
# The one dependency installer: the Debian packages opsched needs to build, run and test.
# Idempotent, and silent when everything is already there. The CUDA toolkit (with cuDNN and CUPTI)
# is not a Debian package: opsched uses it from /usr/local/cuda when present and builds without it
# otherwise.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-svg-dev libgl-dev
  nlohmann-json3-dev libcli11-dev libsqlite3-dev
  libgtest-dev libgmock-dev
  libonnx-dev libprotobuf-dev libonnx-testdata
  libdnnl-dev ocl-icd-opencl-dev coinor-libcbc-dev
  patchelf clang-format
  python3-torchvision python3-onnx
  # cli.slurm_array starts its own munged, slurmctld and slurmd from a configuration in the build
  # tree; the packages' system services stay idle (no /etc/slurm/slurm.conf).
  slurm-wlm munge
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "opsched: installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "opsched: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "opsched: packages installed"
