# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DSCRATCH=... -DGENERATOR=... -DHAS_MPI=0|1 -P installed_tree.cmake
# Installs BUILD_DIR into SCRATCH/prefix and uses only what was installed.
cmake_minimum_required(VERSION 3.25)
set(prefix ${SCRATCH}/prefix)
file(REMOVE_RECURSE ${SCRATCH})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Every file a user relies on is where the documentation says.
set(expected bin/collcheck share/collcheck/schedule.schema.json share/doc/collcheck/README.md
    share/man/man1/collcheck.1 share/bash-completion/completions/collcheck
    include/collcheck/schedules/schedule.hpp include/collcheck/properties/instance_checker.hpp
    include/collcheck/collcheck_version.hpp)
if(HAS_MPI)
  list(APPEND expected bin/collcheck-mpi share/man/man1/collcheck-mpi.1 share/bash-completion/completions/collcheck-mpi)
endif()
foreach(f ${expected})
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()

# The CMake package, in lib/ or lib/<multiarch>/ (GNUInstallDirs, by prefix).
file(GLOB config ${prefix}/lib/cmake/collcheck/collcheckConfig.cmake ${prefix}/lib/*/cmake/collcheck/collcheckConfig.cmake)
if(NOT config)
  message(FATAL_ERROR "the install has no lib/[<multiarch>/]cmake/collcheck/collcheckConfig.cmake")
endif()

# The installed binary verifies a range.
run("installed collcheck verify" ${prefix}/bin/collcheck verify --algo swing --p 1..64)
if(NOT out MATCHES "RESULT: holds")
  message(FATAL_ERROR "installed collcheck verify did not say RESULT: holds:\n${out}")
endif()

# The man page is roff that man(1) can format, and it lists every subcommand.
file(READ ${prefix}/share/man/man1/collcheck.1 man)
foreach(cmd list verify dump check-file run prove analyze report fuzz)
  if(NOT man MATCHES "\\.SS ${cmd}\n")
    message(FATAL_ERROR "the man page has no section for '${cmd}'")
  endif()
endforeach()

# The example project, against the installed package only.
run("example configure" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/build-a-schedule -B ${SCRATCH}/example
    -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run("example build" ${CMAKE_COMMAND} --build ${SCRATCH}/example)
run("example run" ${SCRATCH}/example/ring_allreduce)
if(NOT out MATCHES "as expected: the ring holds, the broken ring is refuted")
  message(FATAL_ERROR "the example did not refute its broken ring:\n${out}")
endif()
message(STATUS "installed tree: ${prefix}\n${out}")
