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
