#include "runtime/trace/conformance.hpp"

#include <algorithm>
#include <vector>

#include "runtime/inputs.hpp"

namespace collcheck::runtime::trace {

namespace {

constexpr Rank kNoPeer = ~Rank{0};

// One transfer of one rank in one step, in elements.
struct Entry {
  Rank peer = 0;
  bool send = true;
  BlockSet elements;
  Combine combine = Combine::reduce;
  friend bool operator==(const Entry&, const Entry&) = default;
};

// The canonical order within a rank's step: peer, sends first, elements, combine.
bool before(const Entry& a, const Entry& b) {
  if (a.peer != b.peer) return a.peer < b.peer;
  if (a.send != b.send) return a.send;
  const auto& x = a.elements.ranges();
  const auto& y = b.elements.ranges();
  if (x != y)
    return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end(), [](const auto& u, const auto& v) {
      return u.lo != v.lo ? u.lo < v.lo : u.hi < v.hi;
    });
  return a.combine < b.combine;
}

BlockSet to_elements(const BlockSet& blocks, uint64_t elements, uint64_t nblocks) {
  BlockSet out;
  for (const auto& r : blocks.ranges())
    out.insert_range(block_elements(elements, nblocks, r.lo).first, block_elements(elements, nblocks, r.hi - 1).second);
  return out;
}

// A rank step's transfers in canonical order; with nblocks, its blocks are
// mapped to the elements they stand for (the registry's side), else they
// are elements already (the trace's).
std::vector<Entry> entries(const RankStep& rs, uint64_t elements, uint64_t nblocks) {
  std::vector<Entry> out;
  const auto add = [&](const std::vector<Transfer>& ts, bool send) {
    for (const Transfer& t : ts)
      out.push_back({t.peer, send, nblocks ? to_elements(t.blocks, elements, nblocks) : t.blocks, t.combine});
  };
  add(rs.sends, true);
  add(rs.recvs, false);
  std::sort(out.begin(), out.end(), before);
  return out;
}

std::string shown(const std::vector<Entry>& es, Rank peer) {
  std::string s;
  for (const Entry& e : es) {
    if (e.peer != peer) continue;
    s += (s.empty() ? "" : "; ") + std::string(e.send ? "sends elements " : "receives elements ") +
         e.elements.to_string() + " (" + to_string(e.combine) + ")";
  }
  return s.empty() ? "nothing" : s;
}

// The smallest peer whose transfers differ between the two sorted lists.
std::optional<Rank> first_differing_peer(const std::vector<Entry>& a, const std::vector<Entry>& b) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const Rank pa = i < a.size() ? a[i].peer : kNoPeer, pb = j < b.size() ? b[j].peer : kNoPeer;
    const Rank peer = std::min(pa, pb);
    size_t ei = i, ej = j;
    while (ei < a.size() && a[ei].peer == peer) ++ei;
    while (ej < b.size() && b[ej].peer == peer) ++ej;
    const bool same = ei - i == ej - j && std::equal(a.begin() + static_cast<long>(i), a.begin() + static_cast<long>(ei),
                                                     b.begin() + static_cast<long>(j));
    if (!same) return peer;
    i = ei, j = ej;
  }
  return std::nullopt;
}

}  // namespace

std::string ConformanceDifference::text() const {
  return "step " + std::to_string(step) + ", rank " + std::to_string(rank) + ", peer " + std::to_string(peer) +
         ": the implementation " + traced + "; the registry schedule " + reference;
}

std::optional<std::string> incomparable(const CollectiveSpec& traced, const CollectiveSpec& reference) {
  if (traced.kind != reference.kind)
    return std::string("the implementation is traced as ") + to_string(traced.kind) + ", the registry schedule is " +
           to_string(reference.kind);
  if (traced.p != reference.p)
    return "the trace has " + std::to_string(traced.p) + " ranks, the registry schedule " + std::to_string(reference.p);
  if ((traced.kind == Collective::reduce || traced.kind == Collective::broadcast) && traced.root != reference.root)
    return "the trace's root is " + std::to_string(traced.root) + ", the registry schedule's " +
           std::to_string(reference.root);
  if (traced.nblocks < reference.nblocks)
    return "the registry schedule has " + std::to_string(reference.nblocks) + " blocks and the trace only " +
           std::to_string(traced.nblocks) + " elements: a block without an element cannot be compared (give a count "
           "with at least one element per block)";
  return std::nullopt;
}

Conformance compare(const MaterializedSchedule& traced, const Schedule& reference) {
  const uint64_t p = reference.p(), E = traced.spec.nblocks, nb = reference.num_blocks();
  Conformance out;
  out.steps = std::max(traced.num_steps(), reference.num_steps());
  RankStep ref;
  const RankStep none;
  for (int s = 0; s < out.steps; ++s)
    for (Rank r = 0; r < p; ++r) {
      const RankStep& got = s < traced.num_steps() ? traced.steps[static_cast<size_t>(s)][r] : none;
      if (s < reference.num_steps()) {
        reference.rank_step(r, s, ref);
      } else {
        ref.clear();
      }
      const std::vector<Entry> a = entries(got, E, 0), b = entries(ref, E, nb);
      out.transfers += got.sends.size();
      if (const auto peer = first_differing_peer(a, b)) {
        out.first = ConformanceDifference{s, r, *peer, shown(a, *peer), shown(b, *peer)};
        return out;
      }
    }
  return out;
}

}  // namespace collcheck::runtime::trace
