# The libraries the relocatable CLI bundle takes from the machine it runs on, never from the
# bundle: the C runtime (glibc and its loader), the C++ runtime, and NVIDIA's driver and CUDA
# libraries (the driver must match the kernel module; cuDNN and CUPTI are opened at run time
# from the GPU machine's installation). Everything else the CLI loads is bundled.
# Shared by make_cli_bundle.cmake (what to leave out) and the bundle test (what may resolve
# outside the bundle).
set(OPSCHED_BUNDLE_SYSTEM_LIB_NAMES
  linux-vdso.so.1 ld-linux-x86-64.so.2
  libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 libutil.so.1
  libstdc++.so.6 libgcc_s.so.1
  "libcuda.so.1, libnvidia-*, libcudart, libcudnn*, libcupti, libcublas*, libnvrtc")
set(OPSCHED_BUNDLE_SYSTEM_LIB_REGEXES
  "^linux-vdso\\.so"
  "^ld-linux-x86-64\\.so"
  "^lib(c|m|dl|pthread|rt|resolv|util)\\.so"
  "^libstdc\\+\\+\\.so"
  "^libgcc_s\\.so"
  "^libcuda\\.so"
  "^libnvidia-"
  "^libcudart\\.so"
  "^libcudnn"
  "^libcupti\\.so"
  "^libcublas(Lt)?\\.so"
  "^libnvrtc")
