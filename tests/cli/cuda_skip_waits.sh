#!/bin/sh
# On a GPU: a multi-stream plan checked against the test data passes, and the same plan with its
# waits between streams left out (run --inject-fault skip-waits) must fail: the checked run
# follows a warm-up on other inputs and a poisoned arena, so a consumer that starts before its
# producer reads NaN. Prints "skipped: no CUDA device" without a GPU; missing test data fails.
# Usage: cuda_skip_waits.sh CLI MODEL_DIR
cli=$1
dir=$2
if [ ! -f "$dir/model.onnx" ]; then
  echo "no test data in $dir (the test command's data step makes it)"
  exit 1
fi
run() {
  "$cli" run "$dir/model.onnx" --input "$dir/test_data_set_0" --backend cuda --no-tf32 --scheduler nimble \
    --device sim:h100 --check --repeat 3 "$@" 2>&1
}
out=$(run)
rc=$?
case $out in
  *"no CUDA device"* | *"has no CUDA backend"*)
    echo "skipped: no CUDA device"
    exit 0
    ;;
esac
if [ $rc -ne 0 ]; then
  echo "the clean run failed (exit $rc): $out"
  exit 1
fi
faulty=$(run --inject-fault skip-waits)
rc=$?
if [ $rc -eq 1 ] && echo "$faulty" | grep -q "outputs differ"; then
  echo "clean run passes; skip-waits fails the check"
  exit 0
fi
echo "skip-waits was not caught (exit $rc): $faulty"
exit 1
