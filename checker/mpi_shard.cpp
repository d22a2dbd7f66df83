#include "checker/mpi_shard.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/cli.hpp"
#include "checker/cost_model.hpp"
#include "checker/shard_plan.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (const char* s = std::getenv(v); s && *s) return true;
  return false;
}

namespace {

// What a rank sends to rank 0: one tag byte, then the encoded results or the
// error message.
constexpr char kResults = 'R', kInputError = 'I', kOutOfMemory = 'M', kInternalError = 'E';

// The balancing cost of a job: the claim-based work units, with the claimed
// volume standing in for the block count (no schedule is built to plan).
double job_cost(const SweepTarget& t, const SweepJob& j, const CheckOptions& o) {
  const InstanceParams ip = t.params(j.p, j.radix);
  if (t.variant->violates(ip)) return 1.0;
  try {
    const Claim c = t.variant->claim(ip);
    const auto nb = static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(c.volume_blocks, 1), UINT32_MAX));
    return instance_work(t, j.p, j.radix, nb, o).units();
  } catch (const std::exception&) {
    return 1000.0 + static_cast<double>(j.p) * static_cast<double>(j.p);  // the sweep reports the problem
  }
}

// Every rank's `mine` on rank 0 (empty elsewhere), in rounds whose total
// stays below INT_MAX bytes (MPI counts and displacements are int).
std::vector<std::string> gather_to_root(const std::string& mine, int rank, int size) {
  uint64_t len = mine.size();
  std::vector<uint64_t> lens(rank == 0 ? size : 0);
  MPI_Gather(&len, 1, MPI_UINT64_T, lens.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  uint64_t longest = 0;
  MPI_Allreduce(&len, &longest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  const uint64_t chunk = std::max<uint64_t>(1, (INT_MAX / 2) / static_cast<uint64_t>(size));
  std::vector<std::string> parts(rank == 0 ? size : 0);
  std::vector<int> counts(size), displs(size);
  std::vector<char> buf;
  for (uint64_t off = 0; off < longest; off += chunk) {
    const int send = static_cast<int>(std::min(chunk, len - std::min(len, off)));
    if (rank == 0) {
      int total = 0;
      for (int k = 0; k < size; ++k) {
        counts[k] = static_cast<int>(std::min(chunk, lens[k] - std::min(lens[k], off)));
        displs[k] = total;
        total += counts[k];
      }
      buf.resize(std::max(total, 1));
    }
    MPI_Gatherv(mine.data() + std::min(len, off), send, MPI_BYTE, buf.data(), counts.data(), displs.data(), MPI_BYTE,
                0, MPI_COMM_WORLD);
    if (rank == 0)
      for (int k = 0; k < size; ++k) parts[k].append(buf.data() + displs[k], static_cast<size_t>(counts[k]));
  }
  return parts;
}

// The exit code cli_main gives for an exception (checker/cli.cpp).
int exit_code_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError&) {
    return 2;
  } catch (const std::bad_alloc&) {
    return 2;
  } catch (...) {
    return 3;
  }
}

int run_sharded(const SweepRequest& req, const std::function<int(Report)>& finish) {
  const auto start = std::chrono::steady_clock::now();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<uint32_t> owner;
  Report mine;
  std::string payload;
  try {
    const std::vector<SweepJob> jobs = sweep_jobs(req);
    std::vector<double> cost(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) cost[i] = job_cost(req.targets[jobs[i].target], jobs[i], req.check);
    owner = partition_by_cost(cost, static_cast<uint32_t>(size));
    if (rank == 0 && req.progress) {  // the plan, on stderr (not with -q)
      std::vector<uint64_t> count(size, 0);
      for (uint32_t o : owner) ++count[o];
      const std::vector<double> load = part_loads(cost, owner, static_cast<uint32_t>(size));
      double total = 0, most = 0;
      for (double l : load) total += l, most = std::max(most, l);
      std::string counts;
      for (uint64_t c : count) counts += (counts.empty() ? "" : "/") + std::to_string(c);
      std::fprintf(stderr, "collcheck: sharded over %d MPI ranks: %s instances, estimated work max/mean %.3f\n", size,
                   counts.c_str(), total > 0 ? most / (total / size) : 1.0);
    }
    SweepRequest local = req;
    local.run_here = [&](size_t i) { return owner[i] == static_cast<uint32_t>(rank); };
    local.progress = req.progress && rank == 0;  // rank 0's share stands for the whole
    mine = run_sweep(local);
    std::vector<IndexedResult> out;
    if (rank != 0)
      for (size_t i = 0; i < owner.size(); ++i)
        if (owner[i] == static_cast<uint32_t>(rank)) out.push_back({i, std::move(mine.instances[i])});
    payload = kResults + (rank == 0 ? std::string() : encode_results(out));
  } catch (const InputError& e) {
    payload = kInputError + std::string(e.what());
  } catch (const std::bad_alloc&) {
    payload = std::string(1, kOutOfMemory);
  } catch (const std::exception& e) {
    payload = kInternalError + std::string(e.what());
  }
  const std::vector<std::string> parts = gather_to_root(payload, rank, size);
  int code = 0;
  std::exception_ptr failure;
  if (rank == 0) {
    try {
      for (int k = 0; k < size; ++k) {
        const std::string& part = parts[k];
        const std::string text = part.empty() ? "" : part.substr(1);
        if (part.empty()) throw std::runtime_error("MPI rank " + std::to_string(k) + " sent nothing");
        if (part[0] == kInputError) throw InputError(text);  // the same on every rank: the request's own error
        if (part[0] == kOutOfMemory) throw std::bad_alloc();
        if (part[0] == kInternalError) throw std::runtime_error("MPI rank " + std::to_string(k) + ": " + text);
      }
      size_t filled = 0, expected = 0;
      for (uint32_t o : owner) expected += o != 0;
      for (int k = 1; k < size; ++k)
        for (auto& [index, result] : decode_results(parts[k].substr(1))) {
          if (index >= owner.size() || owner[index] != static_cast<uint32_t>(k))
            throw std::runtime_error("MPI rank " + std::to_string(k) + " sent instance " + std::to_string(index) +
                                     ", which is not its own");
          mine.instances[index] = std::move(result);
          ++filled;
        }
      if (filled != expected)
        throw std::runtime_error("gathered " + std::to_string(filled) + " instance results, expected " +
                                 std::to_string(expected));
      const std::vector<SweepJob> jobs = sweep_jobs(req);  // every slot holds its own job's result
      for (size_t i = 0; i < jobs.size(); ++i)
        if (mine.instances[i].p != jobs[i].p ||
            mine.instances[i].algorithm != req.targets[jobs[i].target].algorithm->name)
          throw std::runtime_error("instance " + std::to_string(i) + " (MPI rank " + std::to_string(owner[i]) +
                                   ") is not the result of its job");
      mine.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      code = finish(std::move(mine));
    } catch (...) {
      failure = std::current_exception();
      code = exit_code_of(failure);
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failure) std::rethrow_exception(failure);  // cli_main prints it as the single process would
  return code;
}

// Only rank 0 talks: the other ranks' stdout and stderr go to /dev/null.
void silence() {
  std::fflush(stdout);
  std::fflush(stderr);
  const int fd = ::open("/dev/null", O_WRONLY);
  if (fd < 0) return;
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  ::close(fd);
}

}  // namespace

int mpi_cli_main(int argc, char** argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "collcheck: error: MPI_Init_thread failed (launched by an MPI launcher?)\n");
    return 2;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code;
  if (size == 1) {
    code = cli_main(argc, argv);
  } else {
    if (rank != 0) silence();
    code = cli_main(argc, argv, run_sharded);
  }
  MPI_Finalize();
  return code;
}

}  // namespace collcheck
