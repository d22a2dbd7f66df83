#include "schedules/torus_cost.hpp"

#include <algorithm>
#include <cmath>

namespace collcheck::torus_cost {

namespace {
PrintedCost make(std::string name, std::string formula, double value, PrintedCost::Judge j, std::string note) {
  PrintedCost c;
  c.name = std::move(name);
  c.formula = std::move(formula);
  c.value = value;
  c.judge = j;
  c.note = std::move(note);
  return c;
}
}  // namespace

PrintedCost equal(std::string name, std::string formula, double value, std::string note) {
  return make(std::move(name), std::move(formula), value, PrintedCost::Judge::equal, std::move(note));
}
PrintedCost at_most(std::string name, std::string formula, double value, std::string note) {
  return make(std::move(name), std::move(formula), value, PrintedCost::Judge::at_most, std::move(note));
}
PrintedCost reported(std::string name, std::string formula, double value, std::string note) {
  return make(std::move(name), std::move(formula), value, PrintedCost::Judge::reported, std::move(note));
}

bool square(const std::vector<uint32_t>& dims) {
  return std::all_of(dims.begin(), dims.end(), [&](uint32_t d) { return d == dims.front(); });
}

double log2p(const InstanceParams& i) { return std::log2(static_cast<double>(i.p)); }

double side(const InstanceParams& i) {
  return std::pow(static_cast<double>(i.p), 1.0 / static_cast<double>(std::max<size_t>(1, i.dims.size())));
}

double truncated_bound(double printed, int digits) { return printed + std::pow(10.0, -digits); }

}  // namespace collcheck::torus_cost
