#!/usr/bin/env bash
# The test command's data step: exports networks with their PyTorch outputs into OUT once, with
# SCRIPT (default tests/data/export_torchvision.py; tests/data/export_transformers.py for the
# transformers). It is skipped while OUT's stamp holds the script's current hash; without a
# Python that has torch, torchvision and onnx it says so and the tests that need the data report
# themselves skipped; with OPSCHED_REQUIRE_TESTDATA=1 (the test command) it fails instead, so a
# suite whose data could not be made never reports "100% passed". OPSCHED_PYTHON picks the
# interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: packaging/torchvision-testdata.sh OUT_DIR [SCRIPT]}
script=${2:-tests/data/export_torchvision.py}
what=$(basename "$script" .py)
what=${what#export_}
stamp="$out/.stamp"
hash=$(sha256sum "$script" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
  exit 0
fi

python=""
# Debian's python3-torchvision lives in /usr/bin/python3's packages; a pyenv python3 may shadow it.
for candidate in ${OPSCHED_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c "import torch, torchvision, onnx" 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "opsched: $what test data not generated: no python3 with torch, torchvision and onnx" \
       "(Debian: python3-torchvision python3-onnx); those tests will be skipped" >&2
  [ "${OPSCHED_REQUIRE_TESTDATA:-0}" = 1 ] && exit 1
  exit 0
fi

echo "opsched: exporting $what test models into $out (once; takes a few minutes)"
rm -rf "$out.tmp"
start=$SECONDS
if ! "$python" -W ignore "$script" --out "$out.tmp" --batch 1; then
  rm -rf "$out.tmp"
  echo "opsched: $what export failed; those tests will be skipped" >&2
  [ "${OPSCHED_REQUIRE_TESTDATA:-0}" = 1 ] && exit 1
  exit 0
fi
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$hash" >"$stamp"
echo "opsched: $what test models ready in $((SECONDS - start)) s"
