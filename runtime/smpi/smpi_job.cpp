#include "runtime/smpi/smpi_job.hpp"

#include <mpi.h>
#include <xbt/config.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <simgrid/s4u/Engine.hpp>

namespace collcheck::runtime::smpi {

std::optional<std::string> unsupported_setup() {
  // SimGrid's own names for "off" (smpi/privatization: no, 0, off, false).
  const std::string mode = simgrid::config::get_value<std::string>("smpi/privatization");
  if (mode == "no" || mode == "0" || mode == "off" || mode == "false")
    return "collcheck-mpi keeps each rank's state in globals, which SMPI shares between ranks with "
           "smpi/privatization:" + mode + ": run it with mmap (scripts/smpi's default) or dlopen privatization";
  return std::nullopt;
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
