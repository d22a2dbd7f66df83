#include "topology/link_load.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <stdexcept>

namespace collcheck {

std::string fixed_decimals(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

uint64_t torus_link_cost_memory(uint64_t p, size_t dimensions) {
  const uint64_t workers = static_cast<uint64_t>(tbb::this_task_arena::max_concurrency()) + 1;
  return (2 * dimensions * p * workers + 2 * p) * sizeof(double);
}

namespace {

struct StepScratch {
  std::vector<double> links;
  std::vector<uint64_t> route;
  RankStep rs;
};

}  // namespace

LinkCost measure_link_cost(const Schedule& s, const Topology& t, const Schedule* tie_source) {
  if (s.p() != t.nodes())
    throw std::invalid_argument("measure_link_cost: the schedule has " + std::to_string(s.p()) +
                                " ranks, the topology " + std::to_string(t.nodes()) + " nodes");
  const Schedule& ties = tie_source ? *tie_source : s;
  const uint64_t p = s.p();
  const double D = static_cast<double>(t.dims().size());
  const double ports = std::max(1, s.ports());
  LinkCost out;
  out.steps = s.num_steps();
  std::vector<double> sent(p), total(t.links());
  tbb::enumerable_thread_specific<StepScratch> scratch([&] {
    StepScratch sc;
    sc.links.assign(t.links(), 0.0);
    return sc;
  });
  double worst_ratio = -1;
  for (int step = 0; step < s.num_steps(); ++step) {
    for (StepScratch& sc : scratch) std::fill(sc.links.begin(), sc.links.end(), 0.0);
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p), 256), [&](const tbb::blocked_range<Rank>& range) {
      StepScratch& sc = scratch.local();
      for (Rank r = range.begin(); r != range.end(); ++r) {
        s.rank_step(r, step, sc.rs);
        double mine = 0;
        for (size_t i = 0; i < sc.rs.sends.size(); ++i) {
          const Transfer& x = sc.rs.sends[i];
          if (x.peer == r) continue;  // a send to itself loads no link
          const double load = static_cast<double>(x.blocks.size()) / s.num_blocks();
          mine += load;
          sc.route.clear();
          t.route(r, x.peer, ties.route_tie(r, step, i), sc.route);
          for (uint64_t l : sc.route) sc.links[l] += load;
        }
        sent[r] = mine;
      }
    });
    std::fill(total.begin(), total.end(), 0.0);
    for (const StepScratch& sc : scratch)
      for (size_t l = 0; l < total.size(); ++l) total[l] += sc.links[l];
    const auto hot = std::max_element(total.begin(), total.end());
    const double P = *std::max_element(sent.begin(), sent.end()) / ports;
    const double L = hot == total.end() ? 0.0 : *hot;
    out.port.push_back(P);
    out.link.push_back(L);
    out.sum_port += P;
    out.sum_link += L;
    if (P > 0 && L / P > worst_ratio) {
      worst_ratio = L / P;
      out.worst_step = step;
      out.worst_link = t.link_name(static_cast<uint64_t>(hot - total.begin()));
    }
  }
  const double lg = std::log2(static_cast<double>(p));
  out.lambda = lg > 0 ? out.steps / lg : 0;
  out.psi = D * out.sum_port;
  out.xi = out.sum_port > 0 ? out.sum_link / out.sum_port : 1;
  out.theta = D * out.sum_link;
  return out;
}

}  // namespace collcheck
