# Packs the GPU test binaries (stripped) and ONNX's test data into one tarball, so a GPU machine
# without a build tree runs the tests that skip everywhere else (tests/bench/gpu_verify.sh's `tests`
# step, next to the CLI bundle whose lib/ they load their libraries from):
#
#   <name>/bin/tst_*          the GPU tests (GoogleTest; they link no library the CLI bundle lacks)
#   <name>/onnx-testdata/     Debian's libonnx-testdata (node/, pytorch-converted/, pytorch-operator/),
#                             when installed: tst_cuda_onnx_conformance reads it through
#                             $OPSCHED_ONNX_TESTDATA
#   <name>/README.txt
#
# cmake -DTESTS="path|path|..." -DVERSION=x.y.z -DOUT_DIR=dir [-DSTRIP=strip] [-DONNX_TESTDATA=dir]
#       -P make_gpu_test_bundle.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var TESTS VERSION OUT_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "make_gpu_test_bundle: -D${var}=... is required")
  endif()
endforeach()
# TESTS arrives '|'-separated (a ';' list does not survive a custom command's argument list).
string(REPLACE "|" ";" TESTS "${TESTS}")
list(FILTER TESTS EXCLUDE REGEX "^$")
set(name opsched-gpu-tests-${VERSION}-linux-x86_64)
set(stage ${OUT_DIR}/${name})
set(tarball ${OUT_DIR}/${name}.tar.gz)
file(REMOVE_RECURSE ${stage})
file(REMOVE ${tarball})
file(MAKE_DIRECTORY ${stage}/bin)

foreach(test IN LISTS TESTS)
  if(NOT EXISTS "${test}")
    message(FATAL_ERROR "make_gpu_test_bundle: '${test}' does not exist; build it first")
  endif()
  get_filename_component(base ${test} NAME)
  if(STRIP)
    # Debug info is most of a test binary's size (40 MB -> 3 MB).
    execute_process(COMMAND ${STRIP} --strip-debug -o ${stage}/bin/${base} ${test} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "make_gpu_test_bundle: ${STRIP} failed on ${test}")
    endif()
  else()
    file(COPY_FILE ${test} ${stage}/bin/${base})
  endif()
  file(CHMOD ${stage}/bin/${base} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                              WORLD_READ WORLD_EXECUTE)
endforeach()

set(data_note "ONNX's test data is not included (libonnx-testdata was not installed where this was built);
tst_cuda_onnx_conformance then skips, saying so.")
if(ONNX_TESTDATA AND IS_DIRECTORY ${ONNX_TESTDATA}/node)
  foreach(folder node pytorch-converted pytorch-operator)
    if(IS_DIRECTORY ${ONNX_TESTDATA}/${folder})
      file(COPY ${ONNX_TESTDATA}/${folder} DESTINATION ${stage}/onnx-testdata)
    endif()
  endforeach()
  set(data_note "onnx-testdata/ is Debian's libonnx-testdata, for tst_cuda_onnx_conformance.")
endif()

file(WRITE ${stage}/README.txt
"opsched ${VERSION}: the GPU tests, for a GPU machine without a build tree.

Run them with the CLI bundle's libraries (opsched-cli-${VERSION}-linux-x86_64/lib) and NVIDIA's
cuDNN and CUPTI folders on LD_LIBRARY_PATH, and OPSCHED_ONNX_TESTDATA=<this folder>/onnx-testdata:

  for t in ${name}/bin/tst_*; do \"$t\" --gtest_brief=1; done

tests/bench/gpu_verify.sh does this in its `tests` step. Without a CUDA device every test skips,
saying why. ${data_note}
")

execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${tarball} ${name}
                WORKING_DIRECTORY ${OUT_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_gpu_test_bundle: could not write ${tarball}")
endif()
file(REMOVE_RECURSE ${stage})
file(SIZE ${tarball} size)
math(EXPR kib "${size} / 1024")
message(STATUS "opsched GPU test bundle: ${tarball} (${kib} KiB)")
