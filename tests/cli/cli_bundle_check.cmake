# Builds the relocatable CLI bundle from the already-built opsched-cli (no rebuild), unpacks it into
# a fresh folder and checks that it is self-contained:
#  - bin/opsched-cli, lib/, README.txt, LICENSE; stripped; RUNPATH $ORIGIN/../lib; tarball under 64 MiB;
#  - with an empty LD_LIBRARY_PATH, every library of bin/opsched-cli and of each bundled library
#    that is not on the system allow-list (cmake/cli_bundle_system_libs.cmake) resolves inside
#    the bundle;
#  - `info zoo:squeezenet`, `devices` and `--version` run from it;
#  - as root: the same commands in a chroot that holds only the bundle and the allow-listed
#    system libraries, i.e. a machine without Qt, ONNX, protobuf or oneDNN.
# cmake -DCLI=... -DVERSION=... -DWORK=dir -DSOURCE_DIR=repo [-DSTRIP=strip] -P cli_bundle_check.cmake
cmake_minimum_required(VERSION 3.25)

find_program(PATCHELF patchelf)
if(NOT PATCHELF)
  # Matched by the test's SKIP_REGULAR_EXPRESSION: reported as Skipped, not Passed.
  message("skipped: patchelf not installed (packaging/install-deps.sh installs it)")
  return()
endif()

include(${SOURCE_DIR}/cmake/cli_bundle_system_libs.cmake)

function(fail)
  string(JOIN "" text ${ARGN})
  message(FATAL_ERROR "cli bundle: ${text}")
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/out ${WORK}/unpacked)
execute_process(COMMAND ${CMAKE_COMMAND} -DCLI=${CLI} -DVERSION=${VERSION} -DOUT_DIR=${WORK}/out -DSTRIP=${STRIP}
                        -P ${SOURCE_DIR}/cmake/make_cli_bundle.cmake
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  fail("make_cli_bundle.cmake failed (${rc}):\n${out}${err}")
endif()
message("${out}${err}")

set(name opsched-cli-${VERSION}-linux-x86_64)
set(tarball ${WORK}/out/${name}.tar.gz)
if(NOT EXISTS ${tarball})
  fail("no tarball ${tarball}")
endif()
file(SIZE ${tarball} size)
if(size GREATER 67108864)
  fail("${tarball} is ${size} bytes, over 64 MiB (the GPU machine's carry limit)")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf ${tarball} WORKING_DIRECTORY ${WORK}/unpacked RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  fail("cannot unpack ${tarball}")
endif()
set(root ${WORK}/unpacked/${name})
foreach(p bin/opsched-cli lib README.txt LICENSE)
  if(NOT EXISTS ${root}/${p})
    fail("${p} missing from the tarball")
  endif()
endforeach()
set(exe ${root}/bin/opsched-cli)

execute_process(COMMAND readelf -d ${exe} OUTPUT_VARIABLE dyn)
if(NOT dyn MATCHES "(RUNPATH|RPATH)[^\n]*\\[\\$ORIGIN/\\.\\./lib\\]")
  fail("bin/opsched-cli has no RUNPATH $ORIGIN/../lib:\n${dyn}")
endif()
execute_process(COMMAND readelf -S ${exe} OUTPUT_VARIABLE sections)
if(sections MATCHES "\\.debug_info")
  fail("bin/opsched-cli is not stripped")
endif()

# Every dependency resolves inside the bundle unless it is a system library.
file(GLOB libs ${root}/lib/*)
set(problems "")
foreach(f ${exe} ${libs})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH --unset=LD_PRELOAD ldd ${f}
    RESULT_VARIABLE rc OUTPUT_VARIABLE ldd_out ERROR_VARIABLE ldd_err)
  if(NOT rc EQUAL 0)
    fail("ldd ${f} failed: ${ldd_err}")
  endif()
  string(REPLACE "\n" ";" lines "${ldd_out}")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    if(line MATCHES "^([^ ]+) => ([^ ]+)")
      set(dep ${CMAKE_MATCH_1})
      set(where ${CMAKE_MATCH_2})
    elseif(line MATCHES "^([^ ]+) \\(0x")
      get_filename_component(dep ${CMAKE_MATCH_1} NAME) # the loader or the vDSO
      set(where ${CMAKE_MATCH_1})
    else()
      continue()
    endif()
    if(EXISTS "${where}")
      file(REAL_PATH "${where}" where) # ldd prints bin/../lib/...
    endif()
    string(FIND "${where}" "${root}/lib/" in_bundle)
    set(system FALSE)
    foreach(re IN LISTS OPSCHED_BUNDLE_SYSTEM_LIB_REGEXES)
      if(dep MATCHES "${re}")
        set(system TRUE)
      endif()
    endforeach()
    if(where STREQUAL "not")
      list(APPEND problems "${f}: ${dep} not found")
    elseif(NOT system AND NOT in_bundle EQUAL 0)
      list(APPEND problems "${f}: ${dep} resolves to ${where}, outside the bundle")
    endif()
  endforeach()
endforeach()
if(problems)
  list(JOIN problems "\n  " text)
  fail("libraries not taken from the bundle:\n  ${text}")
endif()

function(run_bundled label expect_regex)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("${label}: exit ${rc}\n${out}${err}")
  endif()
  if(NOT "${out}" MATCHES "${expect_regex}")
    fail("${label}: output does not match '${expect_regex}':\n${out}${err}")
  endif()
endfunction()
set(clean_env ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH --unset=LD_PRELOAD)
run_bundled("bin/opsched-cli --version" "opsched-cli ${VERSION}" ${clean_env} ${exe} --version)
run_bundled("bin/opsched-cli info zoo:squeezenet" "squeezenet.*ops +50 schedulable units" ${clean_env} ${exe} info zoo:squeezenet)
run_bundled("bin/opsched-cli devices" "CUDA|cuda" ${clean_env} ${exe} devices)

# A machine without the ONNX/protobuf/oneDNN/Qt packages: a chroot with the bundle and nothing but
# the allow-listed system libraries. Needs root (chroot); otherwise say it was not done.
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
find_program(CHROOT chroot PATHS /usr/sbin /sbin)
if(NOT uid STREQUAL "0" OR NOT CHROOT)
  message("note: chroot check not run (needs root and chroot)")
  return()
endif()
set(jail ${WORK}/jail)
file(MAKE_DIRECTORY ${jail}/opt ${jail}/tmp)
file(COPY ${root} DESTINATION ${jail}/opt)
execute_process(COMMAND ${clean_env} ldd ${exe} OUTPUT_VARIABLE ldd_out)
string(REGEX MATCHALL "(=> )?/[^ \n]+ \\(0x" system_paths "${ldd_out}")
foreach(p IN LISTS system_paths)
  string(REGEX REPLACE "^(=> )?(/[^ ]+) \\(0x$" "\\2" p "${p}")
  if(p MATCHES "^${root}/")
    continue()
  endif()
  file(REAL_PATH ${p} real)
  get_filename_component(dir ${p} DIRECTORY)
  get_filename_component(file_name ${p} NAME)
  file(MAKE_DIRECTORY ${jail}${dir})
  file(COPY_FILE ${real} ${jail}${dir}/${file_name})
endforeach()
set(jailed /opt/${name}/bin/opsched-cli)
# The loader resolves the binary's $ORIGIN through /proc/self/exe, which the chroot lacks (every real
# machine has /proc); LD_ORIGIN_PATH is glibc's documented fallback for exactly that case.
set(jail_env ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH --unset=LD_PRELOAD LD_ORIGIN_PATH=/opt/${name}/bin)
run_bundled("chroot: opsched-cli info zoo:squeezenet" "squeezenet.*ops +50 schedulable units"
  ${jail_env} ${CHROOT} ${jail} ${jailed} info zoo:squeezenet)
run_bundled("chroot: opsched-cli devices" "CUDA|cuda" ${jail_env} ${CHROOT} ${jail} ${jailed} devices)
file(GLOB_RECURSE jail_libs RELATIVE ${jail} ${jail}/lib*/*)
message("bundle ran in a chroot holding only the bundle and: ${jail_libs}")
