# Transformer networks exported by tests/data/export_transformers.py (the test command generates
# them into the build folder first): each imports and runs under every scheduler on the CPU with
# --check against PyTorch's float64 output. A second input's data checked against the first input's
# output must fail, so a check that ignores the input cannot pass; so must the faults a kernel bug
# of a small size would make (below). Without the data the tests are reported as skipped, never
# passed.
set(OPSCHED_TRANSFORMER_DATA ${CMAKE_BINARY_DIR}/testdata/transformers CACHE PATH
  "Folder with <model>/model.onnx and test data from tests/data/export_transformers.py")

# opsched_transformer_test(NAME MODEL model SET folder EXIT code MATCH regex ARGS ...)
function(opsched_transformer_test name)
  cmake_parse_arguments(T "" "MODEL" "" ${ARGN})
  opsched_export_test(${name} KIND transformers MODEL ${T_MODEL} DATA ${T_MODEL} ${T_UNPARSED_ARGUMENTS})
endfunction()

# The tolerance from the measured error (tests/cli/measure_check_errors.py, sequential, ios,
# ios-merge and nimble plans, one thread, 2026-11-28, AMD EPYC with AVX-512 and the same limited to
# AVX2): the clean float32 error is at most 1.5e-6 of max|ref| (vit_b_16; bert_like 3.0e-7,
# gpt2_like 6.3e-7, t5_like 9.4e-7, convnext_tiny 1.0e-6, swin_t 7.1e-7, transformer_encoder
# 2.0e-7; AVX2 at most 7.9e-7). 1e-5 x max|ref| is 7-50x that, and fails GELU's tanh approximation
# (5.0e-5 on bert_like), a layer norm's variance over n - 1 (6.2e-4) and one Q projection x1.01
# (7.1e-5 on bert_like, 7.6e-5 on gpt2_like).
set(tx_check --check --rtol 1e-5 --atol 1e-6 --atol-scale 1e-5 --repeat 1 --threads 1)
set(tx_tol "check +rtol 1e-05, atol 1e-06 \\+ 1e-05 x max")
foreach(model transformer_encoder bert_like gpt2_like t5_like vit_b_16 convnext_tiny swin_t)
  foreach(scheduler sequential greedy ios nimble opara)
    opsched_transformer_test(transformer_${model}_${scheduler} MODEL ${model} SET test_data_set_0 EXIT 0
      MATCH "${tx_tol}.* pass" ARGS --scheduler ${scheduler} ${tx_check})
  endforeach()
  # The second input against its own output passes; against the first input's output it must fail.
  opsched_transformer_test(transformer_${model}_second_input MODEL ${model} SET test_data_set_1 EXIT 0
    MATCH "${tx_tol}.* pass" ARGS ${tx_check})
  opsched_transformer_test(transformer_${model}_input_matters MODEL ${model} SET test_data_set_mismatch EXIT 1
    MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS ${tx_check})
endforeach()

# Kernel bugs of a small size (run --inject-fault, engine/run/run_check.h) must fail the check: an
# erf GELU computed with the tanh approximation, a layer norm (T5: RMS norm) dividing its variance
# by n - 1, one attention Q projection's weight x1.01.
set(tx_fail "FAIL.*error: --check: 1 of 1 outputs differ")
foreach(model bert_like vit_b_16 convnext_tiny)
  opsched_transformer_test(transformer_${model}_fault_gelu MODEL ${model} EXIT 1 MATCH "fault +gelu=tanh.*${tx_fail}"
    ARGS --inject-fault gelu=tanh ${tx_check})
endforeach()
foreach(model bert_like gpt2_like t5_like vit_b_16)
  opsched_transformer_test(transformer_${model}_fault_layernorm MODEL ${model} EXIT 1
    MATCH "fault +layernorm=unbiased.*${tx_fail}" ARGS --inject-fault layernorm=unbiased ${tx_check})
endforeach()
set(tx_q_bert_like /layers.0/attn/q/MatMul)
set(tx_q_gpt2_like /layers.0/attn/q/MatMul)
set(tx_q_t5_like /encoder.0/self_attn/q/MatMul)
foreach(model bert_like gpt2_like t5_like)
  opsched_transformer_test(transformer_${model}_fault_q_weight MODEL ${model} EXIT 1
    MATCH "fault +weight=.*\\*1.01 injected.*${tx_fail}" ARGS --inject-fault "weight=${tx_q_${model}}*1.01" ${tx_check})
endforeach()
