#include "runtime/smpi/smpi_job.hpp"

#include <xbt/config.hpp>
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

}  // namespace collcheck::runtime::smpi
