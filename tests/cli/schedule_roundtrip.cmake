# schedule -o FILE, then evaluate FILE: the file round-trips and evaluates to the same latency.
# -DCLI=path -DMODEL=ref -DSCHEDULER=name -DWORK=dir [-DLOWERING=barriers|events|best: the file keeps
# the lowering it was made with, so evaluate lowers it the same way]
file(MAKE_DIRECTORY "${WORK}")
set(lowering_args "")
set(suffix "")
if(LOWERING)
  set(lowering_args --lowering ${LOWERING})
  set(suffix "_${LOWERING}")
endif()
set(file "${WORK}/${SCHEDULER}${suffix}.json")
file(REMOVE "${file}")
execute_process(COMMAND ${CLI} schedule ${MODEL} --scheduler ${SCHEDULER} --device sim:a100 -o ${file} --json
                        ${lowering_args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "schedule failed (${rc}): ${err}")
endif()
file(READ "${file}" written)
string(JSON written_latency GET "${written}" latency_ms)
string(JSON scheduler GET "${written}" scheduler)
if(NOT scheduler STREQUAL SCHEDULER)
  message(FATAL_ERROR "file names scheduler '${scheduler}'")
endif()
execute_process(COMMAND ${CLI} evaluate ${MODEL} --schedule ${file} --device sim:a100 --json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "evaluate failed (${rc}): ${err}")
endif()
string(JSON evaluated GET "${out}" latency_ms)
if(NOT written_latency STREQUAL evaluated)
  message(FATAL_ERROR "schedule wrote ${written_latency} ms, evaluate measured ${evaluated} ms")
endif()

# A schedule for this model is refused for another model, with the reason.
execute_process(COMMAND ${CLI} evaluate zoo:googlenet --schedule ${file}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "made for model")
  message(FATAL_ERROR "wrong model: exit ${rc}, ${err}")
endif()
