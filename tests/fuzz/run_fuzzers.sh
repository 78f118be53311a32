#!/usr/bin/env bash
# Runs every libFuzzer target for a given time and prints, per target, executions, coverage and
# findings. Needs the fuzz preset's build:
#   cmake --preset fuzz && cmake --build --preset fuzz --target fuzz_onnx_import fuzz_schedule_file fuzz_sim_device fuzz_results_db fuzz_mapping_file
#   tests/fuzz/run_fuzzers.sh 600                  # ten minutes each, one after another
#   PARALLEL=2 tests/fuzz/run_fuzzers.sh 600       # two at a time
#   tests/fuzz/run_fuzzers.sh 60 schedule_file     # some targets only
# The committed corpus is only read: each target grows its own copy under build-fuzz/fuzz-work/.
# A finding (crash, sanitizer report, leak, timeout) lands in build-fuzz/fuzz-work/TARGET/findings/;
# keep its input under tests/fuzz/regressions/TARGET/ so the test command replays it. Exit 1 when
# any target found something. Each target's figures (time, executions, coverage, findings, the
# machine and compiler) are written to tests/fuzz/records/TARGET.json, which is committed;
# tests/fuzz/fuzz_records.py --write puts them into docs/building.md's table.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(onnx_import schedule_file sim_device results_db mapping_file)
build=${FUZZ_BUILD_DIR:-build-fuzz}
work="$build/fuzz-work"
parallel=${PARALLEL:-1}

run_target() {
  local t=$1 bin="$build/tests/fuzz/fuzz_$1"
  local dir="$work/$t"
  mkdir -p "$dir/corpus" "$dir/findings"
  local args=(-max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096
              -artifact_prefix="$dir/findings/")
  case "$t" in
    schedule_file|sim_device|mapping_file) args+=(-dict=tests/fuzz/json.dict -max_len=16384) ;;
    results_db) args+=(-max_len=131072) ;;
    onnx_import) args+=(-max_len=65536) ;;
  esac
  local seeds=(tests/fuzz/corpus/"$t")
  [ -d tests/fuzz/regressions/"$t" ] && seeds+=(tests/fuzz/regressions/"$t")
  "$bin" "${args[@]}" "$dir/corpus" "${seeds[@]}" >"$dir/log.txt" 2>&1 || true
}

machine() {
  local cpu os
  cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //' || echo unknown)
  os=$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null || uname -sr)
  echo "$cpu, $(nproc) cores, $os"
}

# tests/fuzz/records/TARGET.json: what the run of TARGET measured.
write_record() {
  local t=$1 log="$work/$1/log.txt" findings
  findings=$(find "$work/$t/findings" -type f | wc -l)
  mkdir -p tests/fuzz/records
  python3 - "$t" "$seconds" "$parallel" "$findings" "$(machine)" "$("${CXX:-clang++}" --version 2>/dev/null | head -1)" \
    "$log" >"tests/fuzz/records/$t.json" <<'PY'
import datetime, json, re, sys
target, seconds, parallel, findings, machine, compiler, log = sys.argv[1:]
text = open(log, errors="replace").read()
def last(pattern):
    found = re.findall(pattern, text)
    return int(found[-1]) if found else None
print(json.dumps({
    "target": target, "date": datetime.date.today().isoformat(), "seconds": int(seconds),
    "parallel": int(parallel), "executions": last(r"stat::number_of_executed_units:\s*(\d+)"),
    "execs_per_s": last(r"stat::average_exec_per_sec:\s*(\d+)"), "coverage": last(r"cov: (\d+)"),
    "features": last(r"ft: (\d+)"), "findings": int(findings), "machine": machine, "compiler": compiler,
}, indent=2))
PY
}

summary_line() {
  local t=$1 log="$work/$1/log.txt"
  local execs cov ft findings rate
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  findings=$(find "$work/$t/findings" -type f | wc -l)
  printf '%-14s %8ss %12s %10s %8s %8s %9s\n' "$t" "$seconds" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$findings"
}

for t in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || { echo "run_fuzzers: no $build/tests/fuzz/fuzz_$t (build the fuzz preset first)" >&2; exit 2; }
done

running=0
for t in "${targets[@]}"; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

printf '%-14s %9s %12s %10s %8s %8s %9s\n' target time executions execs/s cov features findings
total=0
for t in "${targets[@]}"; do
  summary_line "$t"
  write_record "$t"
  total=$((total + $(find "$work/$t/findings" -type f | wc -l)))
done
echo "records: tests/fuzz/records/*.json (tests/fuzz/fuzz_records.py --write updates docs/building.md)"
if [ "$total" -gt 0 ]; then
  echo "findings: $total (inputs under $work/*/findings/; each log in $work/TARGET/log.txt)"
  exit 1
fi
echo "no findings"
