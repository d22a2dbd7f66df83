#pragma once
// The Trivance family's typed interface (schedules/family.hpp). In the paper
// (Trivance: Latency-Optimal AllReduce by Shortcutting Multiport Networks) n
// is the number of NODES, i.e. collcheck's p; InstanceParams::blocks (CLI
// --n) is Träff's block count and is not an option of this family.
#include <cstdint>
#include <string>
#include <vector>

#include "schedules/family.hpp"

namespace collcheck::trivance {

enum class AlgorithmKind { ring, torus };

// The typed instance: the paper's n (nodes on the ring; the torus: their
// product) and the torus sides (--dims; empty on the ring).
struct Params {
  uint64_t nodes = 1;
  std::vector<uint32_t> dims;
};
Params resolve(const InstanceParams& ip);

// The claim shapes Trivance and Bruck's allreduce share, for n nodes.
// Whole-vector variants (Trivance latency, Bruck latency): s steps and 2
// vectors per step (one per port) at n = 3^s; other n fold onto 3^t.
Claim whole_vector_claim(uint64_t n, const std::string& source);
// Reduce-scatter + allgather: 2 ceil(log3 n) steps, 2(n-1) blocks of m/n.
Claim two_phase_claim(uint64_t n, const std::string& source);

}  // namespace collcheck::trivance
