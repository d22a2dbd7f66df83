// The tunable-radix all-to-all family (Fan, Petruzza, Gilray, Kumar,
// "Configurable Algorithms for All-to-all Collectives"): TRA (Sec. III, with
// its ends r = 2, Bruck, and r = P, spread-out) and the two-layer TRA2
// (Sec. IV) with the readings of its printed rules. Every variant runs
// alltoall-delivery and tra-formulas (properties/tra/tra_properties.cpp);
// `collcheck analyze` analyses TRA's radix choice. The radix rule and TRA2's
// Q/r1/r2 defaults exist here only: tra::resolve.
#include "schedules/tra/tra_family.hpp"

#include <algorithm>

#include "schedules/int_math.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/translation_equivariant.hpp"
#include "schedules/tra/tra2.hpp"

namespace collcheck {
namespace tra {
namespace {

constexpr uint64_t kTraMaxP = tra::kMaxRanks;  // P*P blocks below 2^63

// The radix of a TRA variant: --radix or the paper's "optimal radix" r =
// sqrt(P) (Sec. III-B) rounded up, at least 2; bruck r = 2; spread-out r = P.
uint64_t radix(VariantKind kind, const InstanceParams& i) {
  switch (kind) {
    case VariantKind::bruck: return 2;
    case VariantKind::spread_out: return i.p;
    default: return i.radix ? i.radix : default_radix(i.p);
  }
}

// TRA2's instance: Q (--ppn, default the largest divisor of P that is <=
// sqrt(P)), N = P/Q (0 if Q does not divide P), r1 (--radix, default
// ceil(sqrt Q) clamped to 2..Q) and r2 (--radix2, default ceil(sqrt N)
// clamped to 2..N); a default radix is 0 for an empty phase (Q or N < 2).
struct Tra2Shape {
  uint64_t ppn, nodes, r1, r2;
};
Tra2Shape tra2_shape(const InstanceParams& i) {
  Tra2Shape s{};
  s.ppn = i.ppn;
  if (!s.ppn)
    for (uint64_t d = floor_sqrt(i.p); d >= 1; --d)
      if (i.p % d == 0) {
        s.ppn = d;
        break;
      }
  s.nodes = s.ppn && i.p % s.ppn == 0 ? i.p / s.ppn : 0;
  auto clamp_radix = [](uint64_t m) { return m >= 2 ? std::clamp<uint64_t>(ceil_sqrt(m), 2, m) : 0; };
  s.r1 = i.radix ? i.radix : clamp_radix(s.ppn);
  s.r2 = i.radix2 ? i.radix2 : clamp_radix(s.nodes);
  return s;
}

std::optional<std::string> tra_p_too_large(const InstanceParams& i) {
  if (i.p > kTraMaxP) return "P must be <= " + std::to_string(kTraMaxP) + " (P*P blocks)";
  return std::nullopt;
}

Claim tra_claim(uint64_t p, uint64_t r) {
  if (p < 2) return Claim{0, 0, "0", "0", "trivial: one process exchanges nothing"};
  const bool power = tra::prop_names(p, r) == "Prop. 1/2";
  Claim c;
  c.steps = static_cast<int>(tra::prop_rounds(p, r));
  c.volume_blocks = tra::prop_blocks(p, r);
  if (power) {
    c.steps_formula = "w(r-1), w = ceil(log_r P) (P = r^w)";
    c.volume_formula = "w(r-1) r^(w-1) blocks of n/P";
    c.source = r == p ? "Fan et al. Sec. III-A Prop. 1/2, stated for 2 <= r < P, applied at r = P = r^1 "
                        "(P-1 rounds; Sec. III-B says K = 16,384 at r = P = 16,384)"
                      : "Fan et al. Sec. III-A Prop. 1 (K) and Prop. 2 (D), P = r^w";
  } else {
    c.steps_formula = "w(r-1) - floor((r^w - P)/r^(w-1)), w = ceil(log_r P)";
    c.volume_formula = "sum over x < w, 1 <= z < r of Prop. 4's h blocks of n/P";
    c.source = "Fan et al. Sec. III-A Prop. 3 (K) and Prop. 4 (D), P < r^w";
  }
  return c;
}

VariantInfo tra_variant(VariantKind kind) {
  VariantInfo v;
  v.kind = static_cast<int>(kind);
  v.reference = "Fan et al., Configurable Algorithms for All-to-all Collectives, Sec. III (steps 1-3), "
                "Sec. III-A (Propositions 1-4), Figs. 1-3";
  v.family_properties = {"alltoall-delivery", "tra-formulas"};  // properties/catalog.hpp
  switch (kind) {
    case VariantKind::tra:
      v.name = "tra";
      v.summary = "tunable-radix all-to-all: rotation, w = ceil(log_r P) digits x 1..r-1 values (non-empty rounds "
                  "only), inverse rotation; --radix r (default ceil(sqrt P), the paper's optimal radix)";
      v.restriction = "2 <= r <= P (--radix); P*P < 2^63";
      v.options = {"radix"};
      v.violates = [](const InstanceParams& i) -> std::optional<std::string> {
        if (auto why = tra_p_too_large(i)) return why;
        if (i.radix && i.p == 1) return "radix r = " + std::to_string(i.radix) + " > P = 1 (one process exchanges nothing; omit --radix)";
        if (i.radix && (i.radix < 2 || i.radix > i.p))
          return "radix r = " + std::to_string(i.radix) + " must be in 2..P = " + std::to_string(i.p);
        return std::nullopt;
      };
      break;
    case VariantKind::bruck:
    case VariantKind::spread_out: {
      const bool bruck = kind == VariantKind::bruck;
      v.name = bruck ? "bruck" : "spread-out";
      v.summary = bruck ? "TRA with r = 2: Bruck's algorithm, ceil(log2 P) rounds"
                        : "TRA with r = P: one round per peer (the linear spread-out pattern), P-1 rounds, P-1 blocks";
      v.restriction = "P*P < 2^63";
      v.violates = tra_p_too_large;
      break;
    }
    default:
      break;  // the TRA2 kinds: tra2_variant
  }
  v.make = [kind](const InstanceParams& i) {
    return alltoall_translation_equivariant(
        std::make_unique<Tra>(i.p, i.p < 2 ? 2 : radix(kind, i)),
        "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + TRA's round "
        "rule reads the rank c only through c + z r^x, c - l and c + z r^x + g r^(x+1) mod P, peers and (source, "
        "destination) pairs alike (tra.hpp), tested against the direct generator at every rank for P <= 200 and "
        "255, 256");
  };
  v.symmetry = SymmetryGroup::translations;  // blocks as (source, destination) pairs
  v.claim = [kind](const InstanceParams& i) { return tra_claim(i.p, radix(kind, i)); };
  return v;
}

std::optional<std::string> tra2_violates(const InstanceParams& i) {
  if (auto why = tra_p_too_large(i)) return why;
  const Tra2Shape s = tra2_shape(i);
  if (i.p % s.ppn != 0)
    return "Q = " + std::to_string(s.ppn) + " processes per node (--ppn) must divide P = " + std::to_string(i.p);
  if (i.radix && s.ppn < 2)
    return "intra-node radix r1 = " + std::to_string(i.radix) + ": with Q = " + std::to_string(s.ppn) +
           " process per node there is no intra-node phase (omit --radix)";
  if (i.radix && (i.radix < 2 || i.radix > s.ppn))
    return "intra-node radix r1 = " + std::to_string(i.radix) + " must be in 2..Q = " + std::to_string(s.ppn);
  if (i.radix2 && s.nodes < 2)
    return "inter-node radix r2 = " + std::to_string(i.radix2) + ": with N = " + std::to_string(s.nodes) +
           " node there is no inter-node phase (omit --radix2)";
  if (i.radix2 && (i.radix2 < 2 || i.radix2 > s.nodes))
    return "inter-node radix r2 = " + std::to_string(i.radix2) + " must be in 2..N = P/Q = " + std::to_string(s.nodes);
  return std::nullopt;
}

// Sec. IV's K1 (K2) as printed: w(r-1) - floor(r - P/r^(w-1)) with P, not Q (N).
int64_t tra2_printed_rounds(uint64_t m, uint64_t r, uint64_t p) {
  if (m < 2) return 0;  // the phase is empty (w = 0: the formula has no meaning)
  const int w = tra::num_digits(m, r);
  int64_t top = 1;
  for (int x = 0; x + 1 < w; ++x) top *= static_cast<int64_t>(r);
  const int64_t ri = static_cast<int64_t>(r);
  return w * (ri - 1) - floor_div(ri * top - static_cast<int64_t>(p), top);
}

VariantInfo tra2_variant(VariantKind kind, const std::string& name) {
  VariantInfo v;
  v.name = name;
  v.kind = static_cast<int>(kind);
  v.reference = "Fan et al., Configurable Algorithms for All-to-all Collectives, Sec. IV (K1, K2), Sec. IV-A "
                "(intra- and inter-node steps 1-3), Figs. 5-7";
  v.restriction = "Q (--ppn) divides P; 2 <= r1 (--radix) <= Q; 2 <= r2 (--radix2) <= N = P/Q; P*P < 2^63";
  v.family_properties = {"alltoall-delivery", "tra-formulas"};  // properties/catalog.hpp
  v.options = {"radix", "radix2", "ppn"};
  v.violates = tra2_violates;
  const Tra2::Reading reading = kind == VariantKind::paper_literal ? Tra2::Reading::paper_literal : Tra2::Reading::intended;
  v.make = [reading](const InstanceParams& i) -> std::unique_ptr<Schedule> {
    const Tra2Shape s = tra2_shape(i);
    auto direct = std::make_unique<Tra2>(i.p, s.ppn, s.r1, s.r2, reading);
    if (reading != Tra2::Reading::intended) return direct;  // the printed signs read ni as -ni: not circulant
    // The torus of nodes x local indices: rank ni*Q + gp is (ni, gp), row-major.
    return torus_translation_equivariant(
        std::move(direct), BlockAction::pairs,
        {static_cast<uint32_t>(s.nodes), static_cast<uint32_t>(s.ppn)},
        "construction (every rank's transfers are rank 0's moved by the torus translation (ni, gp) -> (ni + a, gp + "
        "c) on N x Q, schedules/symmetry.hpp) + TRA2's rules read the node ni only through ni + z r2^x and the local "
        "index gp only through gp + z r1^x, and a position holds the block from (ni, s) to (i, s + j) with i, j, s "
        "moved alike (tra2.hpp's derivation), peers and (source, destination) pairs; tested against the direct "
        "generator at every rank for every P <= 64, every Q dividing it and every radix pair");
  };
  if (reading == Tra2::Reading::intended)
    v.symmetry = SymmetryGroup::torus_translations;  // on N x Q, blocks as (source, destination) pairs
  const bool printed = kind == VariantKind::paper_formulas;
  v.claim = [printed](const InstanceParams& i) {
    const Tra2Shape s = tra2_shape(i);
    if (i.p < 2) return Claim{0, 0, "0", "0", "trivial: one process exchanges nothing"};
    Claim c;
    c.volume_blocks = s.nodes * (s.ppn >= 2 ? tra::prop_blocks(s.ppn, s.r1) : 0) +
                      s.ppn * (s.nodes >= 2 ? tra::prop_blocks(s.nodes, s.r2) : 0);
    c.volume_formula = "N*D(Q, r1) + Q*D(N, r2) blocks of n/P, D from Prop. 2/4";
    if (printed) {
      c.steps = static_cast<int>(tra2_printed_rounds(s.ppn, s.r1, i.p) + tra2_printed_rounds(s.nodes, s.r2, i.p));
      c.steps_formula = "K1 + K2 as printed: w1(r1-1) - floor(r1 - P/r1^(w1-1)) + w2(r2-1) - floor(r2 - P/r2^(w2-1))"
                        " (0 for an empty phase)";
      c.source = "Fan et al. Sec. IV, K1 and K2 exactly as printed (with P); D derived by collcheck (the paper "
                 "gives no D for TRA2)";
    } else {
      c.steps = static_cast<int>((s.ppn >= 2 ? tra::prop_rounds(s.ppn, s.r1) : 0) +
                                 (s.nodes >= 2 ? tra::prop_rounds(s.nodes, s.r2) : 0));
      c.steps_formula = "K1 + K2, K1 = w1(r1-1) - floor(r1 - Q/r1^(w1-1)), K2 = w2(r2-1) - floor(r2 - N/r2^(w2-1))";
      c.source = "Fan et al. Sec. IV: K = K1 + K2, the printed K1/K2 read with Q and N where they print P (Prop. 3 "
                 "for Q and N processes; the print is variant paper-formulas); D derived by collcheck: "
                 "N*D(Q, r1) + Q*D(N, r2) (the paper gives no D for TRA2)";
    }
    return c;
  };
  if (kind == VariantKind::tra2) {
    v.summary = "two-layer TRA: intra-node TRA (radix r1 over the Q processes of a node, all groups in one "
                "message), then inter-node TRA (radix r2 over the N = P/Q nodes, one super-block share per "
                "position); --ppn Q (default: the largest divisor of P <= sqrt P), --radix r1 (default "
                "ceil(sqrt Q)), --radix2 r2 (default ceil(sqrt N))";
  } else if (kind == VariantKind::paper_literal) {
    v.summary = "TRA2 with Sec. IV-A's printed directions and shifts as far as they can be implemented: intra-node "
                "sends to gp - z r^x after the forward shift, inter-node shift memcpy(R[(ni+i)%N x Q], S[i x Q], Q), "
                "and to node ni - z r^x (collcheck's reading: the printed inter-node peer mixes node and local "
                "indices, only its sign is kept)";
    v.expected_to_hold = false;
    v.known_failure = "postcondition: the printed intra-node direction delivers the block for local index g+j to "
                      "g-j (wrong for Q >= 3), the printed inter-node shift and sign deliver node k-ni's "
                      "super-block to node ni-k (wrong for N >= 3); minimal p = 3 (default Q = 1, N = 3, r2 = 2; "
                      "--ppn 3 --radix 2: the intra-node phase)";
  } else {
    v.summary = "the tra2 schedule, claimed against Sec. IV's K1 and K2 formulas exactly as printed (with P)";
    v.expected_to_hold = false;
    v.known_failure = "cost: the printed K1, K2 use P where Q, N are meant; smallest (P, Q, r1, r2) = (4, 2, 2, 2): "
                      "printed K1 + K2 = 3 + 3 = 6, the schedule has 1 + 1 = 2 rounds; minimal p = 4";
  }
  return v;
}

}  // namespace

uint64_t default_radix(uint64_t p) { return std::max<uint64_t>(2, ceil_sqrt(p)); }

std::optional<Params> resolve(const VariantInfo& v, const InstanceParams& i) {
  if (v.family != FamilyId::tra) return std::nullopt;
  Params out;
  out.variant = static_cast<VariantKind>(v.kind);
  out.p = i.p;
  switch (out.variant) {
    case VariantKind::tra:
    case VariantKind::bruck:
    case VariantKind::spread_out: out.radix = radix(out.variant, i); return out;
    case VariantKind::tra2:
    case VariantKind::paper_literal:
    case VariantKind::paper_formulas: {
      const Tra2Shape s = tra2_shape(i);
      out.two_layer = true;
      out.ppn = s.ppn;
      out.nodes = s.nodes;
      out.r1 = s.r1;
      out.r2 = s.r2;
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace tra

Family tra_family() {
  using namespace tra;
  Capabilities analysed;
  analysed.analysis = true;
  Capabilities hierarchical;
  hierarchical.flat_step_bound = false;  // hierarchical: the flat bound says little
  return {FamilyId::tra,
          {family::algorithm(FamilyId::tra, static_cast<int>(AlgorithmKind::tra), "tra", Collective::alltoall,
                             "tunable-radix all-to-all (Fan et al.): Bruck (r = 2) to spread-out (r = P)",
                             {tra_variant(VariantKind::tra), tra_variant(VariantKind::bruck),
                              tra_variant(VariantKind::spread_out)},
                             analysed),
           family::algorithm(FamilyId::tra, static_cast<int>(AlgorithmKind::tra2), "tra2", Collective::alltoall,
                             "two-layer tunable-radix all-to-all (Fan et al. Sec. IV): intra-node TRA, then "
                             "inter-node TRA",
                             {tra2_variant(VariantKind::tra2, "tra2"),
                              tra2_variant(VariantKind::paper_literal, "paper-literal"),
                              tra2_variant(VariantKind::paper_formulas, "paper-formulas")},
                             hierarchical)}};
}

}  // namespace collcheck
