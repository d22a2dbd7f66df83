#pragma once
// `collcheck report --db FILE`: renders a sweep stored by `verify --db` in
// any report format (checker/sweep/results_store.hpp; docs/results-store.md), and
// the glue that attaches a results store to a verify sweep.
#include <memory>
#include <string>
#include <vector>

#include "checker/sweep/results_store.hpp"
#include "checker/sweep/sweep.hpp"

namespace collcheck {

// verify --db FILE [--resume]: opens (or creates) the store, validates it,
// starts a sweep row (planned = every job of sweep_jobs(req)) and installs
// req.reuse (only with `resume`) and req.on_finished. Runs
// check_restrictions(req) first, so a request that is bad input neither
// creates nor writes the store. Returns nullptr when `db` is empty (no --db;
// --resume without it is bad input). Under mpirun only rank 0 calls it
// (checker/sweep/mpi_shard.cpp).
std::unique_ptr<ResultsStore> attach_results_store(const std::string& db, bool resume, SweepRequest& req,
                                                   const std::string& cmdline, int threads);

}  // namespace collcheck
