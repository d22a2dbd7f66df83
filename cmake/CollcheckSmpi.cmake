# COLLCHECK_MPI_FLAVOUR=smpi: collcheck-mpi and its tests against SimGrid's
# SMPI (Debian's libsimgrid-dev) instead of an MPI found by FindMPI, so that
# the black box runs thousands of simulated ranks in one process.
#
#   MPI::MPI_CXX        SMPI's mpi.h and libsimgrid, and COLLCHECK_SMPI=1 for
#                       the few places where collcheck-mpi behaves differently
#                       when every rank is an actor of one process
#                       (runtime/smpi/smpi_job.hpp says which)
#   MPIEXEC_EXECUTABLE  scripts/smpi, which takes mpirun's -np N PROGRAM ARGS
#
# smpicc's own flags are not used: its forced include (smpi_helpers.h)
# redefines malloc, free, exit and sleep as macros, which is meant for user
# code. A user's --function library is built with smpicc (docs/guide/mpi.md).
find_path(SMPI_INCLUDE_PARENT smpi/mpi.h REQUIRED)
find_library(SIMGRID_LIBRARY simgrid REQUIRED)
add_library(MPI::MPI_CXX INTERFACE IMPORTED)
set_target_properties(MPI::MPI_CXX PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${SMPI_INCLUDE_PARENT}/smpi;${SMPI_INCLUDE_PARENT}"
  INTERFACE_LINK_LIBRARIES "${SIMGRID_LIBRARY}"
  INTERFACE_COMPILE_DEFINITIONS "COLLCHECK_SMPI=1")
set(MPIEXEC_EXECUTABLE ${PROJECT_SOURCE_DIR}/scripts/smpi CACHE FILEPATH "the MPI launcher" FORCE)
set(MPIEXEC_NUMPROC_FLAG -np)
