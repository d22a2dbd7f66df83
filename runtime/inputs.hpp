#pragma once
// Input data for the executors (threads and MPI), shared so that both build
// exactly the same values.
//
// Vocabulary
//   element : one value of the user's vector; block b covers a contiguous
//             range of elements (threads: `elems_per_block` each; MPI: `count`
//             elements split into nblocks contiguous pieces).
//   index   : an element's global position in the vector. Inputs depend on
//             (seed, rank, index): rank-independent inputs hide misplaced
//             blocks, index-independent inputs hide misplaced elements.
//
// Sums (int64, float, double), nccl-tests style: every input is a small
// integer (1..15) times a power of two (1, 2, 4, 8), so every value is in
// 1..120 and every partial sum is an integer below 2^24 as long as fewer than
// 139,000 contributions meet in one element. All such integers are exact in
// float and double, so the sum is exact whatever the order of reduction and
// the result can be compared with ==. Every input is >= 1, so a missing or a
// doubled contribution always changes the sum.
//
// Non-commutative operator (MPICH allred3 style, which multiplies permutation
// matrices): every element is a permutation of 0..7 and reduction is
// composition, so x_0 * x_1 * ... * x_{p-1} is the only right answer.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "schedules/block_set.hpp"

namespace collcheck::runtime {

// int32: MPI_INT32_T, for implementations that take only MPI_INT / INT32
// (every input and sum of the executors and payloads fits it).
enum class DType { int64, float32, float64, int32 };
inline bool integral(DType d) { return d == DType::int64 || d == DType::int32; }
enum class ReduceOp { sum, permutation };

const char* to_string(DType d);        // "int64", "float", "double", "int32"
const char* to_string(ReduceOp op);    // "sum", "permutation"

// Block b's element range [lo, hi) when `count` elements are split into
// `nblocks` contiguous pieces (the first count % nblocks pieces get one more):
// how collcheck-mpi lays a schedule's blocks over the vector.
std::pair<uint64_t, uint64_t> block_elements(uint64_t count, uint64_t nblocks, Block b);
// Accepts "int64", "int32", "float", "double" (also "float32", "float64"); nullopt otherwise.
std::optional<DType> dtype_from_string(const std::string& s);

// A permutation of 0..7: element i maps to perm[i].
using Perm = std::array<uint8_t, 8>;
Perm identity_perm();
// The product a * b: first a, then b ((a * b)[i] = b[a[i]]). Associative,
// not commutative.
Perm compose(const Perm& a, const Perm& b);
std::string to_string(const Perm& x);  // "[3 1 0 2 7 6 5 4]"

// 64-bit mixing (splitmix64 finaliser).
uint64_t mix64(uint64_t x);

// The sum operator's input for (seed, rank, index): an integer in 1..120 of
// the form k * 2^e, k in 1..15, e in 0..3.
int64_t input_integer(uint64_t seed, Rank r, uint64_t index);
// The permutation operator's input for (seed, rank, index): a pseudo-random
// permutation of 0..7.
Perm input_perm(uint64_t seed, Rank r, uint64_t index);

}  // namespace collcheck::runtime
