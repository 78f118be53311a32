#!/bin/bash
# opsched profiling as a Slurm job array: one task per group of models, each into its own results
# database; merge them when the array is done. Resubmitting resumes: every task skips the jobs its
# database already holds. docs/slurm.md has the whole workflow.
#
#   sbatch packaging/slurm/profile-array.sh                        # 4 tasks on the simulated H100
#   sbatch --gres=gpu:1 --export=ALL,OPSCHED_DEVICE=cuda:0 packaging/slurm/profile-array.sh
#   opsched-cli merge results/all.db results/task-*.db && opsched-cli compare --db results/all.db
#
# Settings (environment; sbatch passes the submitting shell's environment on):
#   OPSCHED_CLI         the opsched-cli to run (default: opsched-cli on PATH)
#   OPSCHED_DEVICE      sim:NAME, sim:FILE.json or cuda:N (default sim:h100)
#   OPSCHED_RESULTS     folder for the task databases (default results, relative to the submit folder)
#   OPSCHED_TASKS       the models of each task: tasks separated by ';', models by spaces
#                       (default below; one array index per task)
#   OPSCHED_SCHEDULERS  comma-separated (default sequential,ios,nimble)
#   OPSCHED_BATCHES     comma-separated batch sizes (default 1,8)
#SBATCH --job-name=opsched-profile
#SBATCH --array=0-3
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=02:00:00
#SBATCH --output=opsched-profile-%A_%a.out
set -euo pipefail

cli=${OPSCHED_CLI:-opsched-cli}
device=${OPSCHED_DEVICE:-sim:h100}
results=${OPSCHED_RESULTS:-results}
default_tasks="zoo:inception_v3 zoo:googlenet;zoo:nasnet_a zoo:squeezenet;zoo:randwire?seed=1 zoo:randwire?seed=2;zoo:randwire?seed=3 zoo:randwire?seed=4"
IFS=';' read -r -a tasks <<< "${OPSCHED_TASKS:-$default_tasks}"

task=${SLURM_ARRAY_TASK_ID:?"run this script with sbatch (as a job array), or set SLURM_ARRAY_TASK_ID"}
if (( task < 0 || task >= ${#tasks[@]} )); then
  echo "opsched-profile: array index $task, but only ${#tasks[@]} tasks are defined (0-$(( ${#tasks[@]} - 1 )))" >&2
  exit 2
fi
read -r -a models <<< "${tasks[$task]}"
mkdir -p "$results"
db="$results/task-$task.db"
echo "opsched-profile: task $task (job ${SLURM_ARRAY_JOB_ID:-?}) on $(hostname): ${models[*]} on $device into $db"
# exec: Slurm's SIGTERM (scancel, the time limit) reaches opsched-cli itself, which finishes the
# job in hand (or drops a schedule search in progress) and exits; the next submission resumes.
exec "$cli" profile "${models[@]}" --schedulers "${OPSCHED_SCHEDULERS:-sequential,ios,nimble}" \
  --batch "${OPSCHED_BATCHES:-1,8}" --device "$device" --warps --db "$db"
