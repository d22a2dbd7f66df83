#include "checker/cli/dims_option.hpp"

#include <algorithm>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/p_range.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {

namespace {
uint64_t product(const std::vector<uint32_t>& shape) {
  uint64_t p = 1;
  for (uint32_t n : shape) p *= n;  // sides were bounded while parsing
  return p;
}
}  // namespace

std::vector<std::vector<uint32_t>> parse_dims_list(const std::string& text) {
  std::vector<std::vector<uint32_t>> shapes;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string shape = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (shape.empty()) throw InputError("--dims: empty shape in " + quote_input(text) + " (e.g. --dims 3x3,9x9)");
    std::vector<uint32_t> sides;
    uint64_t p = 1;
    size_t s = 0;
    while (true) {
      const size_t x = shape.find('x', s);
      const std::string side = shape.substr(s, x == std::string::npos ? std::string::npos : x - s);
      const bool digits = !side.empty() && side.size() <= 10 &&
                          std::all_of(side.begin(), side.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits)
        throw InputError("--dims: malformed shape " + quote_input(shape) + " (sides are positive integers joined by 'x', e.g. 3x3)");
      const uint64_t n = *parse_integer(side);  // the integer grammar of every option (cli_support.hpp)
      if (n < 1) throw InputError("--dims: a torus dimension must be >= 1, got 0 in " + quote_input(shape));
      // p = the product is a process count like --p's: the same limit (p_range.hpp).
      if (n > kMaxP || p * n > kMaxP)
        throw InputError("--dims: the torus " + shape + " has more than 2^24 nodes (the maximum p)");
      p *= n;
      sides.push_back(static_cast<uint32_t>(n));
      if (sides.size() > 16) throw InputError("--dims: at most 16 dimensions, " + quote_input(shape) + " has more");
      if (x == std::string::npos) break;
      s = x + 1;
    }
    for (const auto& other : shapes)
      if (other == sides) throw InputError("--dims: the shape " + shape + " is listed twice in " + quote_input(text));
    shapes.push_back(std::move(sides));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shapes;
}

std::vector<uint64_t> instance_ps(const boost::program_options::variables_map& vm, const std::string& missing) {
  if (!vm.count("dims")) {
    if (!vm.count("p")) throw InputError(missing);
    return parse_p_range(vm["p"].as<std::string>());
  }
  std::vector<uint64_t> ps;
  for (const auto& shape : parse_dims_list(vm["dims"].as<std::string>())) ps.push_back(product(shape));
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());  // 4x4x4 and 8x8: one p, two instances
  if (vm.count("p")) {
    const std::vector<uint64_t> given = parse_p_range(vm["p"].as<std::string>());
    if (given != ps) {
      std::string want;
      for (uint64_t p : ps) want += (want.empty() ? "" : ",") + std::to_string(p);
      throw InputError("--p " + vm["p"].as<std::string>() + " disagrees with --dims " + vm["dims"].as<std::string>() +
                       " (p = " + want + "; --dims alone sets p)");
    }
  }
  return ps;
}

}  // namespace collcheck
