# torchvision networks exported by tests/data/export_torchvision.py (the test command generates
# them into the build folder first): each runs under several schedulers on the CPU with --check
# against PyTorch's output. Without the data the tests are reported as skipped, never passed.
set(OPSCHED_TORCHVISION_DATA ${CMAKE_BINARY_DIR}/testdata/torchvision CACHE PATH
  "Folder with <model>/model.onnx and test_data_set_0 from tests/data/export_torchvision.py")

# opsched_export_test(NAME KIND torchvision|transformers MODEL model DATA model [SET folder] EXIT code
#                     MATCH regex ARGS ...): `run` on an exported model with its test data (test_data_set_0
# unless SET says otherwise), skipped when the test command's data step could not export it.
function(opsched_export_test name)
  cmake_parse_arguments(T "" "KIND;MODEL;DATA;SET;EXIT;MATCH" "ARGS" ${ARGN})
  if(NOT T_SET)
    set(T_SET test_data_set_0)
  endif()
  set(dir ${OPSCHED_TORCHVISION_DATA})
  if(T_KIND STREQUAL "transformers")
    set(dir ${OPSCHED_TRANSFORMER_DATA})
  elseif(T_KIND STREQUAL "user_models")
    set(dir ${OPSCHED_USER_MODEL_DATA})
  endif()
  string(REPLACE ";" "|" joined "${T_ARGS}")
  add_test(NAME cli.${name}
    COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:opsched-cli> -DDATA=${dir} -DMODEL=${T_MODEL}
            -DDATA_MODEL=${T_DATA} -DSET=${T_SET} -DKIND=${T_KIND} "-DARGS=${joined}" -DEXPECT_EXIT=${T_EXIT}
            "-DMATCH=${T_MATCH}" -P ${CMAKE_CURRENT_SOURCE_DIR}/torchvision_check.cmake)
  set_tests_properties(cli.${name} PROPERTIES LABELS "cli;${T_KIND}"
    SKIP_REGULAR_EXPRESSION "skipped: ${T_KIND} test data not generated" TIMEOUT 600)
endfunction()

# opsched_torchvision_test(NAME MODEL model DATA model EXIT code MATCH regex ARGS ...)
function(opsched_torchvision_test name)
  opsched_export_test(${name} KIND torchvision ${ARGN})
endfunction()

# One thread per run: ctest runs two tests at a time on two cores.
foreach(model googlenet inception_v3 squeezenet1_1 resnet50 mobilenet_v2)
  foreach(scheduler sequential greedy ios ios-merge)
    opsched_torchvision_test(torchvision_${model}_${scheduler} MODEL ${model} DATA ${model} EXIT 0
      MATCH "check +rtol 0.001, atol 1e-06 \\+ 0.0001 x max.*1x1000 .* pass"
      ARGS --scheduler ${scheduler} --check --rtol 1e-3 --atol 1e-6 --atol-scale 1e-4 --repeat 1 --threads 1)
  endforeach()
endforeach()
# Another model's reference output (same input and output shapes) must fail the check.
opsched_torchvision_test(torchvision_check_other_model MODEL squeezenet1_1 DATA googlenet EXIT 1
  MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS --check --repeat 1 --threads 1)
