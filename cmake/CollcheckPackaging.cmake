# CPack: one Debian package per install component (cmake/CollcheckInstall.cmake),
# named and laid out as Debian's own are:
#
#   collcheck          bin/collcheck, bin/collcheck-mpi, man pages, bash
#                      completion, the schema, the docs. Depends: the shared
#                      libraries the binaries link, found by dpkg-shlibdeps
#                      (libz3-4, libtbb12, libboost-program-options1.74.0, ...).
#   libcollcheck-dev   the static libraries, headers and CMake package.
#                      Depends: the -dev packages of their public dependencies.
#
# Both carry the MIT license (LICENSE) as share/doc/<package>/copyright
# (cmake/CollcheckInstall.cmake); a Debian control file has no license field.
#
# scripts/package configures with CMAKE_INSTALL_PREFIX=/usr, builds, runs
# cpack and checks the result in a scratch root.
set(CPACK_PACKAGE_NAME collcheck)
set(CPACK_PACKAGE_VENDOR "collcheck")
set(CPACK_PACKAGE_CONTACT "collcheck maintainers <collcheck@users.noreply.github.com>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
# Each package's Description (first line: the summary). No
# CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put it before both.
string(CONCAT CPACK_DEBIAN_CLI_DESCRIPTION
  "verifier of collective-communication schedules\n"
  "collcheck proves or refutes collective-communication schedules (allreduce, reduce-scatter, allgather, "
  "broadcast, reduce, all-to-all) for every process count, rank, step and block of a range, with the minimal "
  "counterexample of a violation; collcheck-mpi checks MPI libraries' collectives as black boxes.")
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION
  "collcheck's libraries for C++: the schedule model and the checkers\n"
  "Static libraries, headers and the CMake package (find_package(collcheck CONFIG)) of the schedule model, "
  "the schedule formats, the property checkers, the reports, the threaded executor and the Z3 queries.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE "")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME collcheck)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
# collcheck-mpi is linked against Open MPI and runs under its launcher.
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "openmpi-bin")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libcollcheck-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libtbb-dev, nlohmann-json3-dev, libz3-dev, libpugixml-dev, cmake (>= 3.25)")
include(CPack)
