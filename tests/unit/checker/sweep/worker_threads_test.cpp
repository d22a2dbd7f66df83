// run_with_threads (checker/sweep/sweep.hpp, verify/check-file --threads): TBB
// runs exactly the requested number of threads, also more than
// the cores. A tbb::global_control alone (what --threads used to create) leaves
// the default arena at the cores this process may use, so `--threads 1000000`
// ran on 2 threads of a 2-core machine while the report said 1000000.
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "checker/sweep/sweep.hpp"

namespace collcheck {
namespace {

TEST(WorkerThreads, ExactlyTheRequestedConcurrency) {
  const int cores = tbb::info::default_concurrency();
  for (int threads : {1, 2, cores, cores + 3, 4 * cores + 1}) {
    SCOPED_TRACE(threads);
    int concurrency = 0;
    size_t allowed = 0;
    run_with_threads(threads, [&] {
      concurrency = tbb::this_task_arena::max_concurrency();
      allowed = tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
    });
    EXPECT_EQ(concurrency, threads);
    EXPECT_GE(allowed, static_cast<size_t>(threads));
  }
  // The control: a global_control alone does not raise the default arena
  // above the cores (the defect).
  tbb::global_control only(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(cores + 3));
  EXPECT_EQ(tbb::this_task_arena::max_concurrency(), cores);
}

TEST(WorkerThreads, ZeroIsTbbsDefault) {
  int concurrency = 0;
  run_with_threads(0, [&] { concurrency = tbb::this_task_arena::max_concurrency(); });
  EXPECT_EQ(concurrency, tbb::info::default_concurrency());
}

}  // namespace
}  // namespace collcheck
