#include "properties/swing/swing_rank_zero_masks.hpp"

#include <memory>
#include <mutex>

#include "properties/flow/flow_rotation.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_latency.hpp"
#include "schedules/swing/swing_math.hpp"

namespace collcheck::swing {

using Mask = std::vector<uint64_t>;

std::vector<Mask> rank_zero_rs_masks(uint64_t m, const SwingSendRule& rule) {
  if (m < 2 || m % 2) return {};
  const int L = ceil_log2(m);
  const size_t W = (m + 63) / 64;
  const auto steps = static_cast<size_t>(L);
  // lit[t] = Lit(0, t) = rho(t) - A_{t+1}; A_t = A_{t+1} + lit[t], A_L = {0}.
  std::vector<Mask> lit(steps, Mask(W, 0));
  Mask A(W, 0);
  A[0] = 1;
  // The default reading (peer-index sets, kept at the later step) in the
  // same pass: A_{t+1} is then what the later steps listed, plus rank 0.
  const bool fused = rule.sets == SwingStepSet::peer && rule.keep == SwingKeep::later;
  bool zero_listed = false;  // some later step listed rank 0 itself
  for (int t = L - 1; t >= 0; --t) {
    const auto c = static_cast<uint64_t>(pi(0, t, m));  // rho(t) mod m
    Mask& x = lit[static_cast<size_t>(t)];
    flow::reflect_bits(x.data(), A.data(), m, c);
    if (!fused) {
      for (size_t w = 0; w < W; ++w) A[w] |= x[w];
      continue;
    }
    // Word 0: A holds rank 0 from the start; "later" holds it only if a
    // later step listed it.
    const uint64_t listed0 = x[0];
    x[0] = listed0 & ~((A[0] & ~uint64_t{1}) | (zero_listed ? 1 : 0));
    A[0] |= listed0;
    zero_listed = zero_listed || (listed0 & 1);
    for (size_t w = 1; w < W; ++w) {
      const uint64_t listed_here = x[w];
      x[w] = listed_here & ~A[w];
      A[w] |= listed_here;
    }
  }
  if (fused) {
    if (rule.skip_own)
      for (Mask& x : lit) x[0] &= ~uint64_t{1};
    return lit;
  }
  // The step sets before de-duplication, in place: peer-index Lit(0, t), or
  // the printed get_rs_idx(0, t) = Lit(0, t) + ... + Lit(0, L-1).
  std::vector<Mask>& listed = lit;
  if (rule.sets == SwingStepSet::printed)
    for (int t = L - 2; t >= 0; --t)
      for (size_t w = 0; w < W; ++w) listed[static_cast<size_t>(t)][w] |= listed[static_cast<size_t>(t) + 1][w];
  std::vector<Mask>& out = lit;  // each rule rewrites step t from steps already read
  switch (rule.keep) {
    case SwingKeep::every: break;
    case SwingKeep::later: {  // listed at t and at no later step
      Mask later(W, 0);
      for (int t = L - 1; t >= 0; --t) {
        Mask& x = out[static_cast<size_t>(t)];
        for (size_t w = 0; w < W; ++w) {
          const uint64_t listed_here = x[w];
          x[w] = listed_here & ~later[w];
          later[w] |= listed_here;
        }
      }
      break;
    }
    case SwingKeep::earlier: {  // listed at t and at no earlier step
      Mask earlier(W, 0);
      for (size_t t = 0; t < steps; ++t)
        for (size_t w = 0; w < W; ++w) {
          const uint64_t listed_here = out[t][w];
          out[t][w] = listed_here & ~earlier[w];
          earlier[w] |= listed_here;
        }
      break;
    }
    case SwingKeep::last_step: {  // listed once: at its step; more often: at step L-1 only
      Mask once(W, 0), twice(W, 0);
      for (size_t t = 0; t < steps; ++t)
        for (size_t w = 0; w < W; ++w) {
          twice[w] |= once[w] & listed[t][w];
          once[w] |= listed[t][w];
        }
      if (rule.skip_own) twice[0] &= ~uint64_t{1};
      for (size_t t = 0; t < steps; ++t)
        for (size_t w = 0; w < W; ++w) out[t][w] = (listed[t][w] & ~twice[w]) | (t + 1 == steps ? twice[w] : 0);
      break;
    }
  }
  if (rule.skip_own)
    for (Mask& x : out) x[0] &= ~uint64_t{1};
  return lit;
}

namespace {

// Swing's latency-optimal ring (Sec. 3.1.2): one block, the whole vector,
// exchanged with pi(0, s) and reduced at every step.
std::optional<flow::MaskSchedule> latency_mask_schedule(const SwingEquivariant& eq, const SwingLatencyRing& ring) {
  const uint64_t p = eq.p();
  if (p < 2 || p % 2 || eq.num_blocks() != 1 || eq.spec().kind != Collective::allreduce ||
      eq.action().block_action() != BlockAction::fixed || eq.action().group() != SymmetryGroup::swing_dihedral)
    return std::nullopt;
  static const uint64_t kBlockZero = 1;
  flow::MaskSchedule ms;
  ms.action = &eq.action();
  ms.spec = eq.spec();
  ms.steps = ring.num_steps();
  ms.ports = eq.ports();
  ms.exchange = [p, L = ring.num_steps()](int st, flow::MaskExchange& out, bool& active) {
    active = st >= 0 && st < L;
    if (!active) return;
    // swing_latency.cpp's rank_step at rank 0: block 0 to and from pi(0, s).
    out.peer = pi(0, st, p);
    out.combine = Combine::reduce;
    out.send = &kBlockZero;
    out.recv = nullptr;
    out.other_is_image = true;
  };
  ms.memo_key = "swing-latency-ring p=" + std::to_string(p);
  ms.representation = "rank 0's one block, the whole vector, exchanged with pi(0, s) at every step";
  return ms;
}

}  // namespace

std::optional<flow::MaskSchedule> swing_mask_schedule(const Schedule& s) {
  const auto* eq = dynamic_cast<const SwingEquivariant*>(&s);
  if (!eq) return std::nullopt;
  if (const auto* lat = dynamic_cast<const SwingLatencyRing*>(&eq->direct())) return latency_mask_schedule(*eq, *lat);
  const auto* ring = dynamic_cast<const SwingBandwidthRing*>(&eq->direct());
  const uint64_t p = s.p();
  if (!ring || p < 2 || p % 2 || ring->ring_size() != p || s.spec().kind != Collective::allreduce ||
      s.num_blocks() != p || eq->action().block_action() != BlockAction::as_ranks ||
      eq->action().group() != SymmetryGroup::swing_dihedral)
    return std::nullopt;
  const int L = ring->swing_steps();
  if (L != ceil_log2(p) || s.num_steps() != 2 * L) return std::nullopt;
  // Rank 0's masks, computed at the first step asked for (a certificate
  // reused by memo_key never asks).
  struct Lazy {
    std::once_flag once;
    std::vector<Mask> masks;
  };
  auto lazy = std::make_shared<Lazy>();
  const SwingSendRule rule = ring->rule();
  auto masks_of = [lazy, p, rule]() -> const std::vector<Mask>& {
    std::call_once(lazy->once, [&] { lazy->masks = rank_zero_rs_masks(p, rule); });
    return lazy->masks;
  };
  flow::MaskSchedule ms;
  ms.action = &eq->action();
  ms.spec = s.spec();
  ms.steps = s.num_steps();
  ms.ports = s.ports();
  ms.exchange = [masks_of, L, p](int st, flow::MaskExchange& out, bool& active) {
    active = st >= 0 && st < 2 * L;
    if (!active) return;
    // Reduce-scatter step t, or the allgather step mirroring it (the peers in
    // reverse order, the sets the other way, copies): swing_bandwidth.cpp's
    // rank_step at rank 0. Its peer's set rs_send(q, t) is g_q(S_t) by
    // SwingEquivariant's certificate, so it is given as the image.
    const bool rs = st < L;
    const int t = rs ? st : 2 * L - 1 - st;
    const Mask& S = masks_of()[static_cast<size_t>(t)];
    out.peer = pi(0, t, p);
    out.combine = rs ? Combine::reduce : Combine::copy;
    out.send = rs ? S.data() : nullptr;
    out.recv = rs ? nullptr : S.data();
    out.other_is_image = true;
    out.set_key = static_cast<uint64_t>(t) + 1;  // S_t, sent at step t and received at its mirror
  };
  const SwingSendRule& r = ring->rule();
  ms.memo_key = "swing-bandwidth-ring sets=" + std::to_string(static_cast<int>(r.sets)) +
                " keep=" + std::to_string(static_cast<int>(r.keep)) + " skip_own=" + std::to_string(r.skip_own) +
                " p=" + std::to_string(p);
  ms.representation =
      "rank 0's Listing 1 sets as p-bit masks by Lit(0, t) = rho(t) - A_{t+1} (reach sets mapped by the group)";
  return ms;
}

}  // namespace collcheck::swing
