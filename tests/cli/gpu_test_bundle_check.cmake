# Packs the GPU test bundle (cmake/make_gpu_test_bundle.cmake) from the built test binaries, then
# runs tests/bench/gpu_verify.sh --dry-run --steps env,tests with it next to the CLI bundle that the
# cli.bundle test packed: every binary must load its libraries from the CLI bundle's lib/, run, and
# report through GoogleTest (without a GPU their GPU cases skip; with one they run).
# cmake -DSOURCE_DIR=repo -DTESTS="a|b|..." -DVERSION=x -DSTRIP=strip -DBUNDLE=tarball -DWORK=dir -P ...
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/gpu_verify_support.cmake)
gpu_verify_require_bundle_and_python()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# Without ONNX's test data: copying it is the slow part, and the conformance test's own skip
# message is what this checks for that binary.
execute_process(COMMAND ${CMAKE_COMMAND} -DTESTS=${TESTS} -DVERSION=${VERSION} -DOUT_DIR=${WORK} -DSTRIP=${STRIP}
                        -P ${SOURCE_DIR}/cmake/make_gpu_test_bundle.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(tests_bundle ${WORK}/opsched-gpu-tests-${VERSION}-linux-x86_64.tar.gz)
if(NOT rc EQUAL 0 OR NOT EXISTS ${tests_bundle})
  message(FATAL_ERROR "make_gpu_test_bundle.cmake: exit ${rc}\n${out}\n${err}")
endif()

execute_process(
  COMMAND ${CMAKE_COMMAND} -E env TV_MODELS= TESTS_BUNDLE=${tests_bundle} --unset=OUT
          bash ${SOURCE_DIR}/tests/bench/gpu_verify.sh --dry-run --bundle ${BUNDLE} --work ${WORK}/work
          --out ${WORK}/out --fresh --steps env,tests --budget 500
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${WORK}/out/summary.txt summary)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gpu_verify.sh --dry-run --steps env,tests: exit ${rc}\n${summary}\n${err}")
endif()
gpu_verify_fail_on_shell_errors("${err}")
if(NOT summary MATCHES "GPU tests \\(GoogleTest's counts; skipped tests are not passes\\): [1-9][0-9]* passed, 0 failed")
  message(FATAL_ERROR "summary.txt has no GPU test table with passes and no failures:\n${summary}")
endif()
string(REPLACE "|" ";" names "${TESTS}")
foreach(path IN LISTS names)
  if(path STREQUAL "")
    continue()
  endif()
  get_filename_component(name ${path} NAME)
  if(NOT summary MATCHES "\n${name} +ok +[0-9]+ +0 +[0-9]+")
    message(FATAL_ERROR "summary.txt has no passing row for ${name}:\n${summary}")
  endif()
endforeach()
message(STATUS "GPU test bundle: every binary ran from the CLI bundle's libraries")
