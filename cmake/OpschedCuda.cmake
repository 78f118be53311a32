# CUDA toolkit, cuDNN and CUPTI: optional at build time, and their absence at run time is reported,
# not fatal. Sets OPSCHED_HAVE_CUDA / OPSCHED_HAVE_CUDNN / OPSCHED_HAVE_CUPTI.
set(OPSCHED_HAVE_CUDA OFF)
set(OPSCHED_HAVE_CUDNN OFF)
set(OPSCHED_HAVE_CUPTI OFF)

if(NOT OPSCHED_WITH_CUDA)
  return()
endif()

if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND OR NOT CUDAToolkit_NVCC_EXECUTABLE)
  message(STATUS "opsched: CUDA toolkit not found; building without CUDA")
  return()
endif()

if(NOT CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
endif()
# Ampere and Hopper machine code, plus PTX for anything newer.
if(NOT CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17) # CMake 3.25 knows no CUDA20 for nvcc; .cu files stay C++17
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(OPSCHED_HAVE_CUDA ON)

find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
if(CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
  add_library(opsched_cudnn INTERFACE)
  target_include_directories(opsched_cudnn INTERFACE ${CUDNN_INCLUDE_DIR})
  target_link_libraries(opsched_cudnn INTERFACE ${CUDNN_LIBRARY})
  set(OPSCHED_HAVE_CUDNN ON)
else()
  message(STATUS "opsched: cuDNN not found next to the CUDA toolkit")
endif()

if(TARGET CUDA::cupti)
  set(OPSCHED_HAVE_CUPTI ON)
else()
  message(STATUS "opsched: CUPTI not found in the CUDA toolkit")
endif()
