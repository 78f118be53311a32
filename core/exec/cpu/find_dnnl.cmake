# oneDNN for the CPU executor (Debian: libdnnl-dev). Optional: without it the CPU backend is a stub
# that says it is not built. Sets OPSCHED_HAVE_DNNL and the global target DNNL::dnnl.
#
# Debian's dnnl config insists on OpenCL (its GPU runtime) even for CPU-only use, while the OpenCL
# development package is only a Recommends of libdnnl-dev. Without the headers, point the search
# at the runtime library libdnnl itself links against, so configuring does not stop there.
if(NOT DEFINED CACHE{OpenCL_LIBRARY})
  find_path(OPSCHED_OPENCL_HEADERS CL/cl.h)
  if(NOT OPSCHED_OPENCL_HEADERS)
    find_library(OPSCHED_OPENCL_RUNTIME NAMES libOpenCL.so.1)
    if(OPSCHED_OPENCL_RUNTIME)
      set(OpenCL_LIBRARY "${OPSCHED_OPENCL_RUNTIME}" CACHE FILEPATH "OpenCL runtime (for oneDNN's config only)")
      set(OpenCL_INCLUDE_DIR "${CMAKE_CURRENT_BINARY_DIR}/no-opencl-headers" CACHE PATH "Unused: oneDNN is used on the CPU only")
      file(MAKE_DIRECTORY "${OpenCL_INCLUDE_DIR}")
    endif()
  endif()
endif()
find_package(dnnl CONFIG GLOBAL QUIET)
if(dnnl_FOUND AND TARGET DNNL::dnnl)
  set(OPSCHED_HAVE_DNNL ON)
  message(STATUS "opsched: CPU backend with oneDNN ${dnnl_VERSION}")
else()
  set(OPSCHED_HAVE_DNNL OFF)
  message(STATUS "opsched: oneDNN not found; the CPU backend is not built (install libdnnl-dev)")
endif()
set(OPSCHED_HAVE_DNNL ${OPSCHED_HAVE_DNNL} CACHE INTERNAL "The CPU backend is built")
