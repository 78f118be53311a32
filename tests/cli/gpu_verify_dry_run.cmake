# Runs tests/bench/gpu_verify.sh --dry-run on the bundle that the cli.bundle test packed (its
# fixture), with the steps that need neither a GPU nor PyTorch: env (unpack, library check),
# devices, the IOS search and compare at batch 1 on two zoo networks (sim:h100), and the mapping
# step (cpu:0,cpu:1 through run --mapping --segments). Checks the exit
# status and that the summary holds real numbers, so the script keeps working as the CLI changes.
# cmake -DSOURCE_DIR=repo -DBUNDLE=tarball -DWORK=dir -P gpu_verify_dry_run.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/gpu_verify_support.cmake)
gpu_verify_require_bundle_and_python()

file(REMOVE_RECURSE ${WORK})
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env TV_MODELS= "ZOO_MODELS=zoo:squeezenet,zoo:inception_v3" --unset=OUT
          bash ${SOURCE_DIR}/tests/bench/gpu_verify.sh --dry-run --bundle ${BUNDLE} --work ${WORK}/work
          --out ${WORK}/out --fresh --steps env,devices,search,compare1,mapping --budget 240
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gpu_verify.sh --dry-run: exit ${rc}\n${out}\n${err}")
endif()

gpu_verify_fail_on_shell_errors("${err}")
foreach(f summary.txt results.json commands.tsv log.txt env.txt)
  if(NOT EXISTS ${WORK}/out/${f})
    message(FATAL_ERROR "gpu_verify.sh --dry-run wrote no ${f}\n${out}\n${err}")
  endif()
endforeach()
file(READ ${WORK}/out/summary.txt summary)
foreach(re
    "steps done: compare1 devices env mapping search"
    "cuda runtime"                                                   # devices ran from the bundle
    "\nsqueezenet +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[a-z-]+" # compare row
    "\ninception_v3 +1 +[0-9.]+"
    "\ninception_v3 +ok +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+"          # search row: time, states, latency
    "nasnet_a +ok")
  if(NOT summary MATCHES "${re}")
    message(FATAL_ERROR "summary.txt does not match '${re}':\n${summary}")
  endif()
endforeach()
if(summary MATCHES "did not succeed")
  message(FATAL_ERROR "summary.txt lists failed commands:\n${summary}")
endif()
