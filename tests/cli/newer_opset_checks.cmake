# Models of opsets 18 to 22 as newer exporters write them (tests/data/export_newer_opsets.py; the
# test command generates them into the build folder first): reductions with an axes input, Split by
# num_outputs, Pad and Resize over listed axes, keep_aspect_ratio_policy, half_pixel_symmetric,
# GroupNormalization at 18 and 21, Gelu, Mish, Cast's saturate, a small network declared at opset
# 22. Each runs under every scheduler on the CPU with --check against PyTorch's (or the ONNX
# formula's) float64 output; a second input checked against the first one's outputs, a weight x1.01
# and GELU computed with the tanh approximation must fail. Without the data the tests are reported
# as skipped, never passed.
set(OPSCHED_NEWER_OPSET_DATA ${CMAKE_BINARY_DIR}/testdata/newer_opsets CACHE PATH
  "Folder with <case>/model.onnx and test data from tests/data/export_newer_opsets.py")

function(opsched_newer_opset_test name)
  cmake_parse_arguments(T "" "MODEL" "" ${ARGN})
  opsched_export_test(${name} KIND newer_opsets MODEL ${T_MODEL} DATA ${T_MODEL} ${T_UNPARSED_ARGUMENTS})
endfunction()

# Tolerance from the measured error (sequential and ios plans, 2026-11-28, AMD EPYC with AVX-512
# and limited to AVX2): at most 2.2e-7 of max|ref| (gelu_mish), so 2e-6; the weight fault moves
# conv_block_22's logits by 3e-3 of max|ref|.
set(newer_check --check --rtol 1e-5 --atol 0 --atol-scale 2e-6 --repeat 1 --threads 1)
foreach(model reduce_axes_input reduce_empty_axes split_num_outputs pad_axes resize_axes resize_symmetric
              group_norm_18 group_norm_21 gelu_mish cast_pool_19 conv_block_22)
  foreach(scheduler sequential greedy ios nimble opara)
    opsched_newer_opset_test(newer_opset_${model}_${scheduler} MODEL ${model} EXIT 0
      MATCH "check +rtol 1e-05, atol 0 \\+ 2e-06 x max.* pass" ARGS --scheduler ${scheduler} ${newer_check})
  endforeach()
  opsched_newer_opset_test(newer_opset_${model}_input_matters MODEL ${model} SET test_data_set_mismatch EXIT 1
    MATCH "FAIL.*error: --check: [0-9]+ of [0-9]+ outputs differ" ARGS ${newer_check})
endforeach()
opsched_newer_opset_test(newer_opset_conv_block_22_weight_fault MODEL conv_block_22 EXIT 1
  MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS --inject-fault "weight=fc*1.01" ${newer_check})
opsched_newer_opset_test(newer_opset_gelu_mish_fault_gelu MODEL gelu_mish EXIT 1
  MATCH "fault +gelu=tanh.*FAIL.*error: --check: 1 of 3 outputs differ" ARGS --inject-fault gelu=tanh ${newer_check})
