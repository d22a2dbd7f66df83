#include "topology/link_load.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <stdexcept>

#include "schedules/symmetry.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck {

std::string fixed_decimals(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

uint64_t enumerated_link_cost_memory(uint64_t p, uint64_t links, bool torus) {
  const uint64_t workers = static_cast<uint64_t>(tbb::this_task_arena::max_concurrency()) + 1;
  // sent(p) and total(links), blocks_on(links) on a torus, and one scratch
  // array per link per thread (measure_link_cost); 8 bytes each.
  return (p + links * (1 + (torus ? 1 : 0) + workers)) * sizeof(double);
}

uint64_t torus_link_cost_memory(uint64_t p, size_t dimensions) {
  return enumerated_link_cost_memory(p, 2 * dimensions * p, true);
}

namespace {

struct StepScratch {
  std::vector<double> links;
  std::vector<uint64_t> route;
  std::vector<int64_t> diff;  // torus: blocks entering minus leaving each link's run, per line
  std::vector<TorusTopology::Run> runs;
  RankStep rs;
};

// Adds `blocks` to every link of run `r` in a difference array along its
// line: the run covers the coordinates [lo, lo + hops) of its dimension
// (mod the side), lo = its first coordinate going +, its last going -.
void add_run(const TorusTopology& t, const TorusTopology::Run& r, int64_t blocks, std::vector<int64_t>& diff) {
  const uint64_t n = t.dims()[r.d], st = t.stride(r.d), x = t.coordinate(r.from, r.d);
  const Rank line = static_cast<Rank>(r.from - x * st);
  const uint64_t lo = r.dir > 0 ? x : (x + n - (r.hops - 1) % n) % n, hi = lo + r.hops;
  auto at = [&](uint64_t c) { return t.link(static_cast<Rank>(line + c * st), r.d, r.dir); };
  diff[at(lo)] += blocks;
  if (hi < n) {
    diff[at(hi)] -= blocks;
  } else if (hi > n) {  // wraps: [lo, n) and [0, hi - n)
    diff[at(0)] += blocks;
    diff[at(hi - n)] -= blocks;
  }
}

// Turns the summed difference arrays into each link's blocks: a running sum
// along every line, from coordinate 0, per dimension and direction.
void integrate_runs(const TorusTopology& t, std::vector<int64_t>& diff) {
  for (size_t d = 0; d < t.dims().size(); ++d) {
    const uint64_t n = t.dims()[d], st = t.stride(d);
    for (Rank line = 0; line < t.nodes(); ++line) {
      if (t.coordinate(line, d) != 0) continue;
      for (int dir : {-1, 1}) {
        int64_t acc = 0;
        for (uint64_t c = 0; c < n; ++c) {
          int64_t& v = diff[t.link(static_cast<Rank>(line + c * st), d, dir)];
          acc += v;
          v = acc;
        }
      }
    }
  }
}

// Lambda, Psi, Xi, Theta from the per-step P_s and L_s in `out`.
void finish(LinkCost& out, uint64_t p, double D) {
  const double lg = std::log2(static_cast<double>(p));
  out.lambda = lg > 0 ? out.steps / lg : 0;
  out.psi = D * out.sum_port;
  out.xi = out.sum_port > 0 ? out.sum_link / out.sum_port : 1;
  out.theta = D * out.sum_link;
}

void add_step(LinkCost& out, double P, double L, int step, const std::string& hot, double& worst_ratio) {
  out.port.push_back(P);
  out.link.push_back(L);
  out.sum_port += P;
  out.sum_link += L;
  if (P > 0 && L / P > worst_ratio) {
    worst_ratio = L / P;
    out.worst_step = step;
    out.worst_link = hot;
  }
}

// The quotient (EquivariantSchedule under torus-swing-dihedral, with
// equivariant route ties): g_r maps rank 0's routes onto rank r's, link for
// link, so every directed link's load is the load of its orbit's link at
// node 0. The orbits: per dimension d, O+ = {(y, d, +) : y_d even} and
// {(y, d, -) : y_d odd} (the images of (0, d, +): a translation by an even
// r_d keeps the direction, a reflection reverses it and makes y_d odd), and
// O- the rest; each has p links. Summed over an orbit the loads are p times
// rank 0's hops into it (rank r's hops into O are g_r of rank 0's hops into
// g_r^{-1} O = O), so the load of (0, d, +-) is rank 0's hops into O+-
// weighted by their blocks. Every node sends what rank 0 sends.
// Under torus-translations (no reflections) the orbits are simpler: per
// dimension d and direction, every link (y, d, dir) is the image of
// (0, d, dir), and the same argument gives the load of (0, d, dir) as rank 0's
// hops in dimension d and direction dir.
LinkCost quotient_link_cost(const EquivariantSchedule& s, const TorusTopology& t) {
  const bool dihedral = s.action().group() == SymmetryGroup::torus_swing_dihedral;
  const size_t D = t.dims().size();
  const std::vector<uint64_t> stride = torus_strides(t.dims());
  const double ports = std::max(1, s.ports());
  LinkCost out;
  out.steps = s.num_steps();
  double worst_ratio = -1;
  RankStep rs;
  std::vector<uint64_t> route;
  std::vector<uint64_t> orbit(2 * D);  // in whole blocks (exact, as the enumerated loads)
  const double nb = s.num_blocks();
  for (int step = 0; step < s.num_steps(); ++step) {
    std::fill(orbit.begin(), orbit.end(), 0);
    s.rank_step(0, step, rs);
    uint64_t mine = 0;
    for (size_t i = 0; i < rs.sends.size(); ++i) {
      const Transfer& x = rs.sends[i];
      if (x.peer == 0) continue;
      const uint64_t load = x.blocks.size();
      mine += load;
      route.clear();
      t.route(0, x.peer, s.route_tie(0, step, i), route);
      for (uint64_t l : route) {  // link id = (node * D + d) * 2 + (dir > 0)
        const uint64_t node = l / (2 * D), d = (l / 2) % D, plus = l % 2;
        const uint64_t odd = dihedral ? (node / stride[d]) % t.dims()[d] % 2 : 0;
        orbit[2 * d + (plus ^ odd)] += load;
      }
    }
    const auto hot = std::max_element(orbit.begin(), orbit.end());
    const uint64_t k = static_cast<uint64_t>(hot - orbit.begin());
    add_step(out, static_cast<double>(mine) / nb / ports, static_cast<double>(*hot) / nb, step,
             t.link_name(t.link(0, k / 2, k % 2 ? 1 : -1)), worst_ratio);
  }
  finish(out, s.p(), static_cast<double>(D));
  return out;
}

}  // namespace

LinkCost measure_link_cost(const Schedule& s, const Topology& t, const Schedule* tie_source) {
  if (s.p() != t.nodes())
    throw std::invalid_argument("measure_link_cost: the schedule has " + std::to_string(s.p()) +
                                " ranks, the topology " + std::to_string(t.nodes()) + " nodes");
  if (const EquivariantSchedule* eq = equivariant_view(s))
    if (const auto* torus = dynamic_cast<const TorusTopology*>(&t);
        torus && !tie_source && eq->route_ties_equivariant() &&
        eq->action().torus() && eq->action().dims() == t.dims())
      return quotient_link_cost(*eq, *torus);
  const Schedule& ties = tie_source ? *tie_source : s;
  const uint64_t p = s.p();
  const double D = static_cast<double>(t.dims().size());
  const double ports = std::max(1, s.ports());
  LinkCost out;
  out.steps = s.num_steps();
  std::vector<double> sent(p), total(t.links());
  // On a torus a route is one straight run per dimension, added to a
  // difference array in O(1) and summed along the lines once per step (a
  // run's length does not matter: long sides stay linear); in whole blocks,
  // exact. Other topologies add their routes link by link.
  const auto* torus = dynamic_cast<const TorusTopology*>(&t);
  tbb::enumerable_thread_specific<StepScratch> scratch([&] {
    StepScratch sc;
    if (torus) sc.diff.assign(t.links(), 0);  // scratch made during a step starts zeroed too
    else sc.links.assign(t.links(), 0.0);
    return sc;
  });
  double worst_ratio = -1;
  std::vector<int64_t> blocks_on(torus ? t.links() : 0);
  for (int step = 0; step < s.num_steps(); ++step) {
    for (StepScratch& sc : scratch) {
      if (torus) sc.diff.assign(t.links(), 0);
      else std::fill(sc.links.begin(), sc.links.end(), 0.0);
    }
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p), 256), [&](const tbb::blocked_range<Rank>& range) {
      StepScratch& sc = scratch.local();
      for (Rank r = range.begin(); r != range.end(); ++r) {
        s.rank_step(r, step, sc.rs);
        uint64_t mine = 0;  // blocks
        for (size_t i = 0; i < sc.rs.sends.size(); ++i) {
          const Transfer& x = sc.rs.sends[i];
          if (x.peer == r) continue;  // a send to itself loads no link
          const double load = static_cast<double>(x.blocks.size()) / s.num_blocks();
          mine += x.blocks.size();
          if (torus) {
            sc.runs.clear();
            torus->runs(r, x.peer, ties.route_tie(r, step, i), sc.runs);
            for (const TorusTopology::Run& run : sc.runs)
              add_run(*torus, run, static_cast<int64_t>(x.blocks.size()), sc.diff);
            continue;
          }
          sc.route.clear();
          t.route(r, x.peer, ties.route_tie(r, step, i), sc.route);
          for (uint64_t l : sc.route) sc.links[l] += load;
        }
        sent[r] = static_cast<double>(mine) / s.num_blocks();
      }
    });
    if (torus) {
      std::fill(blocks_on.begin(), blocks_on.end(), 0);
      for (const StepScratch& sc : scratch)
        if (!sc.diff.empty())
          for (size_t l = 0; l < blocks_on.size(); ++l) blocks_on[l] += sc.diff[l];
      integrate_runs(*torus, blocks_on);
      for (size_t l = 0; l < total.size(); ++l) total[l] = static_cast<double>(blocks_on[l]) / s.num_blocks();
    } else {
      std::fill(total.begin(), total.end(), 0.0);
      for (const StepScratch& sc : scratch)
        for (size_t l = 0; l < total.size(); ++l) total[l] += sc.links[l];
    }
    const auto hot = std::max_element(total.begin(), total.end());
    const double P = *std::max_element(sent.begin(), sent.end()) / ports;
    const double L = hot == total.end() ? 0.0 : *hot;
    add_step(out, P, L, step, hot == total.end() ? "" : t.link_name(static_cast<uint64_t>(hot - total.begin())),
             worst_ratio);
  }
  finish(out, p, D);
  return out;
}

}  // namespace collcheck
