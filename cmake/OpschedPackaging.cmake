# `cmake --build build --target package` builds a Debian package of what `cmake --install` puts in
# place: opsched, opsched-cli, the desktop entry, the AppStream metadata and the icon. The CUDA
# libraries are not bundled: a GPU machine has its own.
set(CPACK_PACKAGE_NAME opsched)
set(CPACK_PACKAGE_VENDOR "opsched developers")
set(CPACK_PACKAGE_CONTACT "opsched developers <opsched@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Explore inter-operator schedules of neural networks on GPUs")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Library dependencies come from the binaries themselves (dpkg-shlibdeps); libraries that no
# Debian package provides (the CUDA toolkit's) are left to the machine.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS /usr/local/cuda/lib64)
set(CPACK_STRIP_FILES ON)
include(CPack)

# `cmake --build build --target cli-bundle` packs opsched-cli and the non-system libraries it loads
# into build/opsched-cli-<version>-linux-x86_64.tar.gz, a relocatable tarball for machines without
# Qt or the ONNX/oneDNN packages (GPU servers). See cmake/make_cli_bundle.cmake.
add_custom_target(cli-bundle
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:opsched-cli> -DVERSION=${PROJECT_VERSION}
          -DOUT_DIR=${PROJECT_BINARY_DIR} -DSTRIP=${CMAKE_STRIP}
          -P ${PROJECT_SOURCE_DIR}/cmake/make_cli_bundle.cmake
  DEPENDS opsched-cli
  COMMENT "Packing the relocatable opsched-cli bundle"
  VERBATIM)
