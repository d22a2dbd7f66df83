#include "properties/flow/run_cells.hpp"

#include <algorithm>

#include "properties/flow/flow_common.hpp"

namespace collcheck::flow {

RunCells::RunCells(uint64_t p) : p_(p) {
  COLLCHECK_CHECK(p >= 1 && p < (uint64_t{1} << 32) - 1, "run cells need 1 <= p < 2^32 - 1");
}

void RunCells::assign(RunSet* c, BlockSet&& s) const {
  runs_ -= c->ranks.ranges().size();
  runs_ += s.ranges().size();
  c->ranks = std::move(s);
}

void RunCells::release(RunSet* c) const { assign(c, BlockSet{}); }

void RunCells::init(RunSet* c, std::optional<Rank> who) const {
  if (!who) return;
  BlockSet s = c->ranks;
  s.insert(*who);
  assign(c, std::move(s));
}

std::optional<Rank> RunCells::reduce(RunSet* c, const RunSet* in, bool& held, bool& representable) const {
  representable = true;
  const auto& a = c->ranks.ranges();
  const auto& b = in->ranks.ranges();
  held = !a.empty();
  // The lowest common rank: the first overlap of the two sorted run lists.
  std::optional<Rank> twice;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const Block lo = std::max(a[i].lo, b[j].lo), hi = std::min(a[i].hi, b[j].hi);
    if (lo < hi) {
      twice = lo;
      break;
    }
    if (a[i].hi <= b[j].hi) ++i;
    else ++j;
  }
  // The union: both lists merged by their first rank (insert_range appends
  // or extends in that order, so the result is canonical in one pass).
  BlockSet u;
  u.reserve(a.size() + b.size());
  for (size_t i = 0, j = 0; i < a.size() || j < b.size();) {
    const bool take_a = j == b.size() || (i < a.size() && a[i].lo <= b[j].lo);
    const BlockSet::Range& r = take_a ? a[i++] : b[j++];
    u.insert_range(r.lo, r.hi);
  }
  assign(c, std::move(u));
  c->doubled = c->doubled || in->doubled || twice.has_value();
  return twice;
}

std::optional<std::string> RunCells::copy(RunSet* c, const RunSet* in) const {
  const uint64_t had = c->ranks.size(), got = in->ranks.size();
  // As ExactCells::copy: no loss when `in` holds everything `c` holds;
  // otherwise the loss is the difference of the counts, if positive.
  const bool contained = c->ranks.minus(in->ranks).empty();
  assign(c, BlockSet(in->ranks));
  c->doubled = in->doubled;
  if (contained || got >= had) return std::nullopt;
  return copy_loss_text(had, got);
}

void RunCells::map(Rank q, bool reflect, const RunSet* src, RunSet* dst) const {
  scratch_.clear();
  const uint64_t p = p_;
  auto add = [&](uint64_t lo, uint64_t hi) {  // [lo, hi) with lo < p, hi <= lo + p: split where it wraps
    if (hi <= p) {
      scratch_.push_back({static_cast<Block>(lo), static_cast<Block>(hi)});
    } else {
      scratch_.push_back({static_cast<Block>(lo), static_cast<Block>(p)});
      scratch_.push_back({0, static_cast<Block>(hi - p)});
    }
  };
  const uint64_t s = q % p;
  for (const auto& r : src->ranks.ranges()) {
    if (!reflect) {
      add((r.lo + s) % p, (r.lo + s) % p + (r.hi - r.lo));
    } else {
      // x in [lo, hi) -> (s - x) mod p, i.e. the run [(s - hi + 1) mod p, .. + (hi - lo)).
      const uint64_t first = (s + p - (r.hi - 1) % p) % p;
      add(first, first + (r.hi - r.lo));
    }
  }
  std::sort(scratch_.begin(), scratch_.end(), [](const auto& x, const auto& y) { return x.lo < y.lo; });
  BlockSet out;
  out.reserve(scratch_.size());
  for (const auto& r : scratch_) out.insert_range(r.lo, r.hi);
  assign(dst, std::move(out));
  dst->doubled = src->doubled;
}

void RunCells::judge(Verdict& v, const CollectiveSpec& spec, int last_step, Block b, const RunSet* c) const {
  const Requirement req = spec.required(0, b);
  if (req.kind == Requirement::Kind::none) return;
  ++v.checks;
  std::vector<Rank> missing, extra;
  const auto& runs = c->ranks.ranges();
  if (req.kind == Requirement::Kind::all_ranks) {
    // The first 9 ranks in [0, p) outside the runs.
    uint64_t at = 0;
    for (size_t i = 0; i <= runs.size() && missing.size() < 9; ++i) {
      const uint64_t gap_end = i < runs.size() ? std::min<uint64_t>(runs[i].lo, p_) : p_;
      for (uint64_t x = at; x < gap_end && missing.size() < 9; ++x) missing.push_back(static_cast<Rank>(x));
      if (i < runs.size()) at = runs[i].hi;
    }
  } else {
    if (!c->ranks.contains(req.origin)) missing.push_back(req.origin);
    for (const auto& r : runs)
      for (uint64_t x = r.lo; x < r.hi && x < p_ && extra.size() < 9; ++x)
        if (x != req.origin) extra.push_back(static_cast<Rank>(x));
  }
  report_wrong_cell(v, req, p_, 0, last_step, b, missing, extra, c->doubled);
}

}  // namespace collcheck::flow
