# What `cmake --install` puts where (GNU install directories, as Debian,
# Z3 and oneTBB lay themselves out), in two components:
#
#   cli  bin/collcheck, bin/collcheck-mpi (when built), man pages, bash
#        completion, share/collcheck/schedule.schema.json, share/doc/collcheck/
#        (README.md, docs/, copyright: the LICENSE)
#   dev  the libraries as static archives with their public headers under
#        include/collcheck/, and the CMake package lib/cmake/collcheck/:
#        find_package(collcheck CONFIG) gives the imported targets
#          collcheck::schedules   the schedule model, generators, registry
#          collcheck::formats     schedule files (JSON, JSON lines, Träff tables, MSCCL XML)
#          collcheck::topology    networks and link load
#          collcheck::properties  the property checkers (check_schedule)
#          collcheck::reports     text, JSON, Markdown, JUnit, HTML reports
#          collcheck::runtime     the threaded executor
#          collcheck::smt         the Z3 queries
#        (examples/build-a-schedule/ builds against them), and
#        share/doc/libcollcheck-dev/copyright (the LICENSE).
#
# The same rules feed CPack (cmake/CollcheckPackaging.cmake): one .deb per
# component.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(COLLCHECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/collcheck)
set(COLLCHECK_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/collcheck)

# A prefix collcheck cannot write to: one clear line before CMake's own
# "file INSTALL cannot copy file" for the first file. (As root every prefix
# is writable except a read-only file system, which this also catches.)
install(CODE [[
  set(_cc_prefix "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
  set(_cc_probe "${_cc_prefix}/.collcheck-install-probe")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E make_directory "${_cc_prefix}"
                  RESULT_VARIABLE _cc_mkdir OUTPUT_QUIET ERROR_QUIET)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E touch "${_cc_probe}"
                  RESULT_VARIABLE _cc_touch OUTPUT_QUIET ERROR_QUIET)
  if(NOT _cc_mkdir EQUAL 0 OR NOT _cc_touch EQUAL 0)
    message(FATAL_ERROR "collcheck: cannot write to the install prefix ${_cc_prefix} "
                        "(read-only or not yours): choose another with --prefix DIR, or run the install with sudo")
  endif()
  file(REMOVE "${_cc_probe}")
]] ALL_COMPONENTS)

# --- cli ---------------------------------------------------------------------
install(TARGETS collcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
if(TARGET collcheck-mpi)
  install(TARGETS collcheck-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
endif()
# The man pages and bash completion, written by the binaries themselves from
# their option tables and the registry (checker/cli/manual.hpp).
set(COLLCHECK_MANUAL_DIR ${PROJECT_BINARY_DIR}/manual)
set(manual_programs collcheck)
if(TARGET collcheck-mpi)
  list(APPEND manual_programs collcheck-mpi)
endif()
set(manual_files "")
foreach(prog ${manual_programs})
  add_custom_command(OUTPUT ${COLLCHECK_MANUAL_DIR}/${prog}.1 ${COLLCHECK_MANUAL_DIR}/${prog}.bash
    COMMAND ${CMAKE_COMMAND} -E make_directory ${COLLCHECK_MANUAL_DIR}
    COMMAND $<TARGET_FILE:${prog}> --man-page > ${COLLCHECK_MANUAL_DIR}/${prog}.1
    COMMAND $<TARGET_FILE:${prog}> --bash-completion > ${COLLCHECK_MANUAL_DIR}/${prog}.bash
    DEPENDS ${prog}
    COMMENT "Writing the man page and bash completion of ${prog}")
  list(APPEND manual_files ${COLLCHECK_MANUAL_DIR}/${prog}.1 ${COLLCHECK_MANUAL_DIR}/${prog}.bash)
  install(FILES ${COLLCHECK_MANUAL_DIR}/${prog}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
  install(FILES ${COLLCHECK_MANUAL_DIR}/${prog}.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME ${prog} COMPONENT cli)
endforeach()
add_custom_target(collcheck_manual ALL DEPENDS ${manual_files})

install(FILES ${PROJECT_SOURCE_DIR}/docs/schedule.schema.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/collcheck COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)
# Debian's share/doc/<package>/copyright, in each package (the dev one below).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright
        COMPONENT cli)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT cli
        FILES_MATCHING PATTERN "*.md" PATTERN "*.json")

# --- dev ---------------------------------------------------------------------
set(COLLCHECK_EXPORTED cc_schedules cc_formats cc_topology cc_properties cc_reports cc_runtime cc_smt)
foreach(t ${COLLCHECK_EXPORTED})
  string(REGEX REPLACE "^cc_" "" short ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${short} OUTPUT_NAME collcheck_${short})
endforeach()
install(TARGETS ${COLLCHECK_EXPORTED} EXPORT collcheckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${COLLCHECK_INSTALL_INCLUDEDIR})
# Headers keep their spelling: #include "schedules/schedule.hpp" with
# include/collcheck/ on the include path (the imported targets set it).
# The MPI backend's headers (runtime/mpi_backend.hpp, blackbox/, trace/) stay
# out: its library is collcheck-mpi's, not exported.
foreach(dir schedules topology properties reports smt runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${COLLCHECK_INSTALL_INCLUDEDIR}/${dir}
          COMPONENT dev FILES_MATCHING PATTERN "*.hpp"
          PATTERN "mpi_backend.hpp" EXCLUDE PATTERN "blackbox_run.hpp" EXCLUDE PATTERN "pmpi_recorder.hpp" EXCLUDE
          PATTERN "trace_collect.hpp" EXCLUDE)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/collcheck_version.hpp
        DESTINATION ${COLLCHECK_INSTALL_INCLUDEDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/libcollcheck-dev
        RENAME copyright COMPONENT dev)

install(EXPORT collcheckTargets NAMESPACE collcheck:: DESTINATION ${COLLCHECK_INSTALL_CMAKEDIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/collcheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/collcheckConfig.cmake INSTALL_DESTINATION ${COLLCHECK_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the API, so only the same minor version matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/collcheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/collcheckConfig.cmake ${PROJECT_BINARY_DIR}/cmake/collcheckConfigVersion.cmake
        ${PROJECT_SOURCE_DIR}/cmake/FindZ3.cmake
        DESTINATION ${COLLCHECK_INSTALL_CMAKEDIR} COMPONENT dev)
