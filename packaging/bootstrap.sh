#!/usr/bin/env bash
# README's commands. `run`: install what is missing, build, open the GUI (or, without a display,
# show a headless run). `test`: install what is missing, build, run the whole suite with ctest.
# OPSCHED_PRESET picks another CMake preset (asan, nogui); the default is `dev`.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
shift || true
preset=${OPSCHED_PRESET:-dev}

packaging/install-deps.sh

configure_log=$(mktemp)
if ! cmake --preset "$preset" >"$configure_log" 2>&1; then
  cat "$configure_log" >&2
  exit 1
fi
grep -E "^-- opsched:" "$configure_log" || true
rm -f "$configure_log"

case "$preset" in
  asan) builddir=build-asan ;;
  nogui) builddir=build-nogui ;;
  *) builddir=build ;;
esac

case "$mode" in
  run)
    # The two applications only: the test suite is built by `test`.
    targets=(--target opsched-cli)
    if grep -q '^OPSCHED_BUILD_GUI:BOOL=ON' "$builddir/CMakeCache.txt" 2>/dev/null; then
      targets+=(opsched)
    fi
    cmake --build --preset "$preset" "${targets[@]}"
    if [ -x "$builddir/opsched" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
      exec "$builddir/opsched" "$@"
    fi
    echo
    echo "No display: this is what opsched does headless."
    echo "\$ opsched-cli info zoo:inception_v3"
    "$builddir/opsched-cli" info zoo:inception_v3
    echo
    echo
    echo "\$ opsched-cli profile zoo:inception_v3 zoo:squeezenet --batch 1,8 --device sim:h100 --warps --db $builddir/results.db"
    "$builddir/opsched-cli" profile zoo:inception_v3 zoo:squeezenet --batch 1,8 --device sim:h100 --warps \
      --db "$builddir/results.db"
    echo
    echo "\$ opsched-cli compare --db $builddir/results.db"
    exec "$builddir/opsched-cli" compare --db "$builddir/results.db"
    ;;
  test)
    cmake --build --preset "$preset"
    # The test data is part of the suite: if it cannot be made, the test command fails saying why.
    export OPSCHED_REQUIRE_TESTDATA=1
    packaging/torchvision-testdata.sh "$builddir/testdata/torchvision"
    packaging/torchvision-testdata.sh "$builddir/testdata/transformers" tests/data/export_transformers.py
    packaging/torchvision-testdata.sh "$builddir/testdata/usermodels" tests/data/export_user_models.py
    packaging/torchvision-testdata.sh "$builddir/testdata/newer_opsets" tests/data/export_newer_opsets.py
    log=$(mktemp)
    set +e
    ctest --preset "$preset" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    skipped=$(grep -c "(Skipped)" "$log" || true)
    summary=$(grep -E "tests passed, [0-9]+ tests? failed out of" "$log" | tail -n 1)
    rm -f "$log"
    [ "$skipped" -gt 0 ] && echo "(${skipped} tests skipped: they need a CUDA device or profiling permission; skipped tests are not passes)"
    # ctest prints its list of skipped tests after the summary; end on the summary itself.
    [ -n "$summary" ] && echo "$summary"
    exit "$rc"
    ;;
  *)
    echo "usage: packaging/bootstrap.sh [run|test] [args...]" >&2
    exit 2
    ;;
esac
