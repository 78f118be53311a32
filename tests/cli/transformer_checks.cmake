# Transformer networks exported by tests/data/export_transformers.py (the test command generates
# them into the build folder first): each imports and runs under every scheduler on the CPU with
# --check against PyTorch's float64 output, at the torchvision tolerance. A second input's data
# checked against the first input's output must fail, so a check that ignores the input cannot
# pass. Without the data the tests are reported as skipped, never passed.
set(OPSCHED_TRANSFORMER_DATA ${CMAKE_BINARY_DIR}/testdata/transformers CACHE PATH
  "Folder with <model>/model.onnx and test data from tests/data/export_transformers.py")

# opsched_transformer_test(NAME MODEL model SET folder EXIT code MATCH regex ARGS ...)
function(opsched_transformer_test name)
  cmake_parse_arguments(T "" "MODEL" "" ${ARGN})
  opsched_export_test(${name} KIND transformers MODEL ${T_MODEL} DATA ${T_MODEL} ${T_UNPARSED_ARGUMENTS})
endfunction()

set(tx_check --check --rtol 1e-3 --atol 1e-6 --atol-scale 1e-4 --repeat 1 --threads 1)
foreach(model transformer_encoder bert_like gpt2_like t5_like vit_b_16 convnext_tiny swin_t)
  foreach(scheduler sequential greedy ios nimble opara)
    opsched_transformer_test(transformer_${model}_${scheduler} MODEL ${model} SET test_data_set_0 EXIT 0
      MATCH "check +rtol 0.001, atol 1e-06 \\+ 0.0001 x max.* pass" ARGS --scheduler ${scheduler} ${tx_check})
  endforeach()
  # The second input against its own output passes; against the first input's output it must fail.
  opsched_transformer_test(transformer_${model}_second_input MODEL ${model} SET test_data_set_1 EXIT 0
    MATCH "check +rtol 0.001.* pass" ARGS ${tx_check})
  opsched_transformer_test(transformer_${model}_input_matters MODEL ${model} SET test_data_set_mismatch EXIT 1
    MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS ${tx_check})
endforeach()
