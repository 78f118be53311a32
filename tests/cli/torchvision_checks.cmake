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
  elseif(T_KIND STREQUAL "newer_opsets")
    set(dir ${OPSCHED_NEWER_OPSET_DATA})
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

# One thread per run: ctest runs two tests at a time on two cores. Tolerances from the measured
# error (tests/cli/measure_check_errors.py, sequential, ios, ios-merge and nimble plans, 2026-11-28,
# AMD EPYC with AVX-512 and limited to AVX2), as a fraction of max|ref| on the logits: googlenet
# 1.5e-5, inception_v3 4.7e-5 (2.8e-5 on AVX2), resnet50 1.5e-5, mobilenet_v2 6.0e-6,
# squeezenet1_1 4.5e-7. The deep networks' float32 error is what it is; one deep convolution's
# weight x1.01 moves the logits by 6e-3 to 1.3e-2 of max|ref|, far outside either bound.
set(tv_scale_googlenet 1e-4)
set(tv_scale_inception_v3 1e-4)
set(tv_scale_resnet50 1e-4)
set(tv_scale_mobilenet_v2 5e-5)
set(tv_scale_squeezenet1_1 1e-5)
set(tv_fault_googlenet /inception4d/branch4/branch4.1/conv/Conv)
set(tv_fault_inception_v3 /Mixed_6e/branch7x7_3/conv/Conv)
set(tv_fault_resnet50 /layer3/layer3.3/conv3/Conv)
set(tv_fault_mobilenet_v2 /features/features.12/conv/conv.2/Conv)
set(tv_fault_squeezenet1_1 /features/features.10/expand1x1/Conv)
foreach(model googlenet inception_v3 squeezenet1_1 resnet50 mobilenet_v2)
  set(check --check --rtol 1e-5 --atol 1e-6 --atol-scale ${tv_scale_${model}} --repeat 1 --threads 1)
  foreach(scheduler sequential greedy ios ios-merge)
    opsched_torchvision_test(torchvision_${model}_${scheduler} MODEL ${model} DATA ${model} EXIT 0
      MATCH "check +rtol 1e-05, atol 1e-06 \\+ [0-9.e-]+ x max.*1x1000 .* pass"
      ARGS --scheduler ${scheduler} ${check})
  endforeach()
  opsched_torchvision_test(torchvision_${model}_fault_weight MODEL ${model} DATA ${model} EXIT 1
    MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS --inject-fault "weight=${tv_fault_${model}}*1.01" ${check})
endforeach()
# Another model's reference output (same input and output shapes) must fail the check.
opsched_torchvision_test(torchvision_check_other_model MODEL squeezenet1_1 DATA googlenet EXIT 1
  MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS --check --repeat 1 --threads 1)
