// collcheck-mpi: runs a registry algorithm's schedule with real MPI
// point-to-point calls on every rank of MPI_COMM_WORLD and compares the result
// with the MPI library's own MPI_Allreduce.
//
//   mpirun -np P collcheck-mpi --algo swing [--variant bandwidth]
//          [--dtype int64|float|double] [--count N] [--seed S] [--format text|json]
//
// Exit codes (DESIGN.md): 0 every rank matches, 1 a mismatch (or an unmatched
// schedule, which is not run because it would hang), 2 bad usage, 77 skipped
// (the variant's restriction excludes this p). Only rank 0 prints.
#include <mpi.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "runtime/mpi_backend.hpp"
#include "schedules/registry.hpp"

namespace po = boost::program_options;
using namespace collcheck;
using namespace collcheck::runtime;

namespace {

constexpr int kHolds = 0, kViolated = 1, kUsage = 2, kSkipped = 77;

struct UsageError {
  std::string what;
};

std::string known_algorithms() {
  std::string s;
  for (const auto& a : registry()) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

std::string known_variants(const AlgorithmInfo& a) {
  std::string s;
  for (const auto& v : a.variants) s += (s.empty() ? "" : ", ") + v.name;
  return s;
}

int run(int argc, char** argv, int me, int size) {
  po::options_description desc("collcheck-mpi options");
  std::string algo, variant, dtype_s = "int64", format = "text";
  uint64_t count = 1000, seed = 1;
  desc.add_options()("help,h", "show this help")(
      "algo", po::value(&algo), "registry algorithm (swing, recursive-doubling, ring, ...)")(
      "variant", po::value(&variant), "variant (default: the algorithm's first)")(
      "dtype", po::value(&dtype_s)->default_value("int64"), "int64, float or double")(
      "count", po::value(&count)->default_value(1000), "elements per rank (>= number of blocks)")(
      "seed", po::value(&seed)->default_value(1), "input seed")(
      "format", po::value(&format)->default_value("text"), "text or json");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError{e.what()};
  }
  if (vm.count("help")) {
    if (me == 0) {
      std::cout << "usage: mpirun -np P collcheck-mpi --algo NAME [--variant V] [--dtype int64|float|double]"
                   " [--count N] [--seed S] [--format text|json]\n"
                << desc;
    }
    return kHolds;
  }
  if (algo.empty()) throw UsageError{"--algo is required (known: " + known_algorithms() + ")"};
  const AlgorithmInfo* a = find_algorithm(algo);
  if (!a) throw UsageError{"unknown algorithm '" + algo + "' (known: " + known_algorithms() + ")"};
  const VariantInfo* v = variant.empty() ? &a->default_variant() : a->find_variant(variant);
  if (!v)
    throw UsageError{"unknown variant '" + variant + "' of " + algo + " (known: " + known_variants(*a) + ")"};
  if (a->collective != Collective::allreduce)
    throw UsageError{algo + " is a " + std::string(to_string(a->collective)) +
                     " algorithm; collcheck-mpi runs allreduce schedules only"};
  auto dtype = dtype_from_string(dtype_s);
  if (!dtype) throw UsageError{"unknown --dtype '" + dtype_s + "' (int64, float or double)"};
  if (format != "text" && format != "json") throw UsageError{"unknown --format '" + format + "' (text or json)"};

  InstanceParams params{static_cast<uint64_t>(size), 0};
  const std::string name = a->name + "/" + v->name;
  if (v->violates) {
    if (auto why = v->violates(params)) {
      if (me == 0) std::cout << "collcheck-mpi: " << name << " p=" << size << ": skipped: " << *why << "\n";
      return kSkipped;
    }
  }
  auto sched = v->make(params);
  if (count < sched->num_blocks())
    throw UsageError{"--count " + std::to_string(count) + " is smaller than the " +
                     std::to_string(sched->num_blocks()) + " blocks of " + name + " at p = " +
                     std::to_string(size)};

  MpiOptions opts{*dtype, count, seed};
  MpiResult res = run_allreduce_schedule(*sched, opts, MPI_COMM_WORLD);

  if (me == 0) {
    if (format == "json") {
      nlohmann::json j{{"tool", "collcheck-mpi"},
                       {"algorithm", a->name},
                       {"variant", v->name},
                       {"collective", to_string(a->collective)},
                       {"expected_to_hold", v->expected_to_hold},
                       {"p", size},
                       {"dtype", to_string(*dtype)},
                       {"count", count},
                       {"seed", seed},
                       {"steps", res.steps},
                       {"status", to_string(res.status)},
                       {"messages", res.messages},
                       {"bytes", res.bytes},
                       {"seconds", res.seconds},
                       {"reference_seconds", res.reference_seconds}};
      j["mismatch"] = nullptr;
      if (res.mismatch)
        j["mismatch"] = {{"rank", res.mismatch->rank},         {"block", res.mismatch->block},
                         {"index", res.mismatch->index},       {"expected", res.mismatch->expected},
                         {"actual", res.mismatch->actual}};
      if (!res.problem.empty()) j["problem"] = res.problem;
      std::cout << j.dump() << "\n";
    } else {
      std::ostringstream os;
      os << "collcheck-mpi: " << name << " p=" << size << " " << to_string(*dtype) << " count=" << count
         << " steps=" << res.steps << " messages=" << res.messages << " bytes=" << res.bytes;
      char t[64];
      std::snprintf(t, sizeof t, " time=%.6fs (MPI_Allreduce %.6fs)", res.seconds, res.reference_seconds);
      os << t << ": " << to_string(res.status);
      if (!res.problem.empty())
        os << ": " << res.problem;
      else if (res.mismatch)
        os << ": rank " << res.mismatch->rank << " block " << res.mismatch->block << " index "
           << res.mismatch->index << ": expected " << res.mismatch->expected << " (MPI_Allreduce), got "
           << res.mismatch->actual;
      else
        os << ": all " << size << " ranks match MPI_Allreduce";
      std::cout << os.str() << "\n";
    }
  }
  return res.status == Status::holds ? kHolds : kViolated;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code = kHolds;
  try {
    code = run(argc, argv, me, size);
  } catch (const UsageError& e) {
    // Every rank parses the same arguments, so every rank gets here together.
    if (me == 0) std::cerr << "collcheck-mpi: error: " << e.what << "\n";
    code = kUsage;
  } catch (const std::invalid_argument& e) {
    // run_allreduce_schedule's input checks: deterministic, so all ranks agree.
    if (me == 0) std::cerr << "collcheck-mpi: error: " << e.what() << "\n";
    code = kUsage;
  } catch (const std::exception& e) {
    // Internal error: ranks may disagree, so abort the whole job.
    std::cerr << "collcheck-mpi: rank " << me << ": internal error: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  std::cout.flush();
  MPI_Finalize();
  return code;
}
