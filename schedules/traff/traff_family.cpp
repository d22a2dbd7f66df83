// The Träff family (J. L. Träff, "Round-optimal n-block broadcast schedules
// in logarithmic time"): the circulant-graph broadcast (Algorithm 1), its
// all-broadcast (Algorithm 7), the reversed reduction and reduce-scatter
// (Observations 1.3, 1.4) and an allreduce composed of them. Every variant
// runs the table properties traff-conditions and traff-bounds
// (properties/traff/traff_properties.cpp). Instance: --n is the number of
// BLOCKS per rank (traff::Params::blocks, default 8), --root for the rooted
// collectives.
#include "schedules/traff/traff_family.hpp"

#include "schedules/swing/swing_math.hpp"
#include "schedules/traff/traff_allgather.hpp"
#include "schedules/traff/traff_allreduce.hpp"
#include "schedules/traff/traff_broadcast.hpp"
#include "schedules/traff/traff_reduce.hpp"
#include "schedules/traff/traff_reduce_scatter.hpp"

namespace collcheck {
namespace traff {

Params resolve(const InstanceParams& ip) {
  return Params{ip.p, ip.blocks ? ip.blocks : kDefaultBlocks, ip.root};
}

namespace {

using swing::ceil_log2;

// The block count of an instance (--n, default 8).
uint32_t traff_n(const InstanceParams& i) { return resolve(i).blocks; }

// What every Träff variant shares: the table properties, the instance
// options and the root rule.
VariantInfo traff_base(const std::string& name, bool rooted) {
  VariantInfo v;
  v.name = name;
  v.family_properties = {"traff-conditions", "traff-bounds"};  // properties/catalog.hpp
  if (rooted) {
    v.restriction = "0 <= root < p";
    v.options = {"n", "root"};
    v.violates = [](const InstanceParams& i) -> std::optional<std::string> {
      if (i.root >= i.p) return "root must be in 0..p-1";
      return std::nullopt;
    };
  } else {
    v.restriction = "no root (root must be 0)";
    v.options = {"n"};
    v.violates = [name](const InstanceParams& i) -> std::optional<std::string> {
      if (i.root != 0) return "root does not apply to " + name + " (every rank is a root)";
      return std::nullopt;
    };
  }
  return v;
}

// `phases` times n-1+q rounds, `volume` blocks per rank; nothing for p = 1.
Claim traff_claim(const InstanceParams& i, int phases, uint64_t volume, std::string steps_formula,
                  std::string volume_formula, std::string source) {
  if (i.p == 1) return Claim{0, 0, "0", "0", "trivial"};
  return Claim{phases * (static_cast<int>(traff_n(i)) - 1 + ceil_log2(i.p)), volume, std::move(steps_formula),
               std::move(volume_formula), std::move(source)};
}

VariantInfo traff_broadcast() {
  VariantInfo v = traff_base("broadcast", true);
  v.summary = "Algorithm 1: n-block broadcast (default n = 8) over the circulant graph with skips of Algorithm 2";
  v.reference = "Träff, round-optimal n-block broadcast schedules, Algorithms 1-6, Sec. 2";
  v.make = [](const InstanceParams& i) {
    return std::make_unique<TraffBroadcast>(i.p, traff_n(i), i.root);
  };
  v.claim = [](const InstanceParams& i) {
    const uint64_t n = traff_n(i);
    return traff_claim(i, 1, n - 1 + static_cast<uint64_t>(ceil_log2(i.p)), "n-1+ceil(log2 p)",
                 "n-1+q blocks (one per round; the root sends in every round)",
                 "Träff Sec. 1-2: n-1+q rounds, round-optimal");
  };
  return v;
}

VariantInfo traff_allgather() {
  VariantInfo v = traff_base("allgather", false);
  v.summary = "Algorithm 7: n-block all-broadcast (default n = 8 blocks per rank), the p broadcasts of Algorithm 1 "
              "combined into one message per round";
  v.reference = "Träff, round-optimal n-block broadcast schedules, Appendix A, Algorithm 7 (with Algorithms 1-5)";
  v.make = [](const InstanceParams& i) {
    return traff_circulant_certified(std::make_unique<TraffAllgather>(i.p, traff_n(i)), traff_n(i));
  };
  v.symmetry = SymmetryGroup::translations;
  v.claim = [](const InstanceParams& i) {
    const uint64_t n = traff_n(i);
    return traff_claim(i, 1, n * (i.p - 1), "n-1+ceil(log2 p)",
                 "n(p-1) of the n*p blocks (every rank sends exactly this many)",
                 "Träff App. A: n-1+q rounds as Algorithm 1; volume derived by collcheck: rank r's sends over "
                 "all roots j are one whole Algorithm 1 broadcast (r' = r-j runs over all ranks), in which "
                 "each non-root rank receives blocks 0..n-1 exactly once");
  };
  return v;
}

// Observation 1.3: Algorithm 1 reversed. `dedup` keeps only each rank's first
// broadcast receipt of a block (default) or reverses every transfer (literal).
VariantInfo traff_reduce(const std::string& name, TraffReduce::Dedup dedup) {
  VariantInfo v = traff_base(name, true);
  if (dedup == TraffReduce::Dedup::first_receipt) {
    v.summary = "Observation 1.3: Algorithm 1 reversed (default n = 8), keeping each rank's first broadcast receipt "
                "of a block (a capped repeat of block n-1 is dropped; none occurs, see traff_reduce.hpp)";
  } else {
    v.summary = "Observation 1.3 read literally: every transfer of Algorithm 1 reversed, capped repeats included "
                "(identical to `reduce`: Algorithm 1 never repeats a block, Theorem 1)";
  }
  v.reference = "Träff, round-optimal n-block broadcast schedules, Sec. 1 Observation 1.3 (Algorithm 1 reversed)";
  v.make = [dedup](const InstanceParams& i) {
    return std::make_unique<TraffReduce>(i.p, traff_n(i), i.root, dedup);
  };
  v.claim = [](const InstanceParams& i) {
    const uint64_t n = traff_n(i);
    return traff_claim(i, 1, n, "n-1+ceil(log2 p)",
                 "n blocks (every non-root rank sends each partial block once; the root sends nothing)",
                 "Träff Obs. 1.3: reversing Algorithm 1 gives n-1+q rounds; \"Each non-root process will send "
                 "each partial result block exactly once\"");
  };
  return v;
}

VariantInfo traff_reduce_scatter() {
  VariantInfo v = traff_base("reduce-scatter", false);
  v.summary = "Observation 1.4: Algorithm 7 reversed (default n = 8 blocks per rank), the p reductions of "
              "Observation 1.3 in one message per round, first-receipt de-duplication per root";
  v.reference = "Träff, round-optimal n-block broadcast schedules, Sec. 1 Observation 1.4, Appendix A (Algorithm 7)";
  v.make = [](const InstanceParams& i) {
    return traff_circulant_certified(std::make_unique<TraffReduceScatter>(i.p, traff_n(i)), traff_n(i));
  };
  v.symmetry = SymmetryGroup::translations;
  v.claim = [](const InstanceParams& i) {
    const uint64_t n = traff_n(i);
    return traff_claim(i, 1, n * (i.p - 1), "n-1+ceil(log2 p)",
                 "n(p-1) of the n*p blocks (every rank sends exactly this many)",
                 "Träff Obs. 1.4: round-optimal; \"Each partial result block for all processes is sent and received "
                 "once for a total volume of p-1 blocks\" (n = 1); n(p-1) for n blocks derived by collcheck");
  };
  return v;
}

VariantInfo traff_allreduce() {
  VariantInfo v = traff_base("allreduce", false);
  v.summary = "Observation 1.4's reduce-scatter followed by Algorithm 7's allgather (default n = 8 blocks per rank)";
  v.reference = "Träff, round-optimal n-block broadcast schedules, Sec. 1 Observation 1.4, Appendix A (Algorithm 7)";
  v.make = [](const InstanceParams& i) {
    return traff_circulant_certified(std::make_unique<TraffAllreduce>(i.p, traff_n(i)), traff_n(i));
  };
  v.symmetry = SymmetryGroup::translations;
  v.claim = [](const InstanceParams& i) {
    const uint64_t n = traff_n(i);
    return traff_claim(i, 2, 2 * n * (i.p - 1), "2(n-1+ceil(log2 p))",
                 "2n(p-1) of the n*p blocks (n(p-1) per phase, every rank)",
                 "derived by collcheck: Obs. 1.4's reduce-scatter (n-1+q rounds, n(p-1) blocks) followed by "
                 "Algorithm 7 (the same); the paper gives no allreduce schedule of its own");
  };
  return v;
}
}  // namespace
}  // namespace traff

Family traff_family() {
  using namespace traff;
  auto algo = [](AlgorithmKind k, std::string name, Collective c, std::string summary, std::vector<VariantInfo> vs,
                 Capabilities caps = {}) {
    return family::algorithm(FamilyId::traff, static_cast<int>(k), std::move(name), c, std::move(summary),
                             std::move(vs), caps);
  };
  Capabilities tables;
  tables.traff_table_format = true;
  Capabilities no_flat_bound;
  no_flat_bound.flat_step_bound = false;  // n blocks per rank: no simple step bound encoded
  return {FamilyId::traff,
          {algo(AlgorithmKind::broadcast, "traff", Collective::broadcast,
                "Träff's round-optimal circulant-graph broadcast (Algorithm 1); the other Träff collectives are "
                "traff-allgather, traff-reduce, traff-reduce-scatter and traff-allreduce",
                {traff_broadcast()}, tables),
           // The registry's collective is per algorithm, so Algorithm 7 is its own entry.
           algo(AlgorithmKind::allgather, "traff-allgather", Collective::allgather,
                "Träff's round-optimal circulant-graph all-broadcast (allgather, Algorithm 7)", {traff_allgather()},
                no_flat_bound),
           algo(AlgorithmKind::reduce, "traff-reduce", Collective::reduce,
                "Träff's round-optimal circulant-graph reduction to a root (Observation 1.3: Algorithm 1 reversed)",
                {traff_reduce("reduce", TraffReduce::Dedup::first_receipt),
                 traff_reduce("paper-reversed", TraffReduce::Dedup::none)}),
           algo(AlgorithmKind::reduce_scatter, "traff-reduce-scatter", Collective::reduce_scatter,
                "Träff's round-optimal circulant-graph reduce-scatter (Observation 1.4: Algorithm 7 reversed)",
                {traff_reduce_scatter()}),
           algo(AlgorithmKind::allreduce, "traff-allreduce", Collective::allreduce,
                "Träff's circulant-graph allreduce: Observation 1.4's reduce-scatter, then Algorithm 7",
                {traff_allreduce()})}};
}

}  // namespace collcheck
