#pragma once
// Bad input (tier one of DESIGN.md's errors): unknown names, malformed ranges,
// malformed schedule files. The CLI prints what() on one line and exits 2.
#include <stdexcept>
#include <string>

namespace collcheck {

struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace collcheck
