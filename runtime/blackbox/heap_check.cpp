#include "runtime/blackbox/heap_check.hpp"

#include "runtime/smpi/smpi_job.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace collcheck::runtime::blackbox {

namespace {

constexpr const char* kDebugLibrary = "libc_malloc_debug.so.0";
constexpr const char* kOptOut = "COLLCHECK_MPI_HEAP_CHECK";
constexpr const char* kExecMark = "COLLCHECK_MPI_HEAP_CHECK_EXEC";

// The object that answers this program's malloc() calls ("" if unknown):
// the address the program itself binds (dlsym's unversioned lookup would
// find libc's default version, not the preloaded one).
std::string malloc_provider() {
  Dl_info info{};
  void* volatile f = reinterpret_cast<void*>(&::malloc);
  return f && dladdr(f, &info) && info.dli_fname ? info.dli_fname : "";
}

// In force only where malloc() really is the debug library's: an allocator
// preloaded before it (AddressSanitizer's, valgrind's) answers instead.
bool in_force() {
  const char* level = std::getenv("MALLOC_CHECK_");
  if (!level || std::strcmp(level, "3") != 0) return false;
  return malloc_provider().find(kDebugLibrary) != std::string::npos;
}

bool turned_off() {
  const char* v = std::getenv(kOptOut);
  return v && std::strcmp(v, "none") == 0;
}

// libc_malloc_debug.so.0 beside the libc this process runs on, or "".
std::string debug_library_path() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&std::free), &info) || !info.dli_fname) return "";
  std::string dir = info.dli_fname;
  const size_t slash = dir.rfind('/');
  if (slash == std::string::npos) return "";
  const std::string path = dir.substr(0, slash + 1) + kDebugLibrary;
  return access(path.c_str(), R_OK) == 0 ? path : "";
}

bool black_box_run(char** argv) {
  for (char** a = argv + 1; *a; ++a)
    if (std::strncmp(*a, "--native", 8) == 0 || std::strncmp(*a, "--function", 10) == 0) return true;
  return false;
}

}  // namespace

void reexec_with_heap_check(char** argv) {
  // Under SMPI this process is the whole simulation (smpimain): scripts/smpi
  // preloads the library for it instead.
  if (smpi::kUnderSmpi) return;
  if (!black_box_run(argv) || turned_off() || in_force() || std::getenv(kExecMark)) return;
  const std::string path = debug_library_path();
  if (path.empty()) return;
  const char* old = std::getenv("LD_PRELOAD");
  // After what is preloaded already: an allocator put first on purpose
  // (AddressSanitizer must come first) stays in front, and is named.
  const std::string preload = old && *old ? std::string(old) + ":" + path : path;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("MALLOC_CHECK_", "3", 1);
  setenv(kExecMark, "1", 1);  // never a second time, whatever the new process finds
  execv("/proc/self/exe", argv);
  // The exec failed: run without the check (heap_check_words says so).
  unsetenv("MALLOC_CHECK_");
  if (old) setenv("LD_PRELOAD", old, 1);
  else unsetenv("LD_PRELOAD");
}

std::string heap_check_words() {
  if (in_force()) return "glibc's malloc check (MALLOC_CHECK_=3)";
  if (turned_off()) return std::string("none (") + kOptOut + "=none)";
  const std::string provider = malloc_provider();
  if (!provider.empty() && provider.find("libc.so") == std::string::npos &&
      provider.find(kDebugLibrary) == std::string::npos)
    return "none of glibc's (malloc is " + provider + "'s)";
  if (smpi::kUnderSmpi)
    return std::string("none (glibc's ") + kDebugLibrary + " is preloaded by scripts/smpi, which did not start this run)";
  return std::string("none (glibc's ") + kDebugLibrary + " was not found or could not be preloaded)";
}

}  // namespace collcheck::runtime::blackbox
