#!/usr/bin/env bash
# opsched against PyTorch on one GPU, like for like, in one command: the same BN-folded
# graph, weights, input and precision on both sides, both measured in this one script run.
#
#   tests/bench/gpu_verify.sh [--bundle TARBALL|DIR] [--out DIR] [--work DIR] [--budget SECONDS]
#                             [--steps LIST] [--fresh] [--dry-run]
#
# Default steps, in this order (each with its own time budget, cut to what the overall budget has left):
#   env        machine, GPU, glibc, Python/torch; finds libcudnn.so.9 and libcupti.so.13; unpacks
#              the bundle and checks that its libraries resolve
#   devices    opsched-cli devices
#   export     tests/bench/bench_pytorch_gpu.py export: per network (googlenet, inception_v3, resnet50,
#              mobilenet_v2, squeezenet1_1) ONE PyTorch module with BatchNorm folded into the
#              convolutions (checked on the CPU against the unfolded one), exported to ONNX at batch 1
#              and 16 with its input, its float64 output, and PyTorch's own GPU outputs with TF32 off
#              (pytorch_fp32/) and on (pytorch_tf32/)
#   pytorch    bench_pytorch_gpu.py bench on the same folded modules and inputs: eager,
#              torch.cuda.graph, torch.compile mode="reduce-overhead", and mode="max-autotune" where its
#              compile fits the step's time; NCHW and channels_last; CUDA events, median, p10/p90
#   opsched    per model and batch, each scheduler (sequential greedy ios ios-merge ios-parallel nimble
#              opara): `schedule --device cuda:0 -o PLAN` (searched with measured costs), then `run
#              --schedule PLAN --backend cuda --repeat 100` (the plan as one CUDA graph, replays timed
#              with CUDA events) checked against PyTorch's TF32 output (error reported, scaled <= 2e-2)
#   check      every plan again with TF32 off on both sides: `run --schedule PLAN --no-tf32 --check`
#              against PyTorch's float32 output (rtol 1e-3, atol 1e-6, scaled 2e-4; pass/fail),
#              a few runs at a time (correctness only, nothing timed)
#   fault      the bar shown to work: one deep convolution's weight x1.05 (`run --inject-fault
#              weight=OP`, OP at 3/4 of the model's convolutions) must fail the TF32-off check; the same
#              fault against the TF32-on bar is reported
#   lomo       calibration held out by model: for each export at batch 1, `calibrate` fits sim:h100 on
#              the other models (--write-device), then `calibrate` on the held-out model with that
#              fitted device (--sim FILE) writes its stages; the summary reports Spearman and mean
#              |error| of the held-out stages per model and pooled
# The transformer steps (`--steps transformers`: env devices tfexport tfpytorch tfopsched tfcheck tffault
# opara mapping; not in the default run; `--steps likeforlike` names the default list):
#   tfexport   tests/data/export_transformers.py --batches: bert_like, gpt2_like, t5_like (seq 128;
#              BERT-base/GPT-2-small/T5-small widths, 2 layers each, TF_FULL=1 for 12/12/6+6) and
#              torchvision's vit_b_16 and convnext_tiny (224x224) at batch 1 and 8: ONNX, seeded inputs,
#              float64 outputs, PyTorch's own GPU outputs with TF32 off (pytorch_fp32/) and on
#              (pytorch_tf32/), the weights (<model>.pt); the exports and float64 references run on the
#              CPU, PyTorch's references on the GPU
#   tfpytorch  bench_pytorch_gpu.py bench on those weights and inputs: eager, torch.cuda.graph,
#              torch.compile reduce-overhead (max-autotune where it fits TF_PYTORCH_BUDGET); NCHW
#              (channels_last too for vit_b_16 and convnext_tiny)
#   tfopsched  the opsched step on them with TF_SCHEDULERS (sequential ios nimble opara): plan
#              searched on cuda:0, run as one CUDA graph, TF32 output against PyTorch's TF32 output
#   tfcheck    the check step on them (TF32 off on both sides, the same bar)
#   tffault    the fault step on them: the weight of the MatMul/Gemm/Conv at 3/4 of the model's
#              weighted ops x1.05 must fail the TF32-off bar
#   opara      Opara's launch order against Nimble's on t5_like and bert_like (each batch): both
#              plans (searched on cuda:0 by tfopsched) timed again, alternately, twice each with
#              --repeat 200; and each scheduler's plan for sim:h100 (`schedule --device sim:h100
#              --cuda-graph`): the simulator's prediction, and whether it is the same plan
#   mapping    DiviML over cpu,cuda:0 (below), on googlenet (the torchvision export when there is
#              one, else zoo:googlenet) and an RWNN: measured vs predicted makespan
# Optional steps (--steps; not in the default run): tests (the GPU test bundle), mapping (a DiviML
# mapping over cpu,cuda:0), search (cold IOS search times, zoo:inception_v3, zoo:nasnet_a), compare1 /
# compare16 (`compare --device cuda:0` at batch 1 / 16 on the exports and the zoo networks), calibrate
# (one in-sample fit).
#
# Precision: TF32 ON for convolutions and GEMMs on both sides in every timed run (opsched's default,
# which its cuda:0 search also measures with; PyTorch: cudnn.conv and cuda.matmul set to TF32
# explicitly), OFF on both sides in the `check` and `fault` steps (opsched --no-tf32; PyTorch IEEE FP32).
#
# A summary (tests/bench/gpu_verify_summary.py) is written at the end, also when the budget runs
# out or a step fails: every command's status is recorded and the script goes on. Exit status 0
# when every step is done and every command succeeded, 1 otherwise, 2 for a usage error.
#
# Everything lands in --out (default ./gpu-verify-out), at most 8 files:
#   summary.txt    the tables: PyTorch vs opsched latency, correctness, fault, calibration, failures
#   results.csv    every measured figure, one row each (the file README's GPU figures come from)
#   results.json   every parsed result (exports, plans, runs, PyTorch, calibration, commands)
#   commands.tsv   every command: step, label, status, exit code, seconds, command line, note
#   log.txt        every command's output (tails)
#   env.txt        machine, GPU, library paths, bundle check
#   pytorch.json   bench_pytorch_gpu.py's document
#   calibrate.csv  the held-out stages of the lomo step (measured, simulated by the fit without the model)
#
# Resuming: state lives in --work (default /tmp/opsched-gpu-verify). Running the same command again
# skips the steps already done and summarizes everything; --fresh starts over. If the budget ran
# out, the summary names the steps left and the command to run them.
#
# On a GPU server: build the relocatable CLI on any Linux machine with the CUDA toolkit
# (cmake --preset nogui && cmake --build build-nogui --target cli-bundle), copy the repository and
# the tarball there (into bundle/, or name it with --bundle), and run
#   tests/bench/gpu_verify.sh --fresh --out results/
# with a Python that has torch with CUDA, torchvision and onnx (PYTHON=...). About 8 to 9 minutes on
# an H100 with the default budget (570 s; an estimate, not yet measured): export 1, PyTorch 2.5
# (torch.compile's compiles take most of it: PYTORCH_BUDGET=600 --budget 1200 gives them more room), opsched's
# 70 plans searched and timed 4, checks, faults and calibration 1.5.
#
# The transformers: tests/bench/gpu_verify.sh --fresh --steps transformers --out results30/ (about 8
# to 9 minutes on an H100, an estimate, not yet measured: env and exports 2 (vit_b_16's and
# convnext_tiny's ONNX exports and float64 references on the CPU are most of it), PyTorch 1.5,
# opsched's 40 plans searched and timed 2.5, checks, faults and Opara 1, mapping 1.5; each step
# capped by its budget within --budget 570; a second call without --fresh finishes what was
# cut). Both parts in one run: --steps likeforlike,transformers --budget 1140.
#
# --dry-run: no GPU needed. Same steps and logic with --backend cpu, --device sim:h100 (calibration:
# sim:h100 standing in for the measured device), PyTorch on the CPU (wall clock; CUDA graph, TF32
# and torch.compile reported as skipped), squeezenet1_1 and googlenet at batch 1 and 2; the transformers'
# steps on bert_like and t5_like at batch 1 and 2 (the CPU is too slow for all five at batch 8)
# and the mapping over cpu:0,cpu:1 (about 5 minutes on a 2-core machine).
#
# Environment: PYTHON (default: /opt/torch/.venv/bin/python, else a python3 with torch),
# TV_MODELS (comma-separated exports; empty: none), BATCHES (default 1,16), SCHEDULERS,
# ZOO_MODELS (optional steps), TF_MODELS (the transformers' exports; dry run: bert_like,t5_like),
# TF_BATCHES (1,8; dry run 1,2), TF_SCHEDULERS (sequential,ios,nimble,opara), TF_FULL (1: full
# depth and vocabulary), TF_PYTORCH_BUDGET (seconds for tfpytorch, 90), MAP_ZOO (the mapping
# step's model when there is no torchvision export), CALIBRATE_ARGS (the calibrate step's
# arguments), PYTORCH_BUDGET (seconds for the pytorch step, 150), CHECK_JOBS (parallel check
# runs, 4).
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

bundle="" out_dir="" work=/tmp/opsched-gpu-verify budget=570 steps_arg="" fresh=0 dry=0
all_steps=(env devices export pytorch opsched check fault lomo tests mapping search compare1 compare16 calibrate
           tfexport tfpytorch tfopsched tfcheck tffault opara)
default_steps=(env devices export pytorch opsched check fault lomo)
transformer_steps=(env devices tfexport tfpytorch tfopsched tfcheck tffault opara mapping)
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle=${2:?--bundle needs a path}; shift 2 ;;
    --out) out_dir=${2:?--out needs a folder}; shift 2 ;;
    --work) work=${2:?--work needs a folder}; shift 2 ;;
    --budget) budget=${2:?--budget needs seconds}; shift 2 ;;
    --steps) steps_arg=${2:?--steps needs a list}; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu_verify: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$budget" =~ ^[0-9]+$ ]] || { echo "gpu_verify: --budget must be whole seconds, got '$budget'" >&2; exit 2; }
if [ -z "$out_dir" ]; then out_dir=$PWD/gpu-verify-out; fi
steps=("${default_steps[@]}")
if [ -n "$steps_arg" ]; then
  IFS=, read -r -a asked <<<"$steps_arg"
  steps=()
  for s in "${asked[@]}"; do
    case $s in
      likeforlike) steps+=("${default_steps[@]}") ;;
      transformers) steps+=("${transformer_steps[@]}") ;;
      *) steps+=("$s") ;;
    esac
  done
  # No step twice (likeforlike,transformers both start with env devices).
  read -r -a steps <<<"$(printf '%s\n' "${steps[@]}" | awk '!seen[$0]++' | paste -sd' ')"
  for s in "${steps[@]}"; do
    [[ " ${all_steps[*]} " == *" $s "* ]] || { echo "gpu_verify: unknown step '$s'; steps: ${all_steps[*]}" >&2; exit 2; }
  done
fi

# ---------------------------------------------------------------- clock, budget and records
# Microseconds since the epoch (bash 5's EPOCHREALTIME; date where the shell is older).
if [ -n "${EPOCHREALTIME:-}" ]; then now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }; else now_us() { date +%s%6N; }; fi
start_us=$(now_us)
reserve=25 # seconds kept for the summary
deadline=$(( start_us / 1000000 + budget - reserve ))
now_s() { echo $(( $(now_us) / 1000000 )); }

[ "$fresh" = 1 ] && rm -rf "$work"
mkdir -p "$work/raw" "$work/state" "$work/cache" "$out_dir" || { echo "gpu_verify: cannot create $work or $out_dir" >&2; exit 1; }
raw=$work/raw
commands_tsv=$work/commands.tsv
[ -f "$commands_tsv" ] || printf 'step\tlabel\tstatus\trc\tseconds\tcommand\tnote\n' >"$commands_tsv"
# Measured stage costs are cached under XDG_CACHE_HOME/opsched: one cache for this verification,
# empty at the start, so the search step measures a cold search.
export XDG_CACHE_HOME=$work/cache

say() { echo "gpu_verify: $*" >&2; }
tsv_clean() { printf '%s' "$*" | tr '\t\n' '  ' | cut -c1-300; }
record() { # record LABEL STATUS RC SECONDS NOTE COMMAND...
  local label=$1 status=$2 rc=$3 secs=$4 note=$5; shift 5
  # Shown as `opsched-cli ARGS`, without the env/LD_LIBRARY_PATH/path prefix.
  if [ "${1:-}" = env ] && [[ "${2:-}" == LD_LIBRARY_PATH=* ]]; then set -- opsched-cli "${@:4}"; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$current_step" "$label" "$status" "$rc" "$secs" "$(tsv_clean "$*")" \
    "$(tsv_clean "$note")" >>"$commands_tsv"
}

current_step="" step_deadline=0 step_abort=""
# run_cmd LABEL LIMIT CMD...: runs CMD with a time limit (cut to the step's deadline), stdout to
# raw/LABEL.out, stderr to raw/LABEL.err, and records how it ended. Returns CMD's exit status.
run_cmd() {
  local label=$1 limit=$2; shift 2
  if [ -n "$step_abort" ]; then
    record "$label" skipped "" 0 "$step_abort" "$@"; return 98
  fi
  local left=$(( step_deadline - $(now_s) ))
  (( left < limit )) && limit=$left
  if (( limit < 3 )); then
    record "$label" skipped "" 0 "no time left in step $current_step" "$@"; return 99
  fi
  local t0 rc secs status note
  t0=$(now_us)
  say "[$current_step] $label (limit ${limit}s)"
  timeout -k 5 "$limit" "$@" >"$raw/$label.out" 2>"$raw/$label.err"
  rc=$?
  secs=$(awk -v a="$t0" -v b="$(now_us)" 'BEGIN { printf "%.2f", (b - a) / 1e6 }')
  note=$(grep -m1 -iE 'error|not expected|unknown|fail|mismatch|not found|no cuda' "$raw/$label.err" "$raw/$label.out" 2>/dev/null | cut -d: -f2- | head -c 300)
  case $rc in
    0) status=ok; note="" ;;
    124|137) status=timeout; note="killed after ${limit}s" ;;
    127) status=missing; note=${note:-"command not found: $1"} ;;
    2) status=usage; note="usage error (an option or command this build does not have?): ${note}" ;;
    *) status=fail ;;
  esac
  (( rc > 128 && rc != 137 )) && { status=crash; note="signal $(( rc - 128 )) ${note}"; }
  record "$label" "$status" "$rc" "$secs" "$note" "$@"
  say "[$current_step] $label: $status ($rc) in ${secs}s ${note:+- $note}"
  # When the CLI lacks the option or there is no GPU, the step's other commands fail the same way.
  if [ "$status" = usage ]; then
    step_abort="not run: $label was a usage error (see it above)"
  elif [ "$dry" = 0 ] && [ "$status" = fail ] && grep -qiE 'no CUDA device|no GPU|CUDA driver' "$raw/$label.err"; then
    step_abort="not run: $label found no usable GPU"
  fi
  return $rc
}

# run_step NAME BUDGET: runs step_NAME with the smaller of BUDGET and the overall time left.
run_step() {
  local name=$1 want=$2
  current_step=$name step_abort=""
  if [ -f "$work/state/$name.done" ]; then
    say "[$name] already done in an earlier call (--fresh to redo)"; return
  fi
  local left=$(( deadline - $(now_s) ))
  if (( left < 10 )); then
    record "-" "not-run" "" 0 "out of overall budget (--budget $budget)"; say "[$name] not run: out of budget"
    return
  fi
  (( want > left )) && want=$left
  step_deadline=$(( $(now_s) + want ))
  say "== step $name (budget ${want}s, ${left}s left overall)"
  "step_$name"
  local rc=$?
  if [ "$rc" = 0 ] && [ -z "$step_abort" ]; then touch "$work/state/$name.done"; fi
}

# ---------------------------------------------------------------- configuration
python=${PYTHON:-}
if [ -z "$python" ]; then
  for p in /opt/torch/.venv/bin/python /usr/bin/python3 python3; do
    # find_spec looks for torch without importing it (an import takes seconds).
    if command -v "$p" >/dev/null &&
       "$p" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)' 2>/dev/null; then
      python=$p; break
    fi
  done
  python=${python:-python3}
fi
pt_script=$here/bench_pytorch_gpu.py
tv_dir=$work/torchvision
plans_dir=$work/plans
IFS=, read -r -a schedulers <<<"${SCHEDULERS:-sequential,greedy,ios,ios-merge,ios-parallel,nimble,opara}"
check_jobs=${CHECK_JOBS:-4}
tf_dir=$work/transformers
if [ "$dry" = 1 ]; then tf_models_default=bert_like,t5_like tf_batches_default=1,2
else tf_models_default=bert_like,gpt2_like,t5_like,vit_b_16,convnext_tiny tf_batches_default=1,8; fi
IFS=, read -r -a tf_models <<<"${TF_MODELS-$tf_models_default}"
IFS=, read -r -a tf_batches <<<"${TF_BATCHES:-$tf_batches_default}"
IFS=, read -r -a tf_schedulers <<<"${TF_SCHEDULERS:-sequential,ios,nimble,opara}"
if [ "$dry" = 1 ]; then
  backend=cpu device=sim:h100 cal_device=sim:h100 cal_sim=v100
  tv_default=squeezenet1_1,googlenet batches_default=1,2 repeat=3 check_jobs=${CHECK_JOBS:-2} opara_repeat=3
  pt_device=cpu pt_timing=(--warmup 1 --iters 3) ref_tf32=pytorch_fp32 no_tf32=()
else
  backend=cuda device=cuda:0 cal_device=cuda:0 cal_sim=h100
  tv_default=googlenet,inception_v3,resnet50,mobilenet_v2,squeezenet1_1 batches_default=1,16 repeat=100 opara_repeat=200
  pt_device=cuda pt_timing=(--warmup 20 --iters 100) ref_tf32=pytorch_tf32 no_tf32=(--no-tf32)
fi
# TV_MODELS / ZOO_MODELS (comma-separated; set and empty: none) narrow the model sets.
IFS=, read -r -a tv_models <<<"${TV_MODELS-$tv_default}"
IFS=, read -r -a batches <<<"${BATCHES:-$batches_default}"
IFS=, read -r -a zoo_models <<<"${ZOO_MODELS-zoo:inception_v3,zoo:squeezenet,zoo:randwire,zoo:nasnet_a}"
# An export: $tv_dir/<model>_b<batch>/model.onnx (batch 1's is what the optional steps use).
case_dir() { echo "$tv_dir/${1}_b${2:-1}"; }

# ---------------------------------------------------------------- bundle and libraries
cli="" cli_ld=""
find_bundle() {
  if [ -z "$bundle" ]; then
    for c in "$repo"/bundle/opsched-cli-*.tar.gz "$repo"/bundle/opsched-cli-*/bin/opsched-cli "$repo"/bundle/bin/opsched-cli \
             "$repo"/build*/opsched-cli-*-linux-x86_64.tar.gz; do
      [ -e "$c" ] && { bundle=$c; break; }
    done
  fi
  [ -n "$bundle" ] || { say "no bundle found (--bundle TARBALL|DIR; build it with: cmake --build build --target cli-bundle)"; return 1; }
  if [ -f "$bundle" ] && [[ "$bundle" == *.tar.gz ]]; then
    rm -rf "$work/bundle" && mkdir -p "$work/bundle" && tar xzf "$bundle" -C "$work/bundle" || { say "cannot unpack $bundle"; return 1; }
    cli=$(ls "$work"/bundle/*/bin/opsched-cli 2>/dev/null | head -1)
  elif [ -x "$bundle" ] && [ -f "$bundle" ]; then
    cli=$bundle
  else
    cli=$(ls "$bundle"/bin/opsched-cli "$bundle"/*/bin/opsched-cli 2>/dev/null | head -1)
  fi
  [ -n "$cli" ] && [ -x "$cli" ] || { say "no bin/opsched-cli in $bundle"; return 1; }
}

# The folder holding the first file named $1: a venv's site-packages/nvidia/*/lib (the pip wheels'
# layout), the toolkit, the system; else anywhere on this file system (one search, remembered).
find_lib_dir() {
  local name=$1 d f=""
  for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/*/lib /opt/torch/.venv/lib/python3*/site-packages/nvidia/*/*/lib \
           /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/extras/CUPTI/lib64 \
           /usr/lib/x86_64-linux-gnu; do
    [ -e "$d/$name" ] && { echo "$d"; return; }
  done
  if [ ! -f "$work/state/found_libs" ]; then
    timeout 30 find / -xdev \( -name 'libcudnn.so.9*' -o -name 'libcupti.so.13*' -o -name 'libcublasLt.so.13*' \
      -o -name 'libnvrtc.so.13*' -o -name 'libcudart.so.13*' \) -not -path '/proc/*' 2>/dev/null >"$work/state/found_libs"
  fi
  f=$(grep -m1 "/$name" "$work/state/found_libs")
  [ -n "$f" ] && dirname "$f"
}

# `timeout` runs programs, not shell functions: opsched-cli is called through env with its own
# LD_LIBRARY_PATH (the bundle's lib/ and NVIDIA's), which Python and torch never see.
opsched=()
set_opsched() { opsched=(env "LD_LIBRARY_PATH=$cli_ld" "$cli"); }

step_env() {
  local env_txt=$work/env.txt
  {
    echo "# gpu_verify $(date -u +%Y-%m-%dT%H:%M:%SZ)  dry_run=$dry  budget=${budget}s  work=$work"
    echo "## machine"; uname -a; grep -E '^PRETTY_NAME' /etc/os-release 2>/dev/null; ldd --version 2>&1 | head -1
    echo "cpus: $(nproc)"; free -g 2>/dev/null | head -2
    echo "## GPU"
    if command -v nvidia-smi >/dev/null; then
      timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,compute_cap --format=csv 2>&1
      timeout 20 nvidia-smi -L 2>&1
    else
      echo "nvidia-smi: not found"
    fi
    echo "## python"; echo "PYTHON=$python"
    timeout 60 "$python" -c 'import sys, torch, torchvision; print(sys.version.split()[0], "torch", torch.__version__, "torchvision", torchvision.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -3
  } >"$env_txt" 2>&1

  local cudnn_dir cupti_dir extra=""
  cudnn_dir=$(find_lib_dir libcudnn.so.9)
  cupti_dir=$(find_lib_dir libcupti.so.13)
  # cuDNN 9's engines open cuBLASLt and NVRTC at run time; take them (and cudart, should a build
  # link it dynamically) from the same installation.
  for n in libcublasLt.so.13 libnvrtc.so.13 libcudart.so.13; do
    local d; d=$(find_lib_dir "$n"); [ -n "$d" ] && extra="$extra:$d"
  done
  {
    echo "## libraries"
    echo "libcudnn.so.9:  ${cudnn_dir:-NOT FOUND}"
    echo "libcupti.so.13: ${cupti_dir:-NOT FOUND}"
    echo "extra:          ${extra#:}"
  } >>"$env_txt"
  if ! find_bundle; then
    echo "## bundle: NOT FOUND (${bundle:-none given})" >>"$env_txt"
    record bundle fail 1 0 "no usable bundle: ${bundle:-none found}"; return 1
  fi
  # The bundle's lib/ first, then NVIDIA's folders, then what was set; no duplicates, no empty entry
  # (an empty entry would mean the current folder).
  cli_ld=$(printf '%s\n' "$(dirname "$(dirname "$cli")")/lib" "$cudnn_dir" "$cupti_dir" ${extra//:/ } \
             ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} | awk 'NF && !seen[$0]++' | paste -sd:)
  echo "$cli" >"$work/state/cli" && echo "$cli_ld" >"$work/state/cli_ld"
  set_opsched
  {
    echo "## bundle: $bundle"; echo "cli: $cli"; echo "LD_LIBRARY_PATH for opsched-cli: $cli_ld"
    echo "### ldd bin/opsched-cli"; LD_LIBRARY_PATH=$cli_ld ldd "$cli" 2>&1
  } >>"$env_txt"
  if LD_LIBRARY_PATH=$cli_ld ldd "$cli" 2>&1 | grep -q 'not found'; then
    record bundle fail 1 0 "libraries not found: $(LD_LIBRARY_PATH=$cli_ld ldd "$cli" | grep 'not found' | tr -s ' \n' ' ')"
    return 1
  fi
  run_cmd version 20 "${opsched[@]}" --version
}

step_devices() {
  run_cmd devices 30 "${opsched[@]}" devices
  run_cmd devices.json 30 "${opsched[@]}" devices --json
}

# The GPU test bundle: $TESTS_BUNDLE, else one next to the CLI bundle's usual places.
find_tests_bundle() {
  local c
  for c in "${TESTS_BUNDLE:-}" "$repo"/bundle/opsched-gpu-tests-*.tar.gz "$repo"/build*/opsched-gpu-tests-*-linux-x86_64.tar.gz; do
    [ -n "$c" ] && [ -f "$c" ] && { echo "$c"; return; }
  done
}

step_tests() {
  local tb dir t name limit
  tb=$(find_tests_bundle)
  if [ -z "$tb" ]; then
    # Not a failure: the verification runs without it (say so in the log and summary only).
    say "[tests] no GPU test bundle (build it: cmake --build build --target gpu-test-bundle)"
    echo "no GPU test bundle was found" >"$work/state/tests.none"
    return 0
  fi
  rm -f "$work/state/tests.none"
  rm -rf "$work/gpu-tests" && mkdir -p "$work/gpu-tests" && tar xzf "$tb" -C "$work/gpu-tests" ||
    { record tests fail 1 0 "cannot unpack $tb"; return 1; }
  dir=$(ls -d "$work"/gpu-tests/opsched-gpu-tests-*/ 2>/dev/null | head -1)
  dir=${dir%/}
  for t in "$dir"/bin/tst_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t"); limit=90; [ "$name" = tst_cuda_zoo ] && limit=180
    # Run from their own folder: some write scratch files next to where they run.
    run_cmd "tests.$name" "$limit" env -C "$work/gpu-tests" "LD_LIBRARY_PATH=$cli_ld" \
      "OPSCHED_ONNX_TESTDATA=$dir/onnx-testdata" "$t" --gtest_brief=1
  done
  return 0
}

join_commas() { local IFS=,; echo "$*"; }

# The exports, PyTorch's reference outputs and the manifest, in one Python process.
step_export() {
  local m b missing=()
  for m in "${tv_models[@]}"; do
    for b in "${batches[@]}"; do
      if [ ! -f "$(case_dir "$m" "$b")/pytorch_fp32/test_data_set_0/output_0.pb" ]; then missing+=("$m"); break; fi
    done
  done
  if [ ${#missing[@]} = 0 ]; then
    record export ok 0 0 "already exported"; return 0
  fi
  run_cmd export 240 "$python" "$pt_script" export --out "$tv_dir" --models "$(join_commas "${missing[@]}")" \
    --batch "$(join_commas "${batches[@]}")" --device "$pt_device"
}

# PyTorch's side: the same folded modules and inputs. Its own time budget (the step's, less a margin)
# decides which torch.compile variants are tried; the CUDA-graph and eager runs come first.
step_pytorch() {
  local left=$(( step_deadline - $(now_s) - 15 ))
  (( left < 20 )) && left=20
  # Inductor's caches in the work folder: a second call on the same machine compiles from them.
  run_cmd pytorch $(( left + 10 )) env "TORCHINDUCTOR_CACHE_DIR=$work/inductor-cache" \
    "$python" "$pt_script" bench --models "$(join_commas "${tv_models[@]}")" --batch "$(join_commas "${batches[@]}")" \
    --device "$pt_device" \
    "${pt_timing[@]}" --tf32 on --export-dir "$tv_dir" --time-budget "$left" --json-out "$work/pytorch.json"
  return 0
}

# The TF32-on bar for the timed runs (reported): opsched's TF32 output against PyTorch's TF32 output,
# scaled error <= 2e-2. The TF32-off bar (check, fault; pass/fail): 2e-4 x max|ref| (opsched's and PyTorch's own
# float32 errors, up to 3.5e-5 and 2.7e-5 of max|ref| on the H100, add up; a 5% fault reads 3e-2 or more), and
# rtol 1e-5 (no larger: a relative term of 1e-3 would let the largest logits off by 1e-3 x their size).
tf32_tolerance=(--rtol 0 --atol 0 --atol-scale 2e-2)
check_tolerance=(--rtol 1e-5 --atol 1e-6 --atol-scale 2e-4)

# A run whose exit status 1 is an outcome, not a failure (a check beyond a report-only bar, or an
# injected fault that must fail): a second row for LABEL says how it ended.
amend() { # amend LABEL STATUS NOTE
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$current_step" "$1" "$2" "" 0 "(outcome of the run above)" "$(tsv_clean "$3")" \
    >>"$commands_tsv"
}

# Per model and batch: each scheduler's plan searched on the device, then run as one CUDA graph.
step_opsched() {
  local b m s dir plan rc
  mkdir -p "$plans_dir"
  for b in "${batches[@]}"; do
    for m in "${tv_models[@]}"; do
      dir=$(case_dir "$m" "$b")
      [ -f "$dir/model.onnx" ] || { record "plans.${m}_b$b" skipped "" 0 "not exported (see the export step)"; continue; }
      for s in "${schedulers[@]}"; do
        plan=$plans_dir/${m}_b$b.$s.json
        if [ ! -f "$plan" ]; then
          run_cmd "sched.${m}_b$b.$s" 120 "${opsched[@]}" schedule "$dir/model.onnx" --batch "$b" --scheduler "$s" \
            --device "$device" --json -o "$plan.part" && mv -f "$plan.part" "$plan"
        fi
        [ -f "$plan" ] || continue
        run_cmd "lat.${m}_b$b.$s" 60 "${opsched[@]}" run "$dir/model.onnx" --batch "$b" --schedule "$plan" --backend "$backend" \
          --input "$dir/$ref_tf32" --check "${tf32_tolerance[@]}" --repeat "$repeat" --json
        rc=$?
        if [ "$rc" = 1 ] && grep -q '"latency_ms"' "$raw/lat.${m}_b$b.$s.out"; then
          amend "lat.${m}_b$b.$s" ok "measured; TF32 output beyond the reported 2e-2 bar (see the table)"
        fi
      done
    done
  done
  return 0
}

# Every plan with TF32 off against PyTorch's float32 output, CHECK_JOBS at a time.
step_check() {
  local b m s dir plan n=0
  for b in "${batches[@]}"; do
    for m in "${tv_models[@]}"; do
      dir=$(case_dir "$m" "$b")
      for s in "${schedulers[@]}"; do
        plan=$plans_dir/${m}_b$b.$s.json
        [ -f "$plan" ] || { record "check.${m}_b$b.$s" skipped "" 0 "no plan (see the opsched step)"; continue; }
        run_cmd "check.${m}_b$b.$s" 90 "${opsched[@]}" run "$dir/model.onnx" --batch "$b" --schedule "$plan" --backend "$backend" \
          "${no_tf32[@]}" --input "$dir/pytorch_fp32" --check "${check_tolerance[@]}" --repeat 1 --json &
        n=$((n + 1))
        if (( n >= check_jobs )); then wait -n; n=$((n - 1)); fi
      done
    done
  done
  wait
  return 0
}

# The op whose weight the fault step scales: the convolution at 3/4 of the model's convolutions.
deep_conv() { # deep_conv MODEL_FILE
  "${opsched[@]}" info "$1" --json 2>/dev/null | "$python" -c '
import json, sys
ops = [o["name"] for o in json.load(sys.stdin)["ops"] if o.get("type") == "Conv"]
print(ops[len(ops) * 3 // 4] if ops else "")'
}

fault_pick=deep_conv fault_kind=convolution
step_fault() {
  local m dir plan op b=${batches[0]}
  for m in "${tv_models[@]}"; do
    dir=$(case_dir "$m" "$b")
    plan=$plans_dir/${m}_b$b.sequential.json
    [ -f "$plan" ] || { record "fault.${m}_b$b" skipped "" 0 "no sequential plan (see the opsched step)"; continue; }
    op=$("$fault_pick" "$dir/model.onnx")
    [ -n "$op" ] || { record "fault.${m}_b$b" fail 1 0 "no $fault_kind found by $fault_pick"; continue; }
    # TF32 off, the pass/fail bar: the fault must fail it.
    run_cmd "fault.${m}_b$b.fp32" 60 "${opsched[@]}" run "$dir/model.onnx" --batch "$b" --schedule "$plan" --backend "$backend" \
      "${no_tf32[@]}" --input "$dir/pytorch_fp32" --check "${check_tolerance[@]}" --repeat 1 --json \
      --inject-fault "weight=$op"
    case $? in
      1) amend "fault.${m}_b$b.fp32" ok "caught: weight=$op x1.05 fails the TF32-off bar" ;;
      0) amend "fault.${m}_b$b.fp32" fail "NOT caught: weight=$op x1.05 passes the TF32-off bar" ;;
    esac
    [ "$backend" = cpu ] && continue
    run_cmd "fault.${m}_b$b.tf32" 60 "${opsched[@]}" run "$dir/model.onnx" --batch "$b" --schedule "$plan" --backend "$backend" \
      --input "$dir/pytorch_tf32" --check "${tf32_tolerance[@]}" --repeat 1 --json --inject-fault "weight=$op"
    case $? in
      1) amend "fault.${m}_b$b.tf32" ok "caught: weight=$op x1.05 fails the TF32-on bar (reported)" ;;
      0) amend "fault.${m}_b$b.tf32" ok "not caught: weight=$op x1.05 passes the TF32-on 2e-2 bar (reported)" ;;
    esac
  done
  return 0
}

# Calibration held out by model: fit on the others, test on this one (batch 1 exports).
step_lomo() {
  local m o others dir=$work/lomo
  mkdir -p "$dir"
  local ms=()
  for m in "${tv_models[@]}"; do [ -f "$(case_dir "$m" 1)/model.onnx" ] && ms+=("$m"); done
  if [ ${#ms[@]} -lt 2 ]; then record lomo skipped "" 0 "needs two exported models at batch 1"; return 0; fi
  for m in "${ms[@]}"; do
    others=()
    for o in "${ms[@]}"; do [ "$o" != "$m" ] && others+=("$(case_dir "$o" 1)/model.onnx"); done
    run_cmd "lomo.fit.$m" 120 "${opsched[@]}" calibrate "${others[@]}" --device "$cal_device" --sim "$cal_sim" \
      --write-device "$dir/without_$m.json" --json || continue
    run_cmd "lomo.test.$m" 90 "${opsched[@]}" calibrate "$(case_dir "$m" 1)/model.onnx" --device "$cal_device" \
      --sim "$dir/without_$m.json" -o "$dir/heldout_$m.csv" --json
  done
  return 0
}

# The mapping file with op k (in the file's op order, which is topological) on device k % 2 and
# each device's order filtered from that order: a mapping whose values cross between the devices
# whatever the mapper chose.
alternate_mapping() { # alternate_mapping IN OUT
  "$python" - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ops = list(doc["mapping"])
devices = doc["devices"]
doc["mapping"] = {op: devices[k % 2] for k, op in enumerate(ops)}
doc["order"] = {d: [op for op in ops if doc["mapping"][op] == d] for d in devices}
doc["mapper"] = "alternating"
json.dump(doc, open(sys.argv[2], "w"))
PY
}

# cpu,cuda:0 against the CPU's single-device run: cuDNN and oneDNN sum in other orders; not yet
# measured on a GPU, so the bar stays at 1e-4 x max|ref| until it is.
mapping_tolerance=(--rtol 1e-5 --atol 0 --atol-scale 1e-4)
step_mapping() {
  local devices=cpu,cuda:0 extra=(--no-tf32) m dir="" rwnn='zoo:rwnn?gen=er&n=12&modules=4&channels=2&seed=3&res=64'
  [ "$dry" = 1 ] && { devices=cpu:0,cpu:1; extra=(--segments); }
  # The cpu <-> cuda:0 link measured as the segment runner copies (pageable, synchronous), for
  # map --link; CPU partitions (the dry run) need none: map measures their hand-off itself.
  local link=()
  if [ "$dry" = 0 ] && run_cmd mapping.link 60 "$python" "$here/measure_link.py" --json "$work/link.json"; then
    link=(--link "$(tail -1 "$raw/mapping.link.out")")
  fi
  for m in "${tv_models[@]}"; do
    [ -f "$(case_dir "$m" 1)/model.onnx" ] && { dir=$(case_dir "$m" 1); break; }
  done
  if [ -n "$dir" ]; then
    m=$(basename "$dir"); m=${m%_b1}
    if run_cmd "mapping.map.$m" 240 "${opsched[@]}" map "$dir/model.onnx" --devices "$devices" "${link[@]}" --mapper heft \
         --time-limit 30 -o "$work/mapping.$m.json"; then
      run_cmd "mapping.run.$m" 120 "${opsched[@]}" run "$dir/model.onnx" --mapping "$work/mapping.$m.json" \
        "${extra[@]}" --input "$dir" --check "${mapping_tolerance[@]}" --json
      if alternate_mapping "$work/mapping.$m.json" "$work/mapping.$m.alternating.json"; then
        run_cmd "mapping.run.$m.alternating" 120 "${opsched[@]}" run "$dir/model.onnx" \
          --mapping "$work/mapping.$m.alternating.json" "${extra[@]}" --input "$dir" --check "${mapping_tolerance[@]}" --json
      else
        record "mapping.run.$m.alternating" fail 1 0 "could not rewrite the mapping file with $python"
      fi
    fi
  elif [ "${tf_run:-0}" = 1 ] || [ -n "${MAP_ZOO:-}" ]; then
    # No export (an issue-30 run): zoo:googlenet, checked against its single-device run.
    m=${MAP_ZOO:-zoo:googlenet}; local label=${m#zoo:}; label=${label%%\?*}
    if run_cmd "mapping.map.$label" 240 "${opsched[@]}" map "$m" --devices "$devices" "${link[@]}" --mapper heft \
         --time-limit 30 -o "$work/mapping.$label.json"; then
      run_cmd "mapping.run.$label" 120 "${opsched[@]}" run "$m" --mapping "$work/mapping.$label.json" "${extra[@]}" \
        --check "${mapping_tolerance[@]}" --json
    fi
  elif [ ${#tv_models[@]} -gt 0 ]; then
    record mapping.tv skipped "" 0 "no exported torchvision model (see the export step): no --check of a mapping"
  fi
  run_cmd mapping.map.rwnn 240 "${opsched[@]}" map "$rwnn" --devices "$devices" "${link[@]}" --mapper heft -o "$work/mapping.rwnn.json" &&
    run_cmd mapping.run.rwnn 120 "${opsched[@]}" run "$rwnn" --mapping "$work/mapping.rwnn.json" "${extra[@]}" --check --json
  return 0
}

step_search() {
  local m limit
  for m in zoo:inception_v3 zoo:nasnet_a; do
    limit=60; [ "$m" = zoo:nasnet_a ] && limit=300
    run_cmd "search.${m#zoo:}" "$limit" "${opsched[@]}" schedule "$m" --scheduler ios --device "$device" --r 3 --s 8 \
      -o "$work/search.${m#zoo:}.schedule.json"
  done
  return 0
}

compare_models() {
  local batch=$1 m label limit
  local models=()
  for m in googlenet inception_v3; do
    if [[ " ${tv_models[*]} " == *" $m "* ]]; then
      if [ -f "$(case_dir "$m" 1)/model.onnx" ]; then models+=("$(case_dir "$m" 1)/model.onnx"); else record "compare$batch.tv_$m" skipped "" 0 "not exported"; fi
    fi
  done
  models+=("${zoo_models[@]}")
  for m in "${models[@]}"; do
    if [[ "$m" == zoo:* ]]; then label=${m#zoo:}; else label=$(basename "$(dirname "$m")"); label=tv_${label%_b1}; fi
    # RandWire's and NASNet's searches time 65,000 to 100,000+ distinct stages on a cold cache.
    limit=90; [ "$label" = nasnet_a ] && limit=240; [ "$label" = randwire ] && limit=300
    run_cmd "compare$batch.$label" "$limit" "${opsched[@]}" compare "$m" --device "$device" --batch "$batch" --json
  done
  return 0
}
step_compare1() { compare_models 1; }
step_compare16() { compare_models 16; }

step_calibrate() {
  run_cmd calibrate.help 10 "${opsched[@]}" calibrate --help
  local args
  if [ -n "${CALIBRATE_ARGS:-}" ]; then
    read -r -a args <<<"$CALIBRATE_ARGS"
  else
    # Models whose searches take seconds on the GPU (RandWire's takes minutes).
    args=(zoo:inception_v3 zoo:squeezenet)
    [ -f "$(case_dir googlenet 1)/model.onnx" ] && args+=("$(case_dir googlenet 1)/model.onnx")
    args+=(--device "$device" --sim h100 -o "$work/calibrate.csv" --write-device "$work/raw/sim_h100_fitted.json")
  fi
  step_abort="" # a missing --help is no reason not to try
  run_cmd calibrate 150 "${opsched[@]}" calibrate "${args[@]}"
  return 0
}

# ---------------------------------------------------------------- transformers
# The issue-28 steps (opsched, check, fault) run on the transformer exports: the model list,
# batches, schedulers, export folder, plan folder and fault op picker swapped for the call.
with_tf() { # with_tf FUNCTION
  local s_models=("${tv_models[@]}") s_batches=("${batches[@]}") s_scheds=("${schedulers[@]}")
  local s_dir=$tv_dir s_plans=$plans_dir s_pick=$fault_pick s_kind=$fault_kind
  tv_models=("${tf_models[@]}") batches=("${tf_batches[@]}") schedulers=("${tf_schedulers[@]}")
  tv_dir=$tf_dir plans_dir=$work/tfplans fault_pick=deep_weight_op fault_kind="weighted op (MatMul/Gemm/Conv)"
  "$@"
  local rc=$?
  tv_models=("${s_models[@]}") batches=("${s_batches[@]}") schedulers=("${s_scheds[@]}")
  tv_dir=$s_dir plans_dir=$s_plans fault_pick=$s_pick fault_kind=$s_kind
  return $rc
}

# The op whose weight tffault scales: of the model's MatMul/Gemm/Conv nodes with a constant
# (initializer) weight, in the file's order, the one at 3/4, if opsched has an op of that name.
deep_weight_op() { # deep_weight_op MODEL_FILE
  "${opsched[@]}" info "$1" --json 2>/dev/null | "$python" -c '
import json, sys
import onnx
names = {o["name"] for o in json.load(sys.stdin)["ops"]}
g = onnx.load(sys.argv[1], load_external_data=False).graph
init = {i.name for i in g.initializer}
ops = [n.name for n in g.node if n.op_type in ("MatMul", "Gemm", "Conv") and n.name in names
       and any(x in init for x in n.input[1:])]
print(ops[len(ops) * 3 // 4] if ops else "")' "$1"
}

step_tfexport() {
  local m b missing=()
  for m in "${tf_models[@]}"; do
    for b in "${tf_batches[@]}"; do
      if [ ! -f "$tf_dir/${m}_b$b/pytorch_fp32/test_data_set_0/output_0.pb" ]; then missing+=("$m"); break; fi
    done
  done
  if [ ${#missing[@]} = 0 ]; then
    record tfexport ok 0 0 "already exported"; return 0
  fi
  local full=(); [ "${TF_FULL:-0}" = 1 ] && full=(--full)
  run_cmd tfexport 300 "$python" "$repo/tests/data/export_transformers.py" --out "$tf_dir" \
    --models "$(join_commas "${missing[@]}")" --batches "$(join_commas "${tf_batches[@]}")" \
    --pytorch-ref "$pt_device" "${full[@]}"
}

step_tfpytorch() {
  local left=$(( step_deadline - $(now_s) - 15 ))
  (( left < 20 )) && left=20
  run_cmd tfpytorch $(( left + 10 )) env "TORCHINDUCTOR_CACHE_DIR=$work/inductor-cache" \
    "$python" "$pt_script" bench --models "$(join_commas "${tf_models[@]}")" --batch "$(join_commas "${tf_batches[@]}")" \
    --device "$pt_device" "${pt_timing[@]}" --tf32 on --export-dir "$tf_dir" --time-budget "$left" \
    --json-out "$work/pytorch_tf.json"
  return 0
}
step_tfopsched() { with_tf step_opsched; }
step_tfcheck() { with_tf step_check; }
step_tffault() { with_tf step_fault; }

# Opara's launch order against Nimble's: the cuda:0 plans of tfopsched timed again, alternately;
# the same schedulers' plans for sim:h100 (the simulator's prediction, one CUDA graph).
step_opara() {
  local m b s k dir plan
  mkdir -p "$work/tfplans"
  for m in t5_like bert_like; do
    [[ " ${tf_models[*]} " == *" $m "* ]] || continue
    for b in "${tf_batches[@]}"; do
      dir=$tf_dir/${m}_b$b
      [ -f "$dir/model.onnx" ] || { record "opara.${m}_b$b" skipped "" 0 "not exported (see the tfexport step)"; continue; }
      for s in nimble opara; do
        run_cmd "opara.sim.${m}_b$b.$s" 60 "${opsched[@]}" schedule "$dir/model.onnx" --batch "$b" --scheduler "$s" \
          --device sim:h100 --cuda-graph --json -o "$work/tfplans/sim.${m}_b$b.$s.json"
      done
      for k in 1 2; do
        for s in nimble opara; do
          plan=$work/tfplans/${m}_b$b.$s.json
          [ -f "$plan" ] || { record "opara.lat.${m}_b$b.$s.$k" skipped "" 0 "no $s plan (see the tfopsched step)"; continue; }
          run_cmd "opara.lat.${m}_b$b.$s.$k" 60 "${opsched[@]}" run "$dir/model.onnx" --batch "$b" --schedule "$plan" \
            --backend "$backend" --input "$dir/test_data_set_0" --repeat "$opara_repeat" --json
        done
      done
    done
  done
  return 0
}

# ---------------------------------------------------------------- run
summarize() {
  current_step=summary
  if [ -z "$cli" ] && [ -f "$work/state/cli" ]; then cli=$(cat "$work/state/cli"); fi
  local py=$python
  command -v "$py" >/dev/null || py=python3
  timeout 60 "$py" "$here/gpu_verify_summary.py" --work "$work" --out "$out_dir" --dry-run "$dry" --device "$device" \
    --budget "$budget" --elapsed $(( $(now_s) - start_us / 1000000 )) --steps "${steps[*]}" \
    || say "the summary script failed; the raw files are in $out_dir"
  cp -f "$commands_tsv" "$out_dir/commands.tsv" 2>/dev/null
  cp -f "$work/env.txt" "$out_dir/env.txt" 2>/dev/null
  # The summary writes pytorch.json (the like-for-like document, the transformers' under "transformers"); a copy
  # where it could not.
  [ -f "$work/pytorch.json" ] && [ ! -f "$out_dir/pytorch.json" ] && cp -f "$work/pytorch.json" "$out_dir/pytorch.json"
  # One log with the tail of every command's output, in the order they ran.
  {
    tail -n +2 "$commands_tsv" | while IFS=$'\t' read -r step label status rc secs cmd note; do
      [ -f "$raw/$label.out" ] || continue
      [ "$cmd" = "(outcome of the run above)" ] && { echo "=================== [$step] $label: $status: $note"; continue; }
      echo "=================== [$step] $label: $status (exit $rc, ${secs}s)"
      echo "\$ $cmd"
      tail -n 80 "$raw/$label.out"
      [ -s "$raw/$label.err" ] && { echo "--- stderr"; tail -n 40 "$raw/$label.err"; }
    done
  } >"$out_dir/log.txt"
  [ -f "$out_dir/summary.txt" ] && cat "$out_dir/summary.txt"
}
trap 'say "interrupted"; summarize; exit 130' INT TERM

if [ -f "$work/state/cli" ] && [ -f "$work/state/env.done" ]; then
  cli=$(cat "$work/state/cli"); cli_ld=$(cat "$work/state/cli_ld"); set_opsched
  [ -x "$cli" ] || rm -f "$work/state/env.done"
fi
# Every step after env needs the CLI, and most need the exported models: run those steps first when
# the list leaves them out and an earlier call has not done them (e.g. a fresh machine).
# (mapping alone needs no export in an issue-30 run: it maps zoo:googlenet then.)
tf_run=0
[[ " ${steps[*]} " =~ \ (tfexport|tfpytorch|tfopsched|tfcheck|tffault|opara)\  ]] && tf_run=1
if [ ${#tv_models[@]} -gt 0 ] && [ ! -f "$work/state/export.done" ] && [[ " ${steps[*]} " != *" export "* ]] &&
   { [[ " ${steps[*]} " =~ \ (pytorch|opsched|check|fault|lomo|compare1|compare16)\  ]] ||
     { [ "$tf_run" = 0 ] && [[ " ${steps[*]} " == *" mapping "* ]]; }; }; then
  steps=(export "${steps[@]}")
fi
if [ ${#tf_models[@]} -gt 0 ] && [ ! -f "$work/state/tfexport.done" ] && [[ " ${steps[*]} " != *" tfexport "* ]] &&
   [[ " ${steps[*]} " =~ \ (tfpytorch|tfopsched|tfcheck|tffault|opara)\  ]]; then
  steps=(tfexport "${steps[@]}")
fi
if [ ! -f "$work/state/env.done" ] && [[ " ${steps[*]} " != *" env "* ]]; then steps=(env "${steps[@]}"); fi
for s in "${steps[@]}"; do
  case $s in
    env) run_step env 60 ;;
    devices) run_step devices 30 ;;
    export) run_step export 120 ;;
    pytorch) run_step pytorch "${PYTORCH_BUDGET:-150}" ;;
    opsched) run_step opsched 300 ;;
    check) run_step check "$(( dry ? 240 : 60 ))" ;; # the CPU backend's runs take seconds each
    fault) run_step fault 40 ;;
    lomo) run_step lomo 90 ;;
    tests) run_step tests 400 ;;
    mapping) run_step mapping 300 ;;
    search) run_step search 370 ;;
    compare1) run_step compare1 300 ;;
    compare16) run_step compare16 300 ;;
    calibrate) run_step calibrate 150 ;;
    # The transformer steps; the dry run's CPU takes minutes where the GPU takes seconds.
    tfexport) run_step tfexport "$(( dry ? 400 : 200 ))" ;; # ONNX exports and float64 references on the CPU
    tfpytorch) run_step tfpytorch "${TF_PYTORCH_BUDGET:-$(( dry ? 300 : 90 ))}" ;;
    tfopsched) run_step tfopsched "$(( dry ? 400 : 150 ))" ;;
    tfcheck) run_step tfcheck "$(( dry ? 300 : 45 ))" ;;
    tffault) run_step tffault "$(( dry ? 120 : 30 ))" ;;
    opara) run_step opara "$(( dry ? 200 : 45 ))" ;;
  esac
  # Without a working CLI nothing after the env step can run.
  if [ "$s" = env ] && [ ! -f "$work/state/env.done" ]; then
    say "the bundle is not usable here (see env.txt); only the summary follows"; break
  fi
done
summarize
# 0: every step asked for is done and every command succeeded; 1: otherwise (the summary says what and why).
failed=$(awk -F'\t' 'NR > 1 { last[$1 "\t" $2] = $3 } END { for (k in last) if (last[k] != "ok") n++; print n + 0 }' "$commands_tsv")
left=0
for s in "${steps[@]}"; do [ -f "$work/state/$s.done" ] || left=$((left + 1)); done
[ "$failed" = 0 ] && [ "$left" = 0 ]
