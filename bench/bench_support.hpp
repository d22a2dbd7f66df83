#pragma once
// Shared by the benchmark targets: the process's peak resident set size.
#include <sys/resource.h>

namespace collcheck::bench {

inline double peak_rss_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB on Linux
}

}  // namespace collcheck::bench
