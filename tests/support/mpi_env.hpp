#pragma once
// For the tests that run collcheck under mpirun (tests/mpi/*_test.cpp): the
// test process itself runs with no launcher variables in its environment (so
// a plain `collcheck` never thinks it is an MPI rank), and mpirun may run as
// root (CI containers) and oversubscribe the cores.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace collcheck::test {

class MpiTestEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) unsetenv(v);
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  }
};

inline const auto* const kMpiTestEnvironment = ::testing::AddGlobalTestEnvironment(new MpiTestEnvironment);

}  // namespace collcheck::test
