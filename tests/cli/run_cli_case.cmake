# Runs opsched-cli once and checks exit code, output pattern and (optionally) a golden file.
# -DCLI=path -DARGS="a|b|c" -DEXPECT_EXIT=n [-DMATCH=regex] [-DGOLDEN=file -DACTUAL_DIR=dir]
# On a golden mismatch the output is written to ACTUAL_DIR/<name>.actual and a diff is printed.
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${CLI} ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

if(NOT "${rc}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "opsched-cli ${args}: exit ${rc}, expected ${EXPECT_EXIT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED MATCH AND NOT MATCH STREQUAL "")
  if(NOT "${out}${err}" MATCHES "${MATCH}")
    message(FATAL_ERROR "opsched-cli ${args}: output does not match '${MATCH}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endif()
if(DEFINED GOLDEN AND NOT GOLDEN STREQUAL "")
  file(READ "${GOLDEN}" expected)
  if(NOT out STREQUAL expected)
    get_filename_component(name "${GOLDEN}" NAME)
    set(actual "${ACTUAL_DIR}/${name}.actual")
    file(WRITE "${actual}" "${out}")
    execute_process(COMMAND diff -u "${GOLDEN}" "${actual}" OUTPUT_VARIABLE d)
    message(FATAL_ERROR "output differs from ${GOLDEN}\n${d}\nIf the change is intended: cp ${actual} ${GOLDEN}")
  endif()
endif()
