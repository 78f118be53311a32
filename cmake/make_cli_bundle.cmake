# Packs opsched-cli with the shared libraries it needs that a Linux x86-64 machine does not have by
# default (libonnx, libprotobuf, libdnnl and what they pull in) into one relocatable tarball:
#
#   <name>/bin/opsched-cli   RUNPATH $ORIGIN/../lib
#   <name>/lib/*.so.*        RUNPATH $ORIGIN (their own dependencies are found next to them)
#   <name>/README.txt
#   <name>/LICENSE          opsched's (MIT)
#
# cmake -DCLI=path/to/opsched-cli -DVERSION=x.y.z -DOUT_DIR=dir [-DSTRIP=strip] [-DPATCHELF=patchelf]
#       [-DKEEP_DIR=ON] -P make_cli_bundle.cmake
#
# Writes OUT_DIR/opsched-cli-VERSION-linux-x86_64.tar.gz (and, with KEEP_DIR, leaves the unpacked
# tree in OUT_DIR/opsched-cli-VERSION-linux-x86_64/). CUDA, cuDNN and CUPTI are not bundled: the
# CUDA runtime is linked statically, cuDNN and CUPTI are opened at run time from the GPU machine's
# own installation. The C and C++ runtimes are not bundled either (see cli_bundle_system_libs.cmake).
cmake_minimum_required(VERSION 3.25)

foreach(var CLI VERSION OUT_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "make_cli_bundle: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${CLI}")
  message(FATAL_ERROR "make_cli_bundle: '${CLI}' does not exist; build the opsched-cli target first")
endif()
if(NOT CMAKE_HOST_SYSTEM_NAME STREQUAL "Linux")
  message(FATAL_ERROR "make_cli_bundle: the relocatable bundle is built on Linux only")
endif()

# CMake can rewrite an RPATH only where the file already has one; Debian's libraries have none,
# so patchelf sets them.
if(NOT PATCHELF)
  find_program(PATCHELF patchelf)
endif()
if(NOT PATCHELF)
  message(FATAL_ERROR "make_cli_bundle: patchelf is needed to set the bundle's RPATHs "
                      "(apt-get install patchelf, or run packaging/install-deps.sh)")
endif()
if(NOT STRIP)
  find_program(STRIP strip)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/cli_bundle_system_libs.cmake)

set(name opsched-cli-${VERSION}-linux-x86_64)
set(stage ${OUT_DIR}/${name})
set(tarball ${OUT_DIR}/${name}.tar.gz)
file(REMOVE_RECURSE ${stage})
file(REMOVE ${tarball})
file(MAKE_DIRECTORY ${stage}/bin ${stage}/lib)

# Every library the binary loads, transitively; the system ones (allow-list) stay out.
set(CMAKE_GET_RUNTIME_DEPENDENCIES_PLATFORM linux+elf)
set(CMAKE_GET_RUNTIME_DEPENDENCIES_TOOL objdump)
find_program(CMAKE_GET_RUNTIME_DEPENDENCIES_COMMAND objdump)
file(GET_RUNTIME_DEPENDENCIES
  EXECUTABLES ${CLI}
  RESOLVED_DEPENDENCIES_VAR resolved
  UNRESOLVED_DEPENDENCIES_VAR unresolved
  CONFLICTING_DEPENDENCIES_PREFIX conflicting
  PRE_EXCLUDE_REGEXES ${OPSCHED_BUNDLE_SYSTEM_LIB_REGEXES})
if(unresolved)
  message(FATAL_ERROR "make_cli_bundle: libraries of ${CLI} not found on this machine: ${unresolved}")
endif()
if(conflicting_FILENAMES)
  message(FATAL_ERROR "make_cli_bundle: libraries found in more than one place: ${conflicting_FILENAMES}")
endif()

set(bundled "")
foreach(lib IN LISTS resolved)
  # Keep the name the loader asks for (the SONAME link), with the real file's contents.
  get_filename_component(soname ${lib} NAME)
  file(REAL_PATH ${lib} real)
  file(COPY_FILE ${real} ${stage}/lib/${soname})
  file(CHMOD ${stage}/lib/${soname} PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  list(APPEND bundled ${soname})
endforeach()
list(SORT bundled)
file(COPY_FILE ${CLI} ${stage}/bin/opsched-cli)
file(COPY_FILE ${CMAKE_CURRENT_LIST_DIR}/../LICENSE ${stage}/LICENSE)
file(CHMOD ${stage}/bin/opsched-cli
  PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

function(run_tool)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "make_cli_bundle: '${ARGN}' failed (${rc}): ${err}")
  endif()
endfunction()

# Debug info makes up most of a RelWithDebInfo binary; the bundle is for running, not debugging.
if(STRIP)
  run_tool(${STRIP} --strip-unneeded ${stage}/bin/opsched-cli)
  foreach(so IN LISTS bundled)
    run_tool(${STRIP} --strip-unneeded ${stage}/lib/${so})
  endforeach()
else()
  message(WARNING "make_cli_bundle: no strip found; the bundle keeps its debug info")
endif()

# RUNPATH on every file: the binary finds its libraries in ../lib and each library finds its own
# dependencies beside it (a RUNPATH does not reach a library's dependencies, so each needs one).
run_tool(${PATCHELF} --set-rpath "$ORIGIN/../lib" ${stage}/bin/opsched-cli)
foreach(so IN LISTS bundled)
  run_tool(${PATCHELF} --set-rpath "$ORIGIN" ${stage}/lib/${so})
endforeach()

# The oldest machine the bundle runs on is set by the newest glibc / libstdc++ symbol versions it uses.
set(glibc_max "")
set(glibcxx_max "")
find_program(OBJDUMP objdump)
foreach(f bin/opsched-cli ${bundled})
  if(NOT f MATCHES "^bin/")
    set(f lib/${f})
  endif()
  execute_process(COMMAND ${OBJDUMP} -T ${stage}/${f} OUTPUT_VARIABLE syms ERROR_QUIET)
  string(REGEX MATCHALL "GLIBC_[0-9]+(\\.[0-9]+)+" glibc_versions "${syms}")
  string(REGEX MATCHALL "GLIBCXX_[0-9]+(\\.[0-9]+)+" glibcxx_versions "${syms}")
  foreach(v IN LISTS glibc_versions)
    string(REPLACE "GLIBC_" "" v ${v})
    if(glibc_max STREQUAL "" OR v VERSION_GREATER glibc_max)
      set(glibc_max ${v})
    endif()
  endforeach()
  foreach(v IN LISTS glibcxx_versions)
    string(REPLACE "GLIBCXX_" "" v ${v})
    if(glibcxx_max STREQUAL "" OR v VERSION_GREATER glibcxx_max)
      set(glibcxx_max ${v})
    endif()
  endforeach()
endforeach()

list(JOIN bundled "\n  " bundled_lines)
list(JOIN OPSCHED_BUNDLE_SYSTEM_LIB_NAMES ", " system_names)
file(WRITE ${stage}/README.txt
"opsched-cli ${VERSION}, relocatable build for Linux x86-64

Unpack anywhere and run bin/opsched-cli; it finds its libraries in lib/ through its RUNPATH
($ORIGIN/../lib), so nothing needs to be installed and LD_LIBRARY_PATH needs no entry for them.

  tar xzf ${name}.tar.gz
  ${name}/bin/opsched-cli --help
  ${name}/bin/opsched-cli devices

Bundled libraries (lib/):
  ${bundled_lines}

Taken from the machine: ${system_names}.
It needs glibc >= ${glibc_max} and libstdc++ with GLIBCXX_${glibcxx_max}.

GPU use: the CUDA runtime is linked in; the NVIDIA driver (libcuda.so.1), cuDNN 9 (libcudnn.so.9)
and CUPTI (libcupti.so.13) are opened from the machine at run time. If they live outside the
loader's default paths (e.g. in a Python venv's site-packages/nvidia/*/lib), add those folders to
LD_LIBRARY_PATH. `opsched-cli devices` says what it found.
")

# Packed from OUT_DIR so that the tarball unpacks into one folder, <name>/.
execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${tarball} ${name}
  WORKING_DIRECTORY ${OUT_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_cli_bundle: could not write ${tarball}")
endif()
if(NOT KEEP_DIR)
  file(REMOVE_RECURSE ${stage})
endif()

file(SIZE ${tarball} size)
math(EXPR size_kib "${size} / 1024")
list(LENGTH bundled count)
message(STATUS "opsched-cli bundle: ${tarball} (${size_kib} KiB, ${count} libraries, needs glibc >= ${glibc_max})")
