#include "properties/trivance/trivance_torus_coverage.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "properties/catalog.hpp"
#include "schedules/int_math.hpp"
#include "schedules/trivance/trivance_torus.hpp"

namespace collcheck {

namespace {

std::string shape_text(const std::vector<uint32_t>& dims) {
  std::string s;
  for (uint32_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

}  // namespace

Verdict trivance_torus_coverage(const Schedule& s, const std::vector<uint32_t>& dims) {
  Verdict v;
  v.property = prop::trivance_coverage;
  // A set of contributing nodes per (collective, node): which nodes, not how
  // often (multiplicity is exactly-once's job).
  v.mode = "exact (bitset per collective and node)";
  const uint64_t p = s.p();
  const int D = static_cast<int>(dims.size());
  uint64_t prod = 1;
  for (uint32_t n : dims) prod *= n;
  if (D == 0 || prod != p) {
    Counterexample c = Counterexample::at(p, std::nullopt);
    c.expected = "a torus shape with product p";
    c.actual = "shape '" + shape_text(dims) + "'";
    c.message = "the schedule is not on the given torus";
    v.fail(c);
    return v;
  }
  if (p > (uint64_t{1} << 14)) {
    v.status = Status::skipped;
    v.stats["skipped"] = "p > 2^14";
    return v;
  }
  bool judged = true;
  for (uint32_t n : dims) judged = judged && n == dims.front() && is_pow3(n);
  v.stats["lemma_applies"] = judged ? "yes (equal sides, a power of three)" : "no (measured only)";

  // Coordinates of every node (row-major, as TrivanceTorus).
  std::vector<uint64_t> stride(D, 1);
  for (int d = D - 2; d >= 0; --d) stride[d] = stride[d + 1] * dims[d + 1];
  auto coord = [&](uint64_t r, int d) { return static_cast<uint32_t>((r / stride[d]) % dims[d]); };
  // The dimension r and q differ in (-1: none or several).
  auto line_dim = [&](uint64_t r, uint64_t q) {
    int dim = -1;
    for (int d = 0; d < D; ++d)
      if (coord(r, d) != coord(q, d)) {
        if (dim >= 0) return -1;
        dim = d;
      }
    return dim;
  };

  const auto* torus = dynamic_cast<const TrivanceTorus*>(&s);
  const uint64_t per_c = std::max<uint64_t>(1, s.num_blocks() / D);
  // Rank r's transfers at `step`, one RankStep per collective.
  auto fetch = [&](Rank r, int step, std::vector<RankStep>& by_c, RankStep& tmp) {
    for (auto& x : by_c) x.clear();
    if (torus) {
      for (int c = 0; c < D; ++c) torus->collective_step(r, step, c, by_c[c], false);
      return;
    }
    s.rank_step(r, step, tmp);
    for (int side = 0; side < 2; ++side)
      for (const Transfer& t : side ? tmp.recvs : tmp.sends) {
        if (t.blocks.empty()) continue;
        const uint64_t c = std::min<uint64_t>(t.blocks.ranges().front().lo / per_c, D - 1);
        (side ? by_c[c].recvs : by_c[c].sends).push_back(t);
      }
  };

  const size_t W = (p + 63) / 64;
  std::vector<uint64_t> cov(static_cast<size_t>(D) * p * W, 0), prev;
  auto bits = [&](int c, uint64_t r) { return cov.data() + (static_cast<size_t>(c) * p + r) * W; };
  for (int c = 0; c < D; ++c)
    for (uint64_t r = 0; r < p; ++r) bits(c, r)[r / 64] |= uint64_t{1} << (r % 64);

  std::vector<RankStep> by_c(D);
  RankStep tmp;
  std::vector<std::vector<int>> reduce_steps(D, std::vector<int>(D, 0));  // [c][e]: judged rule's k_e so far
  std::vector<int> rs_index(D, 0);  // reducing steps seen per collective (the paper's j)
  std::vector<int> ag_index(D, 0);  // copy-only (allgather) steps seen per collective
  uint64_t collisions = 0, idle = 0;
  std::string covered, claimed;
  std::vector<std::vector<char>> want(D);  // per dimension: allowed |u_e - v_e| (torus distance)
  for (int step = 0; step < s.num_steps(); ++step) {
    prev = cov;
    std::vector<char> reducing(D, 0), copying(D, 0);
    for (uint64_t r = 0; r < p; ++r) {
      fetch(static_cast<Rank>(r), step, by_c, tmp);
      std::vector<int> users(D, 0);  // collectives using dimension e at this rank-step
      for (int c = 0; c < D; ++c) {
        std::vector<int> used;
        std::vector<std::vector<Rank>> sp(D), rp(D);
        for (int side = 0; side < 2; ++side)
          for (const Transfer& t : side ? by_c[c].recvs : by_c[c].sends) {
            if (t.peer >= p) continue;  // matching reports it
            const int e = line_dim(r, t.peer);
            if (e < 0) {
              Counterexample cx = Counterexample::at(p, static_cast<Rank>(r), step, std::nullopt, t.peer);
              cx.expected = "peers on one torus line (one coordinate differs)";
              cx.actual = "peer " + std::to_string(t.peer) + " differs in " + (t.peer == r ? "no" : "several") +
                          " coordinates";
              cx.message = "collective " + std::to_string(c) + " talks off the torus lines";
              v.fail(cx);
              continue;
            }
            (side ? rp[e] : sp[e]).push_back(t.peer);
            if (std::find(used.begin(), used.end(), e) == used.end()) used.push_back(e);
            if (side && t.combine == Combine::reduce) reducing[c] = 1;
            uint64_t* mine = bits(c, r);
            const uint64_t* theirs = prev.data() + (static_cast<size_t>(c) * p + t.peer) * W;
            if (!side) continue;
            if (t.combine == Combine::reduce)
              for (size_t w = 0; w < W; ++w) mine[w] |= theirs[w];
            else if (per_c == 1)
              std::copy(theirs, theirs + W, mine);  // a whole-share copy (fold); allgather copies are skipped
          }
        for (int e : used) {
          ++users[e];
          auto distinct = [](std::vector<Rank> l) {
            std::sort(l.begin(), l.end());
            return static_cast<size_t>(std::unique(l.begin(), l.end()) - l.begin());
          };
          const bool both = dims[e] < 3 || (distinct(sp[e]) >= 2 && distinct(rp[e]) >= 2);
          if (!both) ++idle;
          if (!judged) continue;
          v.checks++;
          if (!both) {
            Counterexample cx = Counterexample::at(p, static_cast<Rank>(r), step);
            cx.expected = "2 distinct send and 2 distinct receive peers along dimension " + std::to_string(e);
            cx.actual = std::to_string(distinct(sp[e])) + " send peer(s), " + std::to_string(distinct(rp[e])) +
                        " receive peer(s)";
            cx.message = "collective " + std::to_string(c) + " leaves a port of its dimension idle";
            v.fail(cx);
          }
        }
        bool copies = !by_c[c].sends.empty() || !by_c[c].recvs.empty();
        for (const auto* l : {&by_c[c].sends, &by_c[c].recvs})
          for (const Transfer& t : *l) copies = copies && t.combine == Combine::copy;
        if (copies) copying[c] = 1;
        if (judged && !used.empty()) {
          // Sec. 5 / Fig. 5: collective c in step j uses dimension (c + j) mod
          // D; an allgather (copy) step mirrors reduce-scatter step j.
          const int j = copies ? rs_index[c] - 1 - ag_index[c] : rs_index[c];
          const int rule = ((c + j) % D + D) % D;
          v.checks++;
          if (used.size() != 1 || used.front() != rule) {
            Counterexample cx = Counterexample::at(p, static_cast<Rank>(r), step);
            cx.expected = "collective " + std::to_string(c) + " on dimension (c + j) mod D = " + std::to_string(rule);
            std::string u;
            for (int e : used) u += (u.empty() ? "" : ", ") + std::to_string(e);
            cx.actual = "dimension(s) " + u;
            cx.message = "the collectives do not switch dimensions as in Fig. 5";
            v.fail(cx);
          }
        }
      }
      for (int e = 0; e < D; ++e)
        if (users[e] > 1) ++collisions;
      if (judged)
        for (int e = 0; e < D; ++e) {
          v.checks++;
          if (users[e] > 1) {
            Counterexample cx = Counterexample::at(p, static_cast<Rank>(r), step);
            cx.expected = "each collective on a distinct dimension";
            cx.actual = std::to_string(users[e]) + " collectives on dimension " + std::to_string(e);
            cx.message = "two collectives share a dimension's ports in one step";
            v.fail(cx);
          }
        }
    }
    for (int c = 0; c < D; ++c) ag_index[c] += copying[c] && !reducing[c];
    // Coverage after this step, per collective that reduced in it (or, with
    // one block per collective, copied its whole share: the fold's copy-back).
    for (int c = 0; c < D; ++c) {
      if (!reducing[c] && !(copying[c] && per_c == 1)) continue;
      if (c == 0) {
        uint64_t fewest = p;
        for (uint64_t r = 0; r < p; ++r) {
          uint64_t n = 0;
          for (size_t w = 0; w < W; ++w) n += std::popcount(bits(0, r)[w]);
          fewest = std::min(fewest, n);
        }
        covered += (covered.empty() ? "" : ",") + std::to_string(fewest);
      }
      if (!reducing[c]) continue;
      const int j = rs_index[c]++;
      if (!judged) continue;
      ++reduce_steps[c][(c + j) % D];
      uint64_t expect_count = 1;
      for (int e = 0; e < D; ++e) {
        uint64_t R = 1;
        for (int i = 0; i < reduce_steps[c][e]; ++i) R *= 3;
        R = (R - 1) / 2;
        const uint64_t n = dims[e];
        R = std::min(R, n / 2);
        want[e].assign(n, 0);
        for (uint64_t x = 0; x < n; ++x) want[e][x] = std::min(x, n - x) <= R;
        expect_count *= std::min<uint64_t>(2 * R + 1, n);
      }
      if (c == 0) claimed += (claimed.empty() ? "" : ",") + std::to_string(expect_count);
      for (uint64_t r = 0; r < p; ++r) {
        v.checks++;
        const uint64_t* mine = bits(c, r);
        for (uint64_t u = 0; u < p; ++u) {
          bool in = true;
          for (int e = 0; e < D && in; ++e) {
            const uint32_t a = coord(r, e), b = coord(u, e);
            in = want[e][(b + dims[e] - a) % dims[e]];
          }
          const bool has = (mine[u / 64] >> (u % 64)) & 1;
          if (has != in) {
            Counterexample cx = Counterexample::at(p, static_cast<Rank>(r), step, std::nullopt, static_cast<Rank>(u));
            std::string radii;
            for (int e = 0; e < D; ++e) {
              uint64_t R = 1;
              for (int i = 0; i < reduce_steps[c][e]; ++i) R *= 3;
              radii += (radii.empty() ? "" : " x ") + std::to_string((R - 1) / 2);
            }
            cx.expected = "collective " + std::to_string(c) + ": data from exactly the nodes of the product window of radii " +
                          radii + " (Lemma 4.2 per dimension)";
            cx.actual = std::string(has ? "holds" : "misses") + " node " + std::to_string(u);
            cx.message = "coverage after this step is not the product of the ring windows";
            v.fail(cx);
            break;
          }
        }
      }
    }
  }
  v.stats["covered_per_step"] = covered;
  if (judged) v.stats["claimed_covered_per_step"] = claimed;
  v.stats["port_collision_rank_steps"] = std::to_string(collisions);
  v.stats["idle_port_rank_steps"] = std::to_string(idle);
  v.stats["shape"] = shape_text(dims);
  return v;
}

}  // namespace collcheck
