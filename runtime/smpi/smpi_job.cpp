#include "runtime/smpi/smpi_job.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <xbt/config.hpp>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <simgrid/s4u/Engine.hpp>

#include "runtime/trace/traced_calls.hpp"

// SimGrid's setters of the algorithm a collective runs (src/smpi/colls/
// smpi_coll.cpp, exported by libsimgrid but declared in a header it does not
// install): what its configuration calls at start-up for smpi/<coll>.
namespace simgrid::smpi::colls {
void set_allreduce(const std::string& name);
void set_reduce_scatter(const std::string& name);
void set_allgather(const std::string& name);
void set_bcast(const std::string& name);
void set_reduce(const std::string& name);
void set_alltoall(const std::string& name);
}  // namespace simgrid::smpi::colls

namespace collcheck::runtime::smpi {

namespace {
// The algorithms chosen in this job (select_algorithm), by configuration
// name: SimGrid's configuration keeps the launch's choice.
std::map<std::string, std::string>& selected() {
  static std::map<std::string, std::string> m;  // per rank: a privatized global
  return m;
}
}  // namespace

std::optional<std::string> select_algorithm(const std::string& coll, const std::string& name) {
  using Setter = void (*)(const std::string&);
  static const std::map<std::string, Setter> setters = {
      {"allreduce", simgrid::smpi::colls::set_allreduce}, {"reduce_scatter", simgrid::smpi::colls::set_reduce_scatter},
      {"allgather", simgrid::smpi::colls::set_allgather}, {"bcast", simgrid::smpi::colls::set_bcast},
      {"reduce", simgrid::smpi::colls::set_reduce},       {"alltoall", simgrid::smpi::colls::set_alltoall}};
  const auto it = setters.find(coll);
  if (it == setters.end())
    return "SMPI's algorithm can be chosen here for allreduce, reduce_scatter, allgather, bcast, reduce and "
           "alltoall, not '" + coll + "'";
  it->second(name);
  selected()[coll] = name;
  return std::nullopt;
}

std::string algorithm_in_force(const std::string& mpi_name) {
  // SMPI's configuration names (src/smpi/colls/smpi_coll.cpp): the MPI
  // name's tail in lower case; MPI_Reduce_scatter_block has no choice of its own.
  if (mpi_name.rfind("MPI_", 0) != 0 || mpi_name == "MPI_Reduce_scatter_block") return "";
  std::string coll = mpi_name.substr(4);
  for (char& c : coll) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (const auto it = selected().find(coll); it != selected().end())
    return " (SMPI's " + coll + " algorithm '" + it->second + "')";
  try {
    const std::string name = simgrid::config::get_value<std::string>("smpi/" + coll);
    return name.empty() ? " (SMPI's default " + coll + " algorithm)" : " (SMPI's " + coll + " algorithm '" + name + "')";
  } catch (const std::exception&) {
    return "";
  }
}

std::optional<std::string> unsupported_setup() {
  // SimGrid's own names for "off" (smpi/privatization: no, 0, off, false).
  const std::string mode = simgrid::config::get_value<std::string>("smpi/privatization");
  if (mode == "no" || mode == "0" || mode == "off" || mode == "false")
    return "collcheck-mpi keeps each rank's state in globals, which SMPI shares between ranks with "
           "smpi/privatization:" + mode + ": run it with mmap (scripts/smpi's default) or dlopen privatization";
  return std::nullopt;
}

std::optional<std::string> trace_unavailable() {
  const std::string mode = simgrid::config::get_value<std::string>("smpi/privatization");
  if (mode != "mmap")
    return "--trace under SMPI needs mmap privatization (scripts/smpi --privatization mmap, its default): with " +
           mode + " every rank has its own copy of collcheck-mpi's code, and the trace shim forwards to one";
  if (!dlsym(RTLD_DEFAULT, trace::kSetTraceHooks))
    return "--trace under SMPI needs libcollcheck_smpi_trace.so (built beside collcheck-mpi) preloaded into the "
           "simulation: scripts/smpi preloads it for --trace";
  return std::nullopt;
}

void install_trace_hooks(const trace::TraceHooks* hooks) {
  if (auto set = reinterpret_cast<trace::SetTraceHooks>(dlsym(RTLD_DEFAULT, trace::kSetTraceHooks))) set(hooks);
}

void on_deadlock(std::function<void()> cb) { simgrid::s4u::Engine::on_deadlock_cb(cb); }

void on_progress(std::function<void()> cb) {
  simgrid::s4u::Engine::on_time_advance_cb([cb](double) { cb(); });
}

std::string library_for_this_rank(const std::string& library) {
  const char* copies = std::getenv("COLLCHECK_SMPI_LIBRARY_COPIES");
  if ((copies && std::strcmp(copies, "one") == 0) || library.find('/') == std::string::npos) return library;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(library, ec)) return library;  // dlopen says why in its own words
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const fs::path dir = simgrid::config::get_value<std::string>("smpi/tmpdir");
  const fs::path copy = dir / ("collcheck-rank" + std::to_string(rank) + "-" + fs::path(library).filename().string());
  fs::copy_file(library, copy, fs::copy_options::overwrite_existing, ec);
  if (ec)
    throw std::runtime_error("cannot copy the --function library '" + library + "' for rank " + std::to_string(rank) +
                             " to " + copy.string() + ": " + ec.message() +
                             " (scripts/smpi --library-copies one loads one copy for every rank)");
  return copy.string();
}

}  // namespace collcheck::runtime::smpi
