// The bucket family: the 2D concurrent bucket allreduce on a torus (Swing
// NSDI'24 Sec. 2.3.4, 5.2, Fig. 9), a baseline of the Swing paper's
// evaluation. Takes --dims only.
#include <algorithm>
#include <cmath>

#include "schedules/bucket/bucket_torus.hpp"
#include "schedules/family.hpp"
#include "schedules/torus_cost.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck {
namespace {

Claim bucket_claim(const InstanceParams& i, bool synchronized) {
  if (i.p == 1) return Claim{0, 0, "0", "0", "trivial"};
  int rs = 0;
  const uint32_t dmax = *std::max_element(i.dims.begin(), i.dims.end());
  for (uint32_t d : i.dims) rs += synchronized ? static_cast<int>(dmax) - 1 : static_cast<int>(d) - 1;
  return Claim{2 * rs, 2 * 2 * i.dims.size() * (i.p - 1), synchronized ? "2D (d_max - 1)" : "2 sum_d (d_d - 1)",
               "2D collectives x 2(p-1) blocks of m/(2Dp)",
               "Swing NSDI'24 Sec. 2.3.4 (D reduce-scatters then D allgathers of d - 1 steps each), Sec. 5.2"};
}

// Table 2's BUCKET row: Lambda = 2D p^(1/D) / log2 p (printed with the p-th
// root; the steps are 2D (d - 1): at most), on a non-square torus with the
// phases synchronized 2D d_max / log2 p (Sec. 5.2: at most); Psi = 1 (measured
// (p-1)/p: at most); Xi = 1 ("each link is used by at most one ring per
// direction"): equal on a square torus; on a non-square one the idle
// collectives leave some ports with more than others (reported). Trivance
// Table 2's Bucket Theta = 1: at most on a square torus.
TorusCostClaim bucket_cost(const InstanceParams& i, bool synchronized) {
  namespace tc = torus_cost;
  const double D = static_cast<double>(i.dims.size());
  const bool sq = tc::square(i.dims);
  const double dmax = *std::max_element(i.dims.begin(), i.dims.end());
  TorusCostClaim c;
  c.row = "Swing NSDI'24 Table 2, BUCKET; Trivance Table 2, Bucket";
  if (sq)
    c.values.push_back(tc::at_most("Lambda", "2D p^(1/D) / log2 p (printed p^(1/p))", 2 * D * tc::side(i) / tc::log2p(i),
                                   "measured 2D (d - 1) / log2 p"));
  else if (synchronized)
    c.values.push_back(tc::at_most("Lambda", "2D d_max / log2 p (Sec. 5.2)", 2 * D * dmax / tc::log2p(i),
                                   "measured 2D (d_max - 1) / log2 p"));
  c.values.push_back(tc::at_most("Psi", "1", 1, "measured (p-1)/p"));
  if (sq) {
    c.values.push_back(tc::equal("Xi", "1", 1));
    c.values.push_back(tc::at_most("Theta", "1", 1, "measured (p-1)/p"));
  } else {
    c.values.push_back(tc::reported("Xi", "1", 1,
                                    synchronized ? "Sec. 5.2 says unaffected; idle collectives load the ports unevenly"
                                                 : "Fig. 9: collectives share a dimension when they drift apart"));
  }
  return c;
}

VariantInfo bucket_variant(std::string name, bool synchronized) {
  VariantInfo v;
  v.name = std::move(name);
  v.summary = std::string("2D concurrent bucket (ring reduce-scatter per dimension, then the allgathers), ") +
              "collective c from dimension c mod D, + for c < D and - for the rest; " +
              (synchronized ? "the collectives move to the next dimension together (d_max - 1 steps per phase)"
                            : "each collective moves on when its own side is done (Fig. 9 as drawn)");
  v.reference = synchronized ? "Swing NSDI'24 Sec. 2.3.4, 5.2" : "Swing NSDI'24 Sec. 5.2, Fig. 9";
  v.restriction = "--dims d_0x..xd_{D-1}, any sides >= 1, product p";
  v.options = {"dims"};
  v.family_properties = {"torus-deficiency"};
  v.violates = [](const InstanceParams& i) { return torus_shape_problem(i.dims, i.p); };
  v.make = [synchronized](const InstanceParams& i) { return make_bucket_torus_certified(i.dims, synchronized); };
  v.symmetry = SymmetryGroup::torus_translations;
  v.claim = [synchronized](const InstanceParams& i) { return bucket_claim(i, synchronized); };
  v.torus_cost = [synchronized](const InstanceParams& i) { return bucket_cost(i, synchronized); };
  v.kind = synchronized ? 0 : 1;
  return v;
}

}  // namespace

Family bucket_family() {
  return {FamilyId::bucket,
          {family::algorithm(FamilyId::bucket, 0, "bucket", Collective::allreduce,
                             "bucket allreduce on a D-dimensional torus (--dims): 2D concurrent ring reduce-scatters and "
                             "allgathers, one dimension after the other (Swing NSDI'24 Sec. 2.3.4)",
                             {bucket_variant("torus", true), bucket_variant("torus-unsynchronized", false)})}};
}

}  // namespace collcheck
