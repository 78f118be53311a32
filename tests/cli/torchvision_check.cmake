# Runs `opsched-cli run DATA/MODEL/model.onnx --input DATA/DATA_MODEL/SET ARGS` and checks exit code
# and output, or reports the test as skipped when the exported data is not there.
# -DCLI=path -DDATA=dir -DMODEL=name -DDATA_MODEL=name -DARGS="a|b" -DEXPECT_EXIT=n -DMATCH=regex
# [-DSET=test_data_set_0] [-DKIND=torchvision|transformers]
if(NOT SET)
  set(SET test_data_set_0)
endif()
if(NOT KIND)
  set(KIND torchvision)
endif()
set(model "${DATA}/${MODEL}/model.onnx")
set(testdata "${DATA}/${DATA_MODEL}/${SET}")
if(NOT EXISTS "${model}" OR NOT EXISTS "${testdata}/output_0.pb")
  message("skipped: ${KIND} test data not generated (no ${model} or ${testdata}); run "
          "packaging/bootstrap.sh test, or tests/data/export_${KIND}.py --out ${DATA}")
  return()
endif()
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${CLI} run ${model} --input ${testdata} ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${rc}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "opsched-cli run ${model} ${args}: exit ${rc}, expected ${EXPECT_EXIT}")
endif()
if(NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "opsched-cli run ${model} ${args}: output does not match '${MATCH}'")
endif()
