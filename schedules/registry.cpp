#include "schedules/registry.hpp"

#include <algorithm>

#include "schedules/fold.hpp"
#include "schedules/recursive_doubling/recursive_doubling.hpp"
#include "schedules/ring/ring_allreduce.hpp"
#include "schedules/bruck/bruck_allreduce.hpp"
#include "schedules/trivance/trivance_bandwidth.hpp"
#include "schedules/trivance/trivance_bandwidth_contiguous.hpp"
#include "schedules/trivance/trivance_latency.hpp"
#include "schedules/trivance/trivance_torus.hpp"
#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/swing/swing_bandwidth_contiguous.hpp"
#include "schedules/swing/swing_latency.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/swing/swing_odd_extra_node.hpp"
#include "schedules/traff/traff_allgather.hpp"
#include "schedules/traff/traff_allreduce.hpp"
#include "schedules/traff/traff_broadcast.hpp"
#include "schedules/traff/traff_reduce.hpp"
#include "schedules/traff/traff_reduce_scatter.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/tra/tra2.hpp"

namespace collcheck {
namespace {

using swing::ceil_log2;

int log2_floor(uint64_t p) { return ceil_log2(pow2_floor(p)); }

std::optional<std::string> any_p(const InstanceParams&) { return std::nullopt; }
std::optional<std::string> p_even(const InstanceParams& i) {
  if (i.p % 2 != 0) return "p must be even";
  return std::nullopt;
}
std::optional<std::string> p_odd_ge3(const InstanceParams& i) {
  if (i.p % 2 == 0 || i.p < 3) return "p must be odd and >= 3";
  return std::nullopt;
}

// Swing's hop distance on a ring of m ranks at Swing step t.
HopClaim swing_hop(uint64_t m, int t) {
  uint64_t d = swing::delta(t) % m;
  return {m, d < m - d ? d : m - d};
}

// Hop claims of Swing on a ring of m ranks, step s counted from the first
// Swing step: one phase (latency-optimal) or reduce-scatter then allgather
// with the peers in reverse order (bandwidth-optimal).
std::optional<HopClaim> swing_one_phase_hop(uint64_t m, int s) {
  if (m < 2 || s < 0 || s >= ceil_log2(m)) return std::nullopt;
  return swing_hop(m, s);
}
std::optional<HopClaim> swing_two_phase_hop(uint64_t m, int s) {
  const int L = ceil_log2(m);
  if (m < 2 || s < 0 || s >= 2 * L) return std::nullopt;
  return swing_hop(m, s < L ? s : 2 * L - 1 - s);
}

// ---- Swing, bandwidth-optimal -------------------------------------------
Claim swing_bw_even_claim(uint64_t p) {
  int L = ceil_log2(p);
  return {2 * L, 2 * (p - 1), "2*ceil(log2 p)", "2(p-1) blocks of n/p",
          "Swing NSDI'24 Sec. 3.1.1 and 3.2: 2 log2 p steps, no extra data for even p"};
}

VariantInfo swing_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "reduce-scatter + allgather; even p: Listing 1 (peer-index reading) de-duplicated as collcheck reads "
              "Sec. 3.2 / App. A.2: a repeated block only at its last listing, and never the rank's own block "
              "(collcheck's addition, not in the text); odd p: fold onto p-1";
  v.reference = "Swing NSDI'24 Sec. 3.1.1, Listing 1, Sec. 3.2, App. A.2";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) -> std::unique_ptr<Schedule> {
    if (i.p % 2 == 0 || i.p == 1) return make_swing_bandwidth(i.p);
    return fold_onto(i.p, make_swing_bandwidth(i.p - 1));
  };
  v.claim = [](const InstanceParams& i) {
    if (i.p == 1) return Claim{0, 0, "0", "0", "trivial"};
    if (i.p % 2 == 0) return swing_bw_even_claim(i.p);
    int L = ceil_log2(i.p - 1);
    return Claim{2 * L + 2, 3 * i.p - 5, "2*ceil(log2(p-1))+2", "3p-5 blocks of n/(p-1)",
                 "collcheck correction for odd p: fold onto p-1 (Sec. 2.3.2 technique); "
                 "the paper's own odd-p scheme is variant paper-odd"};
  };
  v.hops = [](const InstanceParams& i, int step) {
    uint64_t m = (i.p % 2 == 0 || i.p == 1) ? i.p : i.p - 1;
    return swing_two_phase_hop(m, m == i.p ? step : step - 1);  // odd p: step 0 is the fold
  };
  return v;
}

// One reading of Listing 1 and of Sec. 3.2 / App. A.2's de-duplication
// (swing_bandwidth.hpp quotes both and says why each reading holds or
// fails). The printed call is stated for p a power of two (Sec. 3.1, its
// int(log2(p)) steps); the peer-index readings run at every even p.
VariantInfo swing_paper_reading(const std::string& name, SwingSendRule rule, std::string summary,
                                std::string failure) {
  VariantInfo v;
  v.name = name;
  v.summary = std::move(summary);
  v.expected_to_hold = false;
  v.known_failure = std::move(failure);
  if (rule.sets == SwingStepSet::printed) {
    v.reference = "Swing NSDI'24 Sec. 3.1.1, Listing 1 (the printed code)";
    v.restriction = "p a power of two";
    v.violates = [](const InstanceParams& i) -> std::optional<std::string> {
      if (!swing::is_pow2(i.p)) return "p must be a power of two";
      return std::nullopt;
    };
  } else {
    v.reference = "Swing NSDI'24 Sec. 3.1.1, Listing 1, Sec. 3.2, App. A.2";
    v.restriction = "p even";
    v.violates = p_even;
  }
  v.make = [rule](const InstanceParams& i) { return make_swing_bandwidth(i.p, rule); };
  v.claim = [](const InstanceParams& i) { return swing_bw_even_claim(i.p); };
  v.hops = [](const InstanceParams& i, int step) { return swing_two_phase_hop(i.p, step); };
  return v;
}

// Listing 1's two readings without de-duplication, then Sec. 3.2 / App.
// A.2's de-duplication on the peer-index sets: which occurrence of a
// repeated block is sent x whether the own block is sent. The cell (later,
// own block never sent) is the default `bandwidth`.
std::vector<VariantInfo> swing_paper_readings() {
  std::vector<VariantInfo> out = {
      swing_paper_reading(
          "paper-listing1", {SwingStepSet::peer, SwingKeep::every, false},
          "collcheck's reading of Listing 1, not the printed call: step s sends pi(r,s) and get_rs_idx(pi(r,s), "
          "s+1) (the peer's index and step s+1, as the Sec. 3.1.1 prose says); every even p, no de-duplication",
          "even non-powers of two count contributions twice: a block two steps of a rank list reaches its owner "
          "by two paths (minimal p = 6)"),
      swing_paper_reading(
          "paper-listing1-printed", {SwingStepSet::printed, SwingKeep::every, false},
          "Listing 1 as printed: step s sends get_rs_idx(r, s, p, blocks_s) (the rank's own index and step s: "
          "every node it reaches from step s on); no de-duplication; p a power of two as in Sec. 3.1; the "
          "allgather mirrors the same sets (the paper: \"analogous\")",
          "each step also resends the blocks of the rank's later steps (cost: 4 instead of 3 reduce-scatter "
          "blocks at p = 4, whose reduce-scatter result is still right); the mirrored allgather then copies "
          "those stale partials over complete blocks (causality, postcondition; minimal p = 4)"),
  };
  // One reading of which occurrence is sent, with the own block sent where
  // listed (the text does not exclude it) and, as NAME-skip-own, never.
  auto own_block_pair = [&](const std::string& name, SwingKeep keep, const std::string& what,
                            const std::string& failure) {
    out.push_back(swing_paper_reading(name, {SwingStepSet::peer, keep, false},
                                      what + "; the own block r is sent where listed (the text does not exclude it)",
                                      failure));
    out.push_back(swing_paper_reading(name + "-skip-own", {SwingStepSet::peer, keep, true},
                                      what + "; never the own block r (collcheck's addition, not in the text)",
                                      failure));
  };
  own_block_pair("paper-earlier", SwingKeep::earlier,
                 "collcheck's earlier-step reading of Sec. 3.2 / App. A.2: a block several steps of r list is sent "
                 "only at the first of them",
                 "contributions are lost at every even non-power of two: a rank sends a block at its first listing, "
                 "before partials of it reach the rank (p = 6: ranks 4 and 5 swap block 0 at step 0 and never "
                 "forward it; minimal p = 6)");
  // (later, never the own block) is `bandwidth`.
  out.push_back(swing_paper_reading(
      "paper-later", {SwingStepSet::peer, SwingKeep::later, false},
      "collcheck's later-step reading of Sec. 3.2 / App. A.2: a block several steps of r list is sent only at the "
      "last of them; the own block r is sent where listed (the text does not exclude it)",
      "where a rank lists its own block (2^k < p < 4/3 2^k), its partial of that block comes back to it: "
      "contributions counted twice, p blocks sent instead of p-1 (minimal p = 10); elsewhere it equals "
      "`bandwidth`"));
  own_block_pair("paper-laststep", SwingKeep::last_step,
                 "collcheck's reading of App. A.2's \"send that only in the last step\" as the algorithm's last step: "
                 "a block several steps of r list is sent only at step L-1, to pi(r, L-1)",
                 "contributions are lost at every even non-power of two: the repeated block reaches pi(r, L-1) at "
                 "the last step, which cannot forward it to its owner (p = 6: ranks 4 and 5 send block 0 to ranks 1 "
                 "and 2; minimal p = 6)");
  return out;
}

VariantInfo swing_paper_odd() {
  VariantInfo v;
  v.name = "paper-odd";
  v.summary = "odd p as in Sec. 3.2 / Fig. 3: ring of p-1 plus an extra node talking to ceil((p-1)/2^(s+1)) ranks per step";
  v.reference = "Swing NSDI'24 Sec. 3.2, Fig. 3";
  v.restriction = "p odd, p >= 3";
  v.expected_to_hold = false;
  v.known_failure =
      "coverage: one ring rank is never served when p-1 is a power of two (minimal p = 3); "
      "ports: the extra node needs ceil((p-1)/2) ports in step 0, the model gives 2 (minimal p = 7)";
  v.violates = p_odd_ge3;
  v.make = [](const InstanceParams& i) { return std::make_unique<SwingOddExtraNode>(i.p); };
  v.claim = [](const InstanceParams& i) {
    return Claim{2 * ceil_log2(i.p - 1), 2 * (i.p - 1), "2*ceil(log2(p-1))", "2(p-1) blocks of n/p",
                 "Swing NSDI'24 Sec. 3.2: bandwidth deficiency grows only by 1/p"};
  };
  v.hops = [](const InstanceParams& i, int step) { return swing_two_phase_hop(i.p - 1, step); };
  return v;
}

VariantInfo swing_bandwidth_contiguous() {
  VariantInfo v;
  v.name = "bandwidth-contiguous";
  v.summary = "bandwidth-optimal with blocks remapped so every transfer is one contiguous range (scales to large p)";
  v.reference = "Swing NSDI'24 Sec. 3.1.1 (logical block remapping), App. A.1";
  v.restriction = "p a power of two";
  v.violates = [](const InstanceParams& i) -> std::optional<std::string> {
    if (!swing::is_pow2(i.p)) return "p must be a power of two";
    return std::nullopt;
  };
  v.make = [](const InstanceParams& i) { return std::make_unique<SwingBandwidthContiguous>(i.p); };
  v.claim = [](const InstanceParams& i) {
    if (i.p == 1) return Claim{0, 0, "0", "0", "trivial"};
    return swing_bw_even_claim(i.p);
  };
  v.hops = [](const InstanceParams& i, int step) { return swing_two_phase_hop(i.p, step); };
  return v;
}

// ---- Swing, latency-optimal ---------------------------------------------
VariantInfo swing_latency() {
  VariantInfo v;
  v.name = "latency";
  v.summary = "whole-vector exchange with pi(r,s); non-powers of two fold onto the largest power of two";
  v.reference = "Swing NSDI'24 Sec. 3.1.2; fold: Sec. 2.3.2";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_swing_latency(i.p); };
  v.claim = [](const InstanceParams& i) {
    int k = log2_floor(i.p);
    if (swing::is_pow2(i.p))
      return Claim{k, static_cast<uint64_t>(k), "log2 p", "log2 p vectors",
                   "Swing NSDI'24 Sec. 3.1.2: log2 p steps, n log2 p bytes"};
    return Claim{k + 2, static_cast<uint64_t>(k + 1), "log2 p' + 2 (p' = 2^floor(log2 p))",
                 "log2 p' + 1 vectors", "collcheck: fold onto p' (the paper gives no rule)"};
  };
  v.hops = [](const InstanceParams& i, int step) {
    uint64_t m = pow2_floor(i.p);
    return swing_one_phase_hop(m, m == i.p ? step : step - 1);  // non-powers of two: step 0 is the fold
  };
  return v;
}

VariantInfo swing_latency_paper() {
  VariantInfo v;
  v.name = "paper-latency";
  v.summary = "Eq. 2 as printed at every p: ceil(log2 p) whole-vector exchanges (the step count for non-powers of two is "
              "collcheck's; the paper gives no latency-optimal rule for them)";
  v.reference = "Swing NSDI'24 Sec. 3.1.2, Eq. 2";
  v.expected_to_hold = false;
  v.known_failure = "odd p: pi(pi(r,s),s) != r, sends go unmatched (minimal p = 3); "
                    "even non-powers of two: contributions counted twice (minimal p = 6)";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_swing_latency_paper(i.p); };
  v.claim = [](const InstanceParams& i) {
    int L = ceil_log2(i.p);
    return Claim{L, static_cast<uint64_t>(L), "ceil(log2 p)", "ceil(log2 p) vectors",
                 "Swing NSDI'24 Sec. 3.1.2"};
  };
  v.hops = [](const InstanceParams& i, int step) { return swing_one_phase_hop(i.p, step); };
  return v;
}

// ---- Baselines -------------------------------------------------------------
VariantInfo recdoub_latency() {
  VariantInfo v;
  v.name = "latency";
  v.summary = "whole-vector exchange with r XOR 2^s; non-powers of two fold";
  v.reference = "Thakur et al. 2005; Swing NSDI'24 Sec. 2.3.2";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_recursive_doubling_latency(i.p); };
  v.claim = [](const InstanceParams& i) {
    int k = log2_floor(i.p);
    if (swing::is_pow2(i.p)) return Claim{k, static_cast<uint64_t>(k), "log2 p", "log2 p vectors", "Sec. 2.3.2"};
    return Claim{k + 2, static_cast<uint64_t>(k + 1), "log2 p' + 2", "log2 p' + 1 vectors",
                 "Sec. 2.3.2 non-power-of-two fold"};
  };
  return v;
}

VariantInfo recdoub_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "Rabenseifner: recursive-halving reduce-scatter + recursive-doubling allgather; non-powers of two fold";
  v.reference = "Rabenseifner 2004; Thakur et al. 2005; Swing NSDI'24 Sec. 2.3.3";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_rabenseifner(i.p); };
  v.claim = [](const InstanceParams& i) {
    uint64_t pp = pow2_floor(i.p);
    int k = log2_floor(i.p);
    if (pp == i.p) return Claim{2 * k, 2 * (i.p - 1), "2 log2 p", "2(p-1) blocks of n/p", "Sec. 2.3.3"};
    return Claim{2 * k + 2, 2 * (pp - 1) + pp, "2 log2 p' + 2", "3p'-2 blocks of n/p'",
                 "Sec. 2.3.3 non-power-of-two fold"};
  };
  return v;
}

VariantInfo ring_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "ring reduce-scatter + ring allgather";
  v.reference = "Patarasuk & Yuan 2009; Swing NSDI'24 Sec. 2.3.1";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_ring_allreduce(i.p); };
  v.claim = [](const InstanceParams& i) {
    return Claim{static_cast<int>(2 * (i.p - 1)), 2 * (i.p - 1), "2(p-1)", "2(p-1) blocks of n/p",
                 "Sec. 2.3.1"};
  };
  return v;
}

// ---- Trivance and Bruck's allreduce ("Trivance: Latency-Optimal AllReduce by Shortcutting Multiport Networks") --------
const char* const kTrivanceRef = "Trivance (trivance.txt) Sec. 4.1-4.4, Algorithm 1, Lemmas 4.1-4.2, Theorem 4.3, App. A";
const char* const kBruckRef = "Trivance paper (trivance.txt) Sec. 2.4 'Bruck', Table 1, App. B.1; Bruck et al. 1994";

// Whole-vector variants (Trivance latency, Bruck latency): s steps and 2 vectors
// per step (one per port) at n = 3^s; other n fold onto m = 3^t (t + 2 steps;
// core rank 0 also copies the result back to one or two extra ranks).
Claim whole_vector_claim(uint64_t n, const std::string& source) {
  if (n == 1) return Claim{0, 0, "0", "0", "trivial"};
  const int t = trivance::floor_log3(n);
  if (trivance::is_pow3(n))
    return Claim{t, static_cast<uint64_t>(2 * t), "ceil(log3 n)", "2 ceil(log3 n) vectors",
                 source + " (steps); volume derived by collcheck: one whole vector per port and step "
                          "(Sec. 4.2 prints m log3 n, counting one port)"};
  const uint64_t m = trivance::pow3(t);
  return Claim{t + 2, static_cast<uint64_t>(2 * t + (n - m > m ? 2 : 1)), "floor(log3 n) + 2",
               "2 floor(log3 n) + (n > 2*3^t ? 2 : 1) vectors",
               "derived by collcheck: fold onto 3^floor(log3 n) (the paper has no exactly-once whole-vector rule "
               "for n not a power of three)"};
}

Claim two_phase_claim(uint64_t n, const std::string& source) {
  if (n == 1) return Claim{0, 0, "0", "0", "trivial"};
  const int s = trivance::ceil_log3(n);
  return Claim{2 * s, 2 * (n - 1), "2 ceil(log3 n)", "2(n-1) blocks of m/n (Lemma 4.1: m(1-1/n) per phase)",
               source};
}

VariantInfo trivance_latency() {
  VariantInfo v;
  v.name = "latency";
  v.summary = "whole-vector exchange with r -+ 3^k, both receipts reduced (Sec. 4.2); n not a power of three: "
              "corrected by folding onto 3^floor(log3 n) (the printed last step is variant paper-last-step)";
  v.reference = kTrivanceRef;
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_trivance_latency(i.p); };
  v.claim = [](const InstanceParams& i) { return whole_vector_claim(i.p, "Trivance Sec. 4.2, Theorem 4.3"); };
  v.extra_properties = {"trivance-coverage"};
  return v;
}

VariantInfo trivance_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "reduce-scatter with Algorithm 1's block propagation (printed) de-duplicated by collcheck: one path "
              "per contribution, the first of stay (not forwarded), right, left that keeps it reachable, so the own "
              "block never moves; allgather reversed; n not a power of three: corrected last distance "
              "ceil((n - 3^t)/2) of the text and Fig. 4";
  v.reference = kTrivanceRef;
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_trivance_bandwidth(i.p); };
  v.claim = [](const InstanceParams& i) {
    return two_phase_claim(i.p, trivance::is_pow3(i.p) ? "Trivance Sec. 4.1, Lemma 4.1"
                                                       : "Trivance Sec. 4.1, Lemma 4.1 (for n not a power of three "
                                                         "derived by collcheck: one path per contribution)");
  };
  v.extra_properties = {"trivance-coverage"};
  return v;
}

VariantInfo trivance_bandwidth_contiguous() {
  VariantInfo v;
  v.name = "bandwidth-contiguous";
  v.summary = "variant bandwidth for n = 3^s with blocks renumbered by base-3 digit reversal, so every transfer is "
              "one contiguous range (scales to large n)";
  v.reference = std::string(kTrivanceRef) + "; renumbering derived by collcheck (after Swing NSDI'24 Sec. 3.1.1)";
  v.restriction = "n a power of three";
  v.violates = [](const InstanceParams& i) -> std::optional<std::string> {
    if (!trivance::is_pow3(i.p)) return "n must be a power of three";
    return std::nullopt;
  };
  v.make = [](const InstanceParams& i) { return std::make_unique<TrivanceBandwidthContiguous>(i.p); };
  v.claim = [](const InstanceParams& i) { return two_phase_claim(i.p, "Trivance Sec. 4.1, Lemma 4.1"); };
  v.extra_properties = {"trivance-coverage"};
  return v;
}

// Sec. 4.4, printed: "In the final step, each node r communicates in both
// directions with a distance of ceil((3^ceil(log3 n) - n) / 2) to obtain the
// remaining blocks required for the reduction." With whole vectors.
VariantInfo trivance_paper_last_step() {
  VariantInfo v;
  v.name = "paper-last-step";
  v.summary = "Sec. 4.4 read literally: whole vectors, last step at distance ceil((3^ceil(log3 n) - n)/2)";
  v.reference = "Trivance (trivance.txt) Sec. 4.2, Sec. 4.4";
  v.expected_to_hold = false;
  v.known_failure =
      "minimal p = 2: exactly-once (rank 0 reduces rank 1's vector on both ports: both peers at distance 1 are rank 1); "
      "every n that is not a power of three double-counts (the peers' windows overlap r's own)";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_trivance_latency_paper(i.p); };
  v.claim = [](const InstanceParams& i) {
    if (i.p == 1) return Claim{0, 0, "0", "0", "trivial"};
    const int s = trivance::ceil_log3(i.p);
    return Claim{s, static_cast<uint64_t>(2 * s), "ceil(log3 n)", "2 ceil(log3 n) vectors",
                 "Trivance Sec. 4 ('completes in ceil(log3 n) steps', Theorem 4.3)"};
  };
  v.extra_properties = {"trivance-coverage"};
  return v;
}

// Algorithm 1 (BlockPropagation) without de-duplication, applied per peer as
// Sec. 4.3's prose describes (the call is not printed; collcheck's reading):
// to each peer p the blocks of
// every node p reaches in steps k+1.., a set, no matter by how many paths;
// last step at Sec. 4.4's printed distance. own_stays: collcheck's reading
// that r never sends its own block b = r, although Pi(n, r, p, k) contains r
// whenever p reaches r later (n = 4: Pi(4, 0, 1, 0) = {1, 2, 0}).
VariantInfo trivance_paper_bandwidth(bool own_stays) {
  VariantInfo v;
  v.name = own_stays ? "paper-bandwidth-own-stays" : "paper-bandwidth";
  v.summary = own_stays ? "paper-bandwidth (Algorithm 1 without de-duplication, printed last distance) except that a rank never "
                          "sends its own block, which Pi contains when the peer reaches r later (collcheck's reading; "
                          "the paper says nothing about it)"
                        : "Algorithm 1 / Pi(n, r, p, k) per peer as Sec. 4.3's prose applies it (collcheck's reading of an unprinted call and of Pi's "
                          "sum bounds 'i = t to t'; every reach path, no de-duplication, the own block "
                          "b = r sent when Pi contains it; Pi's 3^i read as the distance step i uses), Sec. 4.4's "
                          "printed last distance ceil((3^ceil(log3 n) - n)/2), allgather reversed";
  v.reference = "Trivance (trivance.txt) Sec. 4.1, 4.3 (Algorithm 1), 4.4";
  v.expected_to_hold = false;
  v.known_failure =
      std::string("minimal p = 2: exactly-once and causality (both ports send block 0 to rank 0, which adds rank 1's "
                  "contribution twice); fails at every n that is not a power of three") +
      (own_stays ? " (the own block is not what goes wrong: n = 2 sends no own block)" : "");
  v.violates = any_p;
  TrivanceRouting how;
  how.printed_last_distance = true;
  how.every_path = true;
  how.own_block_stays = own_stays;
  v.make = [how](const InstanceParams& i) { return make_trivance_bandwidth(i.p, how); };
  v.claim = [](const InstanceParams& i) { return two_phase_claim(i.p, "Trivance Sec. 4.1, Lemma 4.1"); };
  v.extra_properties = {"trivance-coverage"};
  return v;
}

// The de-duplicated routing of `bandwidth` with Sec. 4.4's printed distance
// ceil((3^ceil(log3 n) - n) / 2) instead of the text's ceil((n - 3^t) / 2).
VariantInfo trivance_paper_distance() {
  VariantInfo v;
  v.name = "paper-distance";
  v.summary = "the bandwidth variant's de-duplicated routing with Sec. 4.4's printed last distance "
              "ceil((3^ceil(log3 n) - n)/2) (Fig. 4 and the text use ceil((n - 3^t)/2))";
  v.reference = "Trivance (trivance.txt) Sec. 4.4, Fig. 4";
  v.expected_to_hold = false;
  v.known_failure =
      "minimal p = 7: postcondition (distance 1 instead of Fig. 4's 2: the digit sums reach only 5 of the 7 offsets, "
      "rank 0 never gets block 0 from ranks 3 and 4); fails exactly where 2*3^t < n < 3^(t+1)";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_trivance_bandwidth(i.p, {.printed_last_distance = true}); };
  v.claim = [](const InstanceParams& i) { return two_phase_claim(i.p, "Trivance Sec. 4.1, Lemma 4.1"); };
  v.extra_properties = {"trivance-coverage"};
  return v;
}

// Every other de-duplication of Algorithm 1's reach sets (the paper prints
// none: for n = 3^s the reach sets of "right", "left" and "not forwarded" are
// disjoint), and the own-block rule (the paper prints none either: for
// n = 3^s the own block is in no Pi). A held contribution takes the first
// move of the preference after which its remainder is still reachable.
//  * "stay" first (`bandwidth`: stay, right, left; here stay, left, right):
//    collcheck's choice. A forwarded remainder c is unreachable by the later
//    digits, no incoming contribution lands on it (they land on reachable
//    remainders, and the reachable sets only shrink), so nothing is sent
//    twice; the own block (c = 0, reachable with digits 0) never moves, so an
//    own-block rule changes nothing (unit-tested). Holds.
//  * a move first: Sec. 4.1's wording ("r must send not only the data intended
//    for p but also the data blocks designated for the nodes that p will reach
//    in the subsequent steps") forwards every block a peer reaches. Where a
//    remainder could also stay (n not a power of three, except the few n
//    where no remainder is reachable both ways), it is forwarded while the
//    neighbour's same choice refills it: a rank keeps the value it sent (the
//    paper: "After each step, the received data is aggregated at each node";
//    nothing is discarded), so the refilled block carries the sent
//    contributions a second time. Refuted, minimal n = 4; with or without the
//    own block it fails at the same n (unit-tested to 200, slow test to 1500),
//    exactly where it differs from its stay-first counterpart.
enum class TrivanceOwn { sent, stays };
using TrivanceOrder = std::array<TrivanceRouting::Move, 3>;
constexpr TrivanceOrder kStayLeftRight{TrivanceRouting::Move::stay, TrivanceRouting::Move::left,
                                       TrivanceRouting::Move::right};
constexpr TrivanceOrder kRightStayLeft{TrivanceRouting::Move::right, TrivanceRouting::Move::stay,
                                       TrivanceRouting::Move::left};
constexpr TrivanceOrder kRightLeftStay{TrivanceRouting::Move::right, TrivanceRouting::Move::left,
                                       TrivanceRouting::Move::stay};
constexpr TrivanceOrder kLeftStayRight{TrivanceRouting::Move::left, TrivanceRouting::Move::stay,
                                       TrivanceRouting::Move::right};
constexpr TrivanceOrder kLeftRightStay{TrivanceRouting::Move::left, TrivanceRouting::Move::right,
                                       TrivanceRouting::Move::stay};

// `twice`, `blocks`: the first double count at p = 4 and the blocks each rank
// sends there, as collcheck reports them (derived by running the variant;
// pinned in tests/unit/schedules/trivance/trivance_readings_test.cpp).
VariantInfo trivance_dedup(const TrivanceOrder& order, TrivanceOwn own, const std::string& twice = "",
                           int blocks = 0) {
  auto word = [](TrivanceRouting::Move m) {
    return m == TrivanceRouting::Move::stay ? "stay" : m == TrivanceRouting::Move::right ? "right" : "left";
  };
  const std::string list = std::string(word(order[0])) + "-" + word(order[1]) + "-" + word(order[2]);
  const bool stay_first = order[0] == TrivanceRouting::Move::stay;
  VariantInfo v;
  v.name = "dedup-" + list + (own == TrivanceOwn::stays ? "-own-stays" : "");
  v.summary = "Algorithm 1's reach sets Pi(n, r, p, k) (printed) de-duplicated by collcheck: a block reachable by "
              "several moves takes the first of " + list + " (stay: not forwarded)" +
              (stay_first ? "; the own block never moves; the mirror image of bandwidth"
               : own == TrivanceOwn::stays
                   ? ", forwarding first as Sec. 4.1 words it, but a rank never sends its own block (added by "
                     "collcheck)"
                   : ", forwarding first as Sec. 4.1 words it; the own block is sent when a peer reaches r later "
                     "(Pi contains it)") +
              "; text's last distance, allgather reversed";
  v.reference = "Trivance (trivance.txt) Sec. 4.1, 4.3 (Algorithm 1, Pi), 4.4; the preference order and own-block "
                "rule are collcheck's (the paper prints neither)";
  v.violates = any_p;
  TrivanceRouting how;
  how.preference = order;
  how.own_block_stays = own == TrivanceOwn::stays;
  v.make = [how](const InstanceParams& i) { return make_trivance_bandwidth(i.p, how); };
  v.claim = [](const InstanceParams& i) {
    return two_phase_claim(i.p, trivance::is_pow3(i.p) ? "Trivance Sec. 4.1, Lemma 4.1"
                                                       : "Trivance Sec. 4.1, Lemma 4.1 (for n not a power of three "
                                                         "derived by collcheck: one path per contribution)");
  };
  v.extra_properties = {"trivance-coverage"};
  if (!stay_first) {
    v.expected_to_hold = false;
    v.known_failure = "minimal p = 4: exactly-once at rank 0, step 1, block 0 (" + twice + ") and cost (" +
                      std::to_string(blocks) +
                      " blocks per rank, not 6): a block forwarded although it could stay is refilled in the "
                      "same step by the neighbour's same choice, and the sender keeps what it sent, so the next "
                      "forward counts it twice; fails wherever some block is reachable both by staying and by "
                      "a move (n = 1..400: all but the powers of three and 2, 6-8, 20-21, 24-26, 62-63, 74-75, "
                      "78-80, 188-189, 224-225, 236-237, 240-242), with or without the own block";
  }
  return v;
}

// The readings of the own-block and de-duplication choices besides
// `bandwidth`, `paper-bandwidth` and `paper-distance` (see above).
std::vector<VariantInfo> trivance_routing_readings() {
  const std::string own_back = "rank 0's own contribution again from rank 1, to which rank 0 sent block 0 in step 0";
  const std::string three = "rank 3's contribution again from rank 3, which had sent block 0 to rank 0 in step 0";
  const std::string one = "rank 1's contribution again from rank 1, which had sent block 0 to rank 0 in step 0";
  return {trivance_paper_bandwidth(true),
          trivance_dedup(kStayLeftRight, TrivanceOwn::sent),
          trivance_dedup(kRightStayLeft, TrivanceOwn::sent, own_back, 10),
          trivance_dedup(kRightStayLeft, TrivanceOwn::stays, three, 8),
          trivance_dedup(kRightLeftStay, TrivanceOwn::sent, own_back, 12),
          trivance_dedup(kRightLeftStay, TrivanceOwn::stays, three, 8),
          trivance_dedup(kLeftStayRight, TrivanceOwn::sent, one, 10),
          trivance_dedup(kLeftStayRight, TrivanceOwn::stays, one, 8),
          trivance_dedup(kLeftRightStay, TrivanceOwn::sent, one, 12),
          trivance_dedup(kLeftRightStay, TrivanceOwn::stays, one, 8)};
}

VariantInfo bruck_allreduce_latency() {
  VariantInfo v;
  v.name = "latency";
  v.summary = "whole vector from r + 3^k and r + 2*3^k (one direction); n not a power of three folds onto "
              "3^floor(log3 n)";
  v.reference = kBruckRef;
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_bruck_allreduce_latency(i.p); };
  v.claim = [](const InstanceParams& i) { return whole_vector_claim(i.p, "Trivance paper Sec. 2.4, Table 1"); };
  return v;
}

VariantInfo bruck_allreduce_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "reduce-scatter moving contributions by the base-3 digits of (b - u) mod n times 3^k, allgather "
              "reversed; every n";
  v.reference = kBruckRef;
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_bruck_allreduce_bandwidth(i.p); };
  v.claim = [](const InstanceParams& i) {
    return two_phase_claim(i.p, "Trivance paper Sec. 2.4 (2 log3 n steps, 2m per node); for n not a power of "
                                "three derived by collcheck");
  };
  return v;
}

// ---- Trivance on a D-dimensional torus (trivance.txt Sec. 5) --------------
// Steps and volume compose the ring claims per dimension (T = sum_d S_d).
// The paper states them only for equal sides that are powers of three.
Claim trivance_torus_claim(const InstanceParams& i, bool bandwidth) {
  if (i.p == 1) return Claim{0, 0, "0", "0", "trivial"};
  const uint64_t D = i.dims.size();
  bool paper = true;
  int T = 0;
  uint64_t vectors = 0;
  for (uint32_t n : i.dims) {
    paper = paper && n == i.dims.front() && trivance::is_pow3(n);
    const Claim ring = whole_vector_claim(n, "");
    T += bandwidth ? trivance::ceil_log3(n) : ring.steps;
    vectors += ring.volume_blocks;
  }
  Claim c;
  if (bandwidth) {
    c = Claim{2 * T, 2 * D * (i.p - 1), "2 sum_d ceil(log3 n_d)",
              "2D(p-1) blocks of m/(Dp) (Lemma 4.1 per dimension, telescoped: 2m(p-1)/p per node)", ""};
  } else {
    c = Claim{T, D * vectors, "sum_d S_d, S_d = ceil(log3 n_d) (n_d = 3^k) else floor(log3 n_d) + 2",
              "D sum_d V_d blocks of m/D (V_d: the ring's whole vectors, 2 S_d for n_d = 3^k)", ""};
  }
  c.source = paper ? "Trivance Sec. 5 (D collectives with 1/D of the vector; 'no effect on the latency': log3 p steps; "
                     "'total transmitted data ... remains also unchanged') with Sec. 4.1-4.2 and Lemma 4.1 per "
                     "dimension; volume counts both ports (as the ring claim)"
                   : "collcheck's derivation (the paper states Sec. 5 for equal sides that are powers of three): "
                     "the corrected ring claim per dimension, summed";
  return c;
}

VariantInfo trivance_torus_variant(bool bandwidth) {
  VariantInfo v;
  v.name = bandwidth ? "bandwidth" : "latency";
  v.summary = bandwidth
                  ? "D collectives (1/D each), collective c in step j on dimension (c+j) mod D: per dimension the ring "
                    "reduce-scatter (corrected rule) over blocks indexed by torus node, allgather reversed"
                  : "D collectives (1/D each), collective c in step j on dimension (c+j) mod D: per dimension the "
                    "ring's whole-vector step (fold onto 3^floor(log3 n_d) for other sides)";
  v.reference = "Trivance (trivance.txt) Sec. 5, Fig. 5, Table 2; per dimension Sec. 4.1-4.4";
  v.restriction = "--dims n_0x..xn_{D-1} with every n_d >= 1 and product p (D <= 16)";
  v.options = {"dims"};
  v.violates = [](const InstanceParams& i) { return torus_shape_problem(i.dims, i.p); };
  v.make = [bandwidth](const InstanceParams& i) {
    return make_trivance_torus(i.dims, bandwidth ? TrivanceTorus::Kind::bandwidth : TrivanceTorus::Kind::latency);
  };
  v.claim = [bandwidth](const InstanceParams& i) { return trivance_torus_claim(i, bandwidth); };
  v.extra_properties = {"trivance-coverage"};
  return v;
}

// ---- Träff's circulant schedules ------------------------------------------
constexpr uint32_t kTraffDefaultBlocks = 8;

// What every Träff variant shares: the default block count, the table
// properties, the instance options and the root rule.
uint32_t traff_n(const InstanceParams& i) { return i.n ? i.n : kTraffDefaultBlocks; }

VariantInfo traff_base(const std::string& name, bool rooted) {
  VariantInfo v;
  v.name = name;
  v.extra_properties = {"traff-conditions", "traff-bounds"};
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
    return std::make_unique<TraffAllgather>(i.p, traff_n(i));
  };
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
    return std::make_unique<TraffReduceScatter>(i.p, traff_n(i));
  };
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
    return std::make_unique<TraffAllreduce>(i.p, traff_n(i));
  };
  v.claim = [](const InstanceParams& i) {
    const uint64_t n = traff_n(i);
    return traff_claim(i, 2, 2 * n * (i.p - 1), "2(n-1+ceil(log2 p))",
                 "2n(p-1) of the n*p blocks (n(p-1) per phase, every rank)",
                 "derived by collcheck: Obs. 1.4's reduce-scatter (n-1+q rounds, n(p-1) blocks) followed by "
                 "Algorithm 7 (the same); the paper gives no allreduce schedule of its own");
  };
  return v;
}

// ---- Tunable-radix all-to-all (Fan, Petruzza, Gilray, Kumar) -----------------
constexpr uint64_t kTraMaxP = 65535;  // P*P blocks must stay below 2^32 - 1

uint64_t ceil_sqrt(uint64_t x) {
  uint64_t s = 0;
  while (s * s < x) ++s;  // x <= 65535: at most 256 iterations
  return s;
}
uint64_t floor_sqrt(uint64_t x) {
  uint64_t s = ceil_sqrt(x);
  return s * s > x ? s - 1 : s;
}
std::optional<std::string> tra_p_too_large(const InstanceParams& i) {
  if (i.p > kTraMaxP) return "P must be <= " + std::to_string(kTraMaxP) + " (P*P blocks)";
  return std::nullopt;
}

// The paper's "optimal radix" r = sqrt(P) (Sec. III-B), rounded up.
uint64_t tra_default_radix(uint64_t p) { return std::max<uint64_t>(2, ceil_sqrt(p)); }

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

enum class TraRadix { option, bruck, spread_out };

VariantInfo tra_variant(TraRadix kind) {
  VariantInfo v;
  v.reference = "Fan et al., Configurable Algorithms for All-to-all Collectives, Sec. III (steps 1-3), "
                "Sec. III-A (Propositions 1-4), Figs. 1-3";
  v.extra_properties = {"alltoall-delivery", "tra-formulas"};
  auto radix = [kind](const InstanceParams& i) -> uint64_t {
    switch (kind) {
      case TraRadix::option: return i.radix ? i.radix : tra_default_radix(i.p);
      case TraRadix::bruck: return 2;
      case TraRadix::spread_out: return i.p;
    }
    return 2;
  };
  switch (kind) {
    case TraRadix::option:
      v.name = "tra";
      v.summary = "tunable-radix all-to-all: rotation, w = ceil(log_r P) digits x 1..r-1 values (non-empty rounds "
                  "only), inverse rotation; --radix r (default ceil(sqrt P), the paper's optimal radix)";
      v.restriction = "2 <= r <= P (--radix); P <= 65535";
      v.options = {"radix"};
      v.violates = [](const InstanceParams& i) -> std::optional<std::string> {
        if (auto why = tra_p_too_large(i)) return why;
        if (i.radix && i.p == 1) return "radix r = " + std::to_string(i.radix) + " > P = 1 (one process exchanges nothing; omit --radix)";
        if (i.radix && (i.radix < 2 || i.radix > i.p))
          return "radix r = " + std::to_string(i.radix) + " must be in 2..P = " + std::to_string(i.p);
        return std::nullopt;
      };
      break;
    case TraRadix::bruck:
      v.name = "bruck";
      v.summary = "TRA with r = 2: Bruck's algorithm, ceil(log2 P) rounds";
      v.restriction = "P <= 65535";
      v.violates = tra_p_too_large;
      break;
    case TraRadix::spread_out:
      v.name = "spread-out";
      v.summary = "TRA with r = P: one round per peer (the linear spread-out pattern), P-1 rounds, P-1 blocks";
      v.restriction = "P <= 65535";
      v.violates = tra_p_too_large;
      break;
  }
  v.make = [radix](const InstanceParams& i) { return std::make_unique<Tra>(i.p, i.p < 2 ? 2 : radix(i)); };
  v.claim = [radix](const InstanceParams& i) { return tra_claim(i.p, radix(i)); };
  return v;
}

// TRA2's instance: Q, N and the radices, defaults filled in.
struct Tra2Shape {
  uint64_t q, n, r1, r2;
};
Tra2Shape tra2_shape(const InstanceParams& i) {
  Tra2Shape s{};
  s.q = i.ppn;
  if (!s.q)  // the largest divisor of P that is <= sqrt(P)
    for (uint64_t d = floor_sqrt(i.p); d >= 1; --d)
      if (i.p % d == 0) {
        s.q = d;
        break;
      }
  s.n = s.q && i.p % s.q == 0 ? i.p / s.q : 0;
  auto clamp_radix = [](uint64_t m) { return m >= 2 ? std::clamp<uint64_t>(ceil_sqrt(m), 2, m) : 0; };
  s.r1 = i.radix ? i.radix : clamp_radix(s.q);
  s.r2 = i.radix2 ? i.radix2 : clamp_radix(s.n);
  return s;
}

std::optional<std::string> tra2_violates(const InstanceParams& i) {
  if (auto why = tra_p_too_large(i)) return why;
  const Tra2Shape s = tra2_shape(i);
  if (i.p % s.q != 0)
    return "Q = " + std::to_string(s.q) + " processes per node (--ppn) must divide P = " + std::to_string(i.p);
  if (i.radix && s.q < 2)
    return "intra-node radix r1 = " + std::to_string(i.radix) + ": with Q = " + std::to_string(s.q) +
           " process per node there is no intra-node phase (omit --radix)";
  if (i.radix && (i.radix < 2 || i.radix > s.q))
    return "intra-node radix r1 = " + std::to_string(i.radix) + " must be in 2..Q = " + std::to_string(s.q);
  if (i.radix2 && s.n < 2)
    return "inter-node radix r2 = " + std::to_string(i.radix2) + ": with N = " + std::to_string(s.n) +
           " node there is no inter-node phase (omit --radix2)";
  if (i.radix2 && (i.radix2 < 2 || i.radix2 > s.n))
    return "inter-node radix r2 = " + std::to_string(i.radix2) + " must be in 2..N = P/Q = " + std::to_string(s.n);
  return std::nullopt;
}

// floor(a / b) for b > 0 and any sign of a.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Sec. IV's K1 (K2) as printed: w(r-1) - floor(r - P/r^(w-1)) with P, not Q (N).
int64_t tra2_printed_rounds(uint64_t m, uint64_t r, uint64_t p) {
  if (m < 2) return 0;  // the phase is empty (w = 0: the formula has no meaning)
  const int w = tra::num_digits(m, r);
  int64_t top = 1;
  for (int x = 0; x + 1 < w; ++x) top *= static_cast<int64_t>(r);
  const int64_t ri = static_cast<int64_t>(r);
  return w * (ri - 1) - floor_div(ri * top - static_cast<int64_t>(p), top);
}

VariantInfo tra2_variant(const std::string& name) {
  VariantInfo v;
  v.name = name;
  v.reference = "Fan et al., Configurable Algorithms for All-to-all Collectives, Sec. IV (K1, K2), Sec. IV-A "
                "(intra- and inter-node steps 1-3), Figs. 5-7";
  v.restriction = "Q (--ppn) divides P; 2 <= r1 (--radix) <= Q; 2 <= r2 (--radix2) <= N = P/Q; P <= 65535";
  v.extra_properties = {"alltoall-delivery", "tra-formulas"};
  v.options = {"radix", "radix2", "ppn"};
  v.violates = tra2_violates;
  const Tra2::Reading reading = name == "paper-literal" ? Tra2::Reading::paper_literal : Tra2::Reading::intended;
  v.make = [reading](const InstanceParams& i) {
    const Tra2Shape s = tra2_shape(i);
    return std::make_unique<Tra2>(i.p, s.q, s.r1, s.r2, reading);
  };
  const bool printed = name == "paper-formulas";
  v.claim = [printed](const InstanceParams& i) {
    const Tra2Shape s = tra2_shape(i);
    if (i.p < 2) return Claim{0, 0, "0", "0", "trivial: one process exchanges nothing"};
    Claim c;
    c.volume_blocks = s.n * (s.q >= 2 ? tra::prop_blocks(s.q, s.r1) : 0) +
                      s.q * (s.n >= 2 ? tra::prop_blocks(s.n, s.r2) : 0);
    c.volume_formula = "N*D(Q, r1) + Q*D(N, r2) blocks of n/P, D from Prop. 2/4";
    if (printed) {
      c.steps = static_cast<int>(tra2_printed_rounds(s.q, s.r1, i.p) + tra2_printed_rounds(s.n, s.r2, i.p));
      c.steps_formula = "K1 + K2 as printed: w1(r1-1) - floor(r1 - P/r1^(w1-1)) + w2(r2-1) - floor(r2 - P/r2^(w2-1))"
                        " (0 for an empty phase)";
      c.source = "Fan et al. Sec. IV, K1 and K2 exactly as printed (with P); D derived by collcheck (the paper "
                 "gives no D for TRA2)";
    } else {
      c.steps = static_cast<int>((s.q >= 2 ? tra::prop_rounds(s.q, s.r1) : 0) +
                                 (s.n >= 2 ? tra::prop_rounds(s.n, s.r2) : 0));
      c.steps_formula = "K1 + K2, K1 = w1(r1-1) - floor(r1 - Q/r1^(w1-1)), K2 = w2(r2-1) - floor(r2 - N/r2^(w2-1))";
      c.source = "Fan et al. Sec. IV: K = K1 + K2, the printed K1/K2 read with Q and N where they print P (Prop. 3 "
                 "for Q and N processes; the print is variant paper-formulas); D derived by collcheck: "
                 "N*D(Q, r1) + Q*D(N, r2) (the paper gives no D for TRA2)";
    }
    return c;
  };
  if (name == "tra2") {
    v.summary = "two-layer TRA: intra-node TRA (radix r1 over the Q processes of a node, all groups in one "
                "message), then inter-node TRA (radix r2 over the N = P/Q nodes, one super-block share per "
                "position); --ppn Q (default: the largest divisor of P <= sqrt P), --radix r1 (default "
                "ceil(sqrt Q)), --radix2 r2 (default ceil(sqrt N))";
  } else if (name == "paper-literal") {
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

std::vector<AlgorithmInfo> build() {
  std::vector<AlgorithmInfo> r;
  r.push_back({"swing", Collective::allreduce, "Swing allreduce on a 1D ring (De Sensi et al., NSDI'24)",
               {swing_bandwidth(), swing_latency(), swing_bandwidth_contiguous()}});
  for (VariantInfo& v : swing_paper_readings()) r.back().variants.push_back(std::move(v));
  r.back().variants.push_back(swing_paper_odd());
  r.back().variants.push_back(swing_latency_paper());
  r.push_back({"recursive-doubling", Collective::allreduce,
               "recursive doubling allreduce (latency) and Rabenseifner's reduce-scatter + allgather (bandwidth)",
               {recdoub_latency(), recdoub_bandwidth()}});
  r.push_back({"ring", Collective::allreduce, "ring allreduce", {ring_bandwidth()}});
  r.push_back({"trivance", Collective::allreduce,
               "Trivance allreduce on a bidirectional ring: both ports, peers r -+ 3^k, joint reductions",
               {trivance_latency(), trivance_bandwidth(), trivance_bandwidth_contiguous(), trivance_paper_last_step(),
                trivance_paper_bandwidth(false), trivance_paper_distance()}});
  for (VariantInfo& v : trivance_routing_readings()) r.back().variants.push_back(std::move(v));
  r.push_back({"trivance-torus", Collective::allreduce,
               "Trivance allreduce on a D-dimensional torus (--dims): one collective per dimension, switching "
               "dimensions each step (Sec. 5)",
               {trivance_torus_variant(false), trivance_torus_variant(true)}});
  r.push_back({"bruck-allreduce", Collective::allreduce,
               "Bruck's allreduce on a ring with two ports (distances 3^k and 2*3^k), the Trivance paper's baseline",
               {bruck_allreduce_latency(), bruck_allreduce_bandwidth()}});
  r.push_back({"traff", Collective::broadcast,
               "Träff's round-optimal circulant-graph broadcast (Algorithm 1); the other Träff collectives are "
               "traff-allgather, traff-reduce, traff-reduce-scatter and traff-allreduce",
               {traff_broadcast()}});
  // The registry's collective is per algorithm, so Algorithm 7 is its own entry.
  r.push_back({"traff-allgather", Collective::allgather,
               "Träff's round-optimal circulant-graph all-broadcast (allgather, Algorithm 7)", {traff_allgather()}});
  r.push_back({"traff-reduce", Collective::reduce,
               "Träff's round-optimal circulant-graph reduction to a root (Observation 1.3: Algorithm 1 reversed)",
               {traff_reduce("reduce", TraffReduce::Dedup::first_receipt),
                traff_reduce("paper-reversed", TraffReduce::Dedup::none)}});
  r.push_back({"traff-reduce-scatter", Collective::reduce_scatter,
               "Träff's round-optimal circulant-graph reduce-scatter (Observation 1.4: Algorithm 7 reversed)",
               {traff_reduce_scatter()}});
  r.push_back({"traff-allreduce", Collective::allreduce,
               "Träff's circulant-graph allreduce: Observation 1.4's reduce-scatter, then Algorithm 7",
               {traff_allreduce()}});
  r.push_back({"tra", Collective::alltoall,
               "tunable-radix all-to-all (Fan et al.): Bruck (r = 2) to spread-out (r = P)",
               {tra_variant(TraRadix::option), tra_variant(TraRadix::bruck), tra_variant(TraRadix::spread_out)}});
  r.push_back({"tra2", Collective::alltoall,
               "two-layer tunable-radix all-to-all (Fan et al. Sec. IV): intra-node TRA, then inter-node TRA",
               {tra2_variant("tra2"), tra2_variant("paper-literal"), tra2_variant("paper-formulas")}});
  return r;
}

}  // namespace

std::string InstanceParams::label() const {
  std::string out;
  auto add = [&](const char* name, uint64_t v) {
    if (v) out += (out.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(v);
  };
  add("n", n);
  add("root", root);
  add("r", radix);
  add("r2", radix2);
  add("Q", ppn);
  if (!dims.empty()) {
    std::string shape;
    for (uint32_t d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    out += (out.empty() ? "" : " ") + std::string("dims=") + shape;
  }
  return out;
}

bool VariantInfo::takes(const std::string& option) const {
  for (const auto& o : options)
    if (o == option) return true;
  return false;
}

const VariantInfo* AlgorithmInfo::find_variant(const std::string& v) const {
  for (const auto& x : variants)
    if (x.name == v) return &x;
  return nullptr;
}

const std::vector<AlgorithmInfo>& registry() {
  static const std::vector<AlgorithmInfo> table = build();
  return table;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : registry())
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace collcheck
