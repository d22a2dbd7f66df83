#include "schedules/formats/launcher_stdout.hpp"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

namespace collcheck {
namespace {

// An MCA parameter mpirun passed to the ranks is on (set, not 0 or false).
bool mca_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0;
}

}  // namespace

bool write_stdout_past_launcher() {
  // Open MPI's runtime, with mpirun (the HNP) as this node's daemon.
  const char* hnp = std::getenv("OMPI_MCA_orte_hnp_uri");
  const char* local = std::getenv("OMPI_MCA_orte_local_daemon_uri");
  if (!hnp || !local || !*hnp || std::strcmp(hnp, local) != 0) return false;
  for (const char* v : {"OMPI_MCA_orte_output_filename", "OMPI_MCA_orte_tag_output", "OMPI_MCA_orte_timestamp_output",
                        "OMPI_MCA_orte_xml_output"})
    if (mca_on(v)) return false;
  // mpirun is the parent (mpirun and mpiexec are links to orterun).
  const std::string parent = "/proc/" + std::to_string(::getppid());
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink(parent + "/exe", ec).filename().string();
  if (ec || (exe != "orterun" && exe != "mpirun" && exe != "mpiexec")) return false;
  // Ours is the pipe or terminal mpirun made; theirs a device or a pipe.
  struct stat ours = {}, theirs = {};
  const std::string target = parent + "/fd/1";
  if (::fstat(STDOUT_FILENO, &ours) != 0 || S_ISREG(ours.st_mode)) return false;
  if (::stat(target.c_str(), &theirs) != 0 || S_ISREG(theirs.st_mode) || S_ISDIR(theirs.st_mode)) return false;
  if (ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino) return false;
  // O_NONBLOCK: a pipe nobody reads fails (ENXIO) instead of blocking the open.
  const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    ::close(fd);
    return false;
  }
  std::cout.flush();
  std::fflush(stdout);
  const bool moved = ::dup2(fd, STDOUT_FILENO) == STDOUT_FILENO;  // dup2 clears close-on-exec
  ::close(fd);
  return moved;
}

bool under_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (const char* s = std::getenv(v); s && *s) return true;
  return false;
}

}  // namespace collcheck
