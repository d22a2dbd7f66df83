#pragma once
// --dims: torus shapes for the algorithms that run on a torus (trivance-torus,
// the Trivance paper Sec. 5).
//
// Syntax     : a comma list of shapes, each n_0xn_1x..xn_{D-1} with every side
//              >= 1: "3x3", "3x3,9x9,4x4x4". A shape is one instance with
//              p = n_0 * .. * n_{D-1}, so --dims may replace --p; given both,
//              the p-range must list exactly the shapes' products. Bad input
//              (InputError, exit 2): an empty or malformed shape, a side < 1,
//              more than 16 sides, a product above kMaxP = 2^24 (the
//              limit of --p), a shape listed twice.
//              Shapes with one p (4x4x4, 8x8) are two instances of that p
//              (SweepTarget::radices() lists one index per shape).
#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace collcheck {

std::vector<std::vector<uint32_t>> parse_dims_list(const std::string& text);

// The p values of a command: the --p range, or the --dims products, or both
// when they agree; InputError(`missing`) when neither is given.
std::vector<uint64_t> instance_ps(const boost::program_options::variables_map& vm, const std::string& missing);

}  // namespace collcheck
