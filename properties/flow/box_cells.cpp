#include "properties/flow/box_cells.hpp"

#include <algorithm>
#include <bit>

#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/flow_common.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck::flow {

BoxCells::BoxCells(std::vector<uint32_t> dims) : dims_(std::move(dims)), stride_(torus_strides(dims_)) {
  size_t off = 0;
  for (uint32_t d : dims_) {
    off_.push_back(off);
    nw_.push_back((d + 63) / 64);
    off += nw_.back();
    p_ *= d;
  }
  words_ = off + 1;  // the flag word
}

bool BoxCells::factor_empty(const uint64_t* c, size_t i) const {
  uint64_t any = 0;
  for (size_t w = 0; w < nw_[i]; ++w) any |= c[off_[i] + w];
  return any == 0;
}

void BoxCells::init(uint64_t* c, std::optional<Rank> who) const {
  if (!who) return;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const uint64_t x = (*who / stride_[i]) % dims_[i];
    c[off_[i] + x / 64] |= uint64_t{1} << (x % 64);
  }
}

bool BoxCells::contains(const uint64_t* c, Rank x) const {
  for (size_t i = 0; i < dims_.size(); ++i)
    if (!factor_has(c, i, static_cast<uint32_t>((x / stride_[i]) % dims_[i]))) return false;
  return true;
}

bool BoxCells::includes(const uint64_t* a, const uint64_t* b) const {
  if (empty(b)) return true;
  if (empty(a)) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    for (size_t w = 0; w < nw_[i]; ++w)
      if (b[off_[i] + w] & ~a[off_[i] + w]) return false;
  return true;
}

uint64_t BoxCells::count(const uint64_t* c) const {
  uint64_t n = 1;
  for (size_t i = 0; i < dims_.size(); ++i) {
    uint64_t k = 0;
    for (size_t w = 0; w < nw_[i]; ++w) k += static_cast<uint64_t>(std::popcount(c[off_[i] + w]));
    n *= k;
  }
  return n;
}

std::optional<Rank> BoxCells::reduce(uint64_t* c, const uint64_t* in, bool& held, bool& representable) const {
  const size_t D = dims_.size(), flag = words_ - 1;
  representable = true;
  held = !empty(c);
  if (empty(in)) {
    c[flag] |= in[flag];
    return std::nullopt;
  }
  if (!held) {
    std::copy(in, in + flag, c);
    c[flag] |= in[flag];
    return std::nullopt;
  }
  // Per factor: equal, c's contains in's, in's contains c's, overlapping.
  size_t differ = 0, diff_dim = 0;
  bool c_has_in = true, in_has_c = true, meet = true;
  for (size_t i = 0; i < D; ++i) {
    bool eq = true, sub = true, sup = true, any = false;
    for (size_t w = 0; w < nw_[i]; ++w) {
      const uint64_t a = c[off_[i] + w], b = in[off_[i] + w];
      eq &= a == b;
      sub &= (b & ~a) == 0;  // in_i within c_i
      sup &= (a & ~b) == 0;  // c_i within in_i
      any |= (a & b) != 0;
    }
    if (!eq) ++differ, diff_dim = i;
    c_has_in &= sub;
    in_has_c &= sup;
    meet &= any;
  }
  std::optional<Rank> twice;
  if (meet) {  // the intersection is a box; its least rank is the tuple of per-factor minima
    uint64_t r = 0;
    for (size_t i = 0; i < D; ++i)
      for (size_t w = 0; w < nw_[i]; ++w)
        if (const uint64_t both = c[off_[i] + w] & in[off_[i] + w]) {
          r += (w * 64 + static_cast<uint64_t>(std::countr_zero(both))) * stride_[i];
          break;
        }
    twice = static_cast<Rank>(r);
  }
  if (c_has_in) {
    // the union is c
  } else if (in_has_c) {
    std::copy(in, in + flag, c);
  } else if (differ == 1) {
    for (size_t w = 0; w < nw_[diff_dim]; ++w) c[off_[diff_dim] + w] |= in[off_[diff_dim] + w];
  } else {
    representable = false;
    return twice;
  }
  c[flag] |= in[flag] | (twice ? 1 : 0);
  return twice;
}

std::optional<std::string> BoxCells::copy(uint64_t* c, const uint64_t* in) const {
  bool within = true;  // c within in: nothing lost (ExactCells' fast path)
  if (!empty(c))
    for (size_t i = 0; i < dims_.size() && within; ++i)
      for (size_t w = 0; w < nw_[i]; ++w) within &= (c[off_[i] + w] & ~in[off_[i] + w]) == 0;
  if (within) {
    std::copy(in, in + words_, c);
    return std::nullopt;
  }
  const uint64_t had = count(c), got = count(in);
  std::copy(in, in + words_, c);
  if (got >= had) return std::nullopt;
  return copy_loss_text(had, got);
}

void BoxCells::map(const GroupAction& g, Rank q, const uint64_t* src, uint64_t* dst) const {
  for (size_t i = 0; i < dims_.size(); ++i) {
    bool refl = false;
    const uint32_t at0 = g.coordinate(q, i, 0, refl);  // g_q(x)_i = at0 + x or at0 - x
    if (refl) reflect_bits(dst + off_[i], src + off_[i], dims_[i], at0);
    else rotate_bits(dst + off_[i], src + off_[i], dims_[i], at0);
  }
  dst[words_ - 1] = src[words_ - 1];
}

std::vector<Rank> BoxCells::first_ranks(const uint64_t* c, bool want_in, size_t limit) const {
  // Lexicographic depth-first walk over the coordinate tuples; a subtree is
  // skipped when it cannot hold a wanted rank (inside: a coordinate outside
  // its factor; outside: the prefix is inside and every later factor full).
  const size_t D = dims_.size();
  std::vector<bool> full_from(D + 1, true);
  for (size_t i = D; i-- > 0;) {
    bool full = true;
    for (uint32_t x = 0; x < dims_[i] && full; ++x) full = factor_has(c, i, x);
    full_from[i] = full_from[i + 1] && full;
  }
  std::vector<Rank> out;
  auto walk = [&](auto&& self, size_t i, uint64_t rank, bool outside) -> void {
    if (out.size() >= limit) return;
    if (i == D) {
      if (outside != want_in) out.push_back(static_cast<Rank>(rank));
      return;
    }
    if (want_in && outside) return;
    if (!want_in && !outside && full_from[i]) return;
    for (uint32_t x = 0; x < dims_[i] && out.size() < limit; ++x)
      self(self, i + 1, rank + x * stride_[i], outside || !factor_has(c, i, x));
  };
  walk(walk, 0, 0, false);
  return out;
}

void BoxCells::judge(Verdict& v, const CollectiveSpec& spec, int last_step, Block b, const uint64_t* c) const {
  const Requirement req = spec.required(0, b);
  if (req.kind == Requirement::Kind::none) return;
  ++v.checks;
  const bool doubled = c[words_ - 1] != 0;
  std::vector<Rank> missing, extra;
  if (req.kind == Requirement::Kind::all_ranks) {
    missing = first_ranks(c, false, 9);
  } else {
    if (!contains(c, req.origin)) missing.push_back(req.origin);
    for (Rank x : first_ranks(c, true, 10))
      if (x != req.origin && extra.size() < 9) extra.push_back(x);
  }
  report_wrong_cell(v, req, p_, 0, last_step, b, missing, extra, doubled);
}

}  // namespace collcheck::flow
