# The kinds of models users bring, exported by tests/data/export_user_models.py (the test command
# generates them into the build folder first): segmentation (Resize sized from Shape), a U-Net
# (ConvTranspose, nearest Upsample), super-resolution (DepthToSpace), 1-D audio (Conv1d, LeakyRelu,
# PRelu, 1-D pools), recurrent text and keyword models (LSTM, GRU, RNN), a recognizer with a spatial
# transformer (GridSample, GatherElements, ScatterND, a three-operand Einsum), 3-D pools (a C3D-like clip classifier), a volumetric U-Net (ConvTranspose3d), an FPN (every Resize coordinate mode PyTorch writes, InstanceNorm, GroupNorm,
# ELU, SELU, Softplus, Mish, GELU), video (3-D convolution over NCDHW) and two with free input
# dimensions. Each runs under every
# scheduler on the CPU with --check against PyTorch's float64 output; a second input checked
# against the first one's output, and one deep weight x1.01, must fail. Without the data the tests
# are reported as skipped, never passed.
set(OPSCHED_USER_MODEL_DATA ${CMAKE_BINARY_DIR}/testdata/usermodels CACHE PATH
  "Folder with <model>/model.onnx and test data from tests/data/export_user_models.py")

# opsched_user_model_test(NAME MODEL model [SET folder|none] EXIT code MATCH regex ARGS ...)
function(opsched_user_model_test name)
  cmake_parse_arguments(T "" "MODEL" "" ${ARGN})
  opsched_export_test(${name} KIND user_models MODEL ${T_MODEL} DATA ${T_MODEL} ${T_UNPARSED_ARGUMENTS})
endfunction()

# Tolerances from the measured error (tests/cli/measure_check_errors.py, sequential, ios, ios-merge
# and nimble plans, 2026-11-28, AMD EPYC with AVX-512 and limited to AVX2; the larger of the two),
# as a fraction of max|ref|, about 10x each model's own: audio1d 9.0e-7, deeplabv3 4.1e-6, espcn
# 7.1e-7, fpn_upsample 6.5e-7, lraspp 1.4e-6, r2plus1d_18 1.3e-5, r3d_18 3.3e-6, unet_small 2.0e-6,
# video_pools 5.0e-7, unet3d_small 7.3e-7, branchy_dynamic 4.6e-7; crnn_ocr 2.7e-7 and keyword_rnn 5.0e-8
# (2026-11-29, sequential, ios and nimble); stn_recognizer 9.5e-7 (2026-11-29, the same three plans);
# fcn_resnet50, the one deep network, 1.2e-4 here and 8.9e-5 in ONNX Runtime: its float32 error is
# the problem's, so 3e-4. No absolute term: the FPN's output is 0.2 at most, where 1e-6 alone is
# 5e-6 of it. One bar for all (or an absolute 1e-6) would let the FPN's GELU computed with the
# tanh approximation (9.7e-6) pass.
set(um_scale_audio1d 1e-5)
set(um_scale_audio1d_dynamic 1e-5)
set(um_scale_deeplabv3_mobilenet_v3_large 5e-5)
set(um_scale_espcn 1e-5)
set(um_scale_espcn_dynamic 1e-5)
set(um_scale_fcn_resnet50 3e-4)
set(um_scale_fpn_upsample 5e-6)
set(um_scale_lraspp_mobilenet_v3_large 2e-5)
set(um_scale_r2plus1d_18 2e-4)
set(um_scale_r3d_18 5e-5)
set(um_scale_unet_small 2e-5)
set(um_scale_video_pools 5e-6)
set(um_scale_unet3d_small 1e-5)
set(um_scale_branchy_dynamic 5e-6)
set(um_scale_crnn_ocr 3e-6)
set(um_scale_crnn_ocr_dynamic 3e-6)
set(um_scale_keyword_rnn 1e-6)
set(um_scale_stn_recognizer 1e-5)
# A deep convolution of each, for the weight fault (the U-Net's: its transposed convolution).
set(um_fault_fcn_resnet50 /net/backbone/layer3/layer3.0/downsample/downsample.0/Conv)
set(um_fault_deeplabv3_mobilenet_v3_large /net/backbone/backbone.10/block/block.2/block.2.0/Conv)
set(um_fault_lraspp_mobilenet_v3_large /net/backbone/backbone.10/block/block.0/block.0.0/Conv)
set(um_fault_unet_small /up3/ConvTranspose)
set(um_fault_espcn /body/body.2/Conv)
set(um_fault_fpn_upsample /smooth2/smooth2.0/Conv)
set(um_fault_audio1d /features/features.8/Conv)
set(um_fault_r3d_18 /layer3/layer3.0/conv1/conv1.0/Conv)
set(um_fault_r2plus1d_18 /layer3/layer3.0/conv1/conv1.0/conv1.0.0/Conv)
set(um_fault_video_pools /features/features.8/Conv)
set(um_fault_unet3d_small /up1/ConvTranspose)
set(um_fault_branchy_dynamic /body/Conv)
# The recurrent layers: the second LSTM's reverse input weights; the second GRU's recurrent
# weights (R^T, the first weight of its forward Recurrent op).
set(um_fault_crnn_ocr /rnn/LSTM_1/reverse/input_projection)
set(um_fault_keyword_rnn /gru/GRU_1/forward/recurrence)
# After the spatial transformer: the feature stack's second convolution.
set(um_fault_stn_recognizer /features/features.4/Conv)
foreach(model fcn_resnet50 deeplabv3_mobilenet_v3_large lraspp_mobilenet_v3_large unet_small espcn fpn_upsample
              audio1d r3d_18 r2plus1d_18 video_pools unet3d_small espcn_dynamic audio1d_dynamic branchy_dynamic
              crnn_ocr keyword_rnn crnn_ocr_dynamic stn_recognizer)
  set(check --check --rtol 1e-5 --atol 0 --atol-scale ${um_scale_${model}} --repeat 1 --threads 1)
  set(tol "atol 0 \\+ [0-9.e-]+ x max")
  set(schedulers sequential greedy ios nimble opara)
  if(model MATCHES "_dynamic$")
    set(schedulers sequential ios)
  endif()
  foreach(scheduler ${schedulers})
    opsched_user_model_test(user_${model}_${scheduler} MODEL ${model} EXIT 0
      MATCH "check +rtol 1e-05, ${tol}.* pass" ARGS --scheduler ${scheduler} ${check})
  endforeach()
  opsched_user_model_test(user_${model}_input_matters MODEL ${model} SET test_data_set_mismatch EXIT 1
    MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS ${check})
  if(DEFINED um_fault_${model})
    opsched_user_model_test(user_${model}_weight_fault MODEL ${model} EXIT 1
      MATCH "FAIL.*error: --check: 1 of 1 outputs differ" ARGS --inject-fault "weight=${um_fault_${model}}*1.01" ${check})
  endif()
endforeach()
# The FPN's GELU computed with the tanh approximation must fail its check.
opsched_user_model_test(user_fpn_upsample_fault_gelu MODEL fpn_upsample EXIT 1
  MATCH "fault +gelu=tanh.*FAIL.*error: --check: 1 of 1 outputs differ" ARGS --inject-fault gelu=tanh --check --rtol 1e-5
  --atol 0 --atol-scale ${um_scale_fpn_upsample} --repeat 1 --threads 1)

# Free input dimensions: named in the error with the flag that sets them; given by --shape (any
# size the network takes) or taken from --input's data; checked against the fixed ones.
opsched_user_model_test(user_shape_missing MODEL espcn_dynamic SET none EXIT 1
  MATCH "input 'input': dimension 2 is free \\('height' in 1x3xheightxwidth\\); give the input's shape with --shape input=1x3xHEIGHTxWIDTH"
  ARGS --repeat 1)
opsched_user_model_test(user_shape_given MODEL espcn_dynamic SET none EXIT 0
  MATCH "output +/body/body.5/DepthToSpace:out 1x3x288x192" ARGS --shape input=1x3x96x64 --repeat 1)
# A free text-line width sets the recurrent layers' sequence length: 200 pixels, 50 steps.
opsched_user_model_test(user_shape_sequence MODEL crnn_ocr_dynamic SET none EXIT 0
  MATCH "output +/head/MatMul:out 50x1x37" ARGS --shape input=1x1x32x200 --repeat 1)
opsched_user_model_test(user_shape_unnamed MODEL audio1d_dynamic SET none EXIT 0
  MATCH "output +/fc/Gemm:out 1x12" ARGS --shape 1x1x16000 --repeat 1)
# If nodes decided by the shapes: the pool's branch is taken at width 32 (the data), not at 16.
opsched_user_model_test(user_branch_by_shape_wide MODEL branchy_dynamic SET none EXIT 0
  MATCH "ops +5 schedulable units \\(Activation 1, Conv 3, Pool 1\\)" ARGS info --shape input=1x3x32x32)
opsched_user_model_test(user_branch_by_shape_narrow MODEL branchy_dynamic SET none EXIT 0
  MATCH "ops +4 schedulable units \\(Activation 1, Conv 3\\)" ARGS info --shape input=1x3x16x16)
opsched_user_model_test(user_shape_contradicts MODEL espcn_dynamic SET none EXIT 1
  MATCH "dimension 1 = 4, but the model fixes it at 3" ARGS --shape input=1x4x48x48 --repeat 1)
opsched_user_model_test(user_shape_batch MODEL espcn_dynamic SET none EXIT 1
  MATCH "dimension 0 \\(the batch\\) = 2, the batch is 1; set the batch with --batch"
  ARGS --shape input=2x3x48x48 --repeat 1)
opsched_user_model_test(user_shape_unknown_input MODEL espcn_dynamic SET none EXIT 1
  MATCH "--shape names 'image', which is not an input of the model \\(inputs: 'input'\\)"
  ARGS --shape image=1x3x48x48 --repeat 1)
opsched_user_model_test(user_shape_malformed MODEL espcn_dynamic SET none EXIT 2
  MATCH "--shape 'input=1x3x48xW': 'W' is not a dimension" ARGS --shape input=1x3x48xW --repeat 1)
opsched_user_model_test(user_shape_batch_flag MODEL espcn_dynamic SET none EXIT 0
  MATCH "output +/body/body.5/DepthToSpace:out 2x3x144x144" ARGS --shape input=2x3x48x48 --batch 2 --repeat 1)
# profile: --shape sets the model files' free dimensions and leaves built-in networks alone.
opsched_user_model_test(user_shape_profile MODEL espcn_dynamic SET none EXIT 0
  MATCH "2 jobs: [02] run, [02] already in the database, 0 failed"
  ARGS profile --shape input=1x3x32x32 zoo:squeezenet --schedulers sequential --device sim:v100
       --db ${CMAKE_CURRENT_BINARY_DIR}/user_shape_profile.db)
# A schedule made for one input size is refused for another, naming both.
set(um_schedule ${CMAKE_CURRENT_BINARY_DIR}/user_espcn_48x48.schedule.json)
opsched_user_model_test(user_shape_schedule_write MODEL espcn_dynamic SET none EXIT 0 MATCH "espcn"
  ARGS schedule --shape input=1x3x48x48 --scheduler ios -o ${um_schedule})
opsched_user_model_test(user_shape_schedule_other_size MODEL espcn_dynamic SET none EXIT 1
  MATCH "it was made for inputs input=1x3x48x48; the model's inputs here are input=1x3x64x64"
  ARGS --shape input=1x3x64x64 --schedule ${um_schedule} --repeat 1)
set_tests_properties(cli.user_shape_schedule_other_size PROPERTIES DEPENDS cli.user_shape_schedule_write)
