#pragma once
// Which MPI a --function library was built against, read from the shared
// libraries it needs (the ELF dynamic section) before it is loaded: a
// library linked with Open MPI's libmpi and loaded into an MPICH or SMPI job
// (or any other pair) passes handles one library does not understand and
// crashes or answers garbage, so it is refused in one line instead.
#include <optional>
#include <string>

namespace collcheck::runtime::blackbox {

// "Open MPI", "MPICH", "SMPI" for a shared library's file name (libmpi.so.40,
// libmpich.so.12, libsimgrid.so.3.32, ...), or "" for none of them.
std::string mpi_family(const std::string& library_file_name);

// The family of the MPI this process runs on ("" if unknown).
std::string running_mpi_family();

// Why `path` cannot run in this job (it needs another MPI's library), or
// nothing: also nothing for a file that cannot be read as a 64-bit ELF
// shared object, which dlopen then reports in its own words.
std::optional<std::string> foreign_mpi(const std::string& path);

}  // namespace collcheck::runtime::blackbox
