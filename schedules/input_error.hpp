#pragma once
// Bad input (the first kind of error; broken internal invariants, the second,
// are schedules/check.hpp): unknown names, malformed ranges, malformed
// schedule files. The CLI prints what() on one line and exits 2.
#include <stdexcept>
#include <string>

namespace collcheck {

struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace collcheck
