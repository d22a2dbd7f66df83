#include "properties/swing/swing_torus_ports.hpp"

#include <map>

#include "properties/catalog.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_torus.hpp"

namespace collcheck {

namespace {

Counterexample at(const Schedule& s, Rank r, int step, std::string expected, std::string actual) {
  Counterexample c = Counterexample::at(s.p(), r, step);
  c.expected = std::move(expected);
  c.actual = std::move(actual);
  return c;
}

}  // namespace

Verdict swing_torus_ports(const Schedule& s) {
  if (const auto* t = dynamic_cast<const SwingTorus*>(&s)) return swing_torus_ports(s, *t);
  // The generator checked by its quotient (schedules/swing/swing_equivariant.hpp):
  // every rank's sends are g_r of rank 0's. g_r maps each coordinate by a
  // translation or a reflection, so it keeps "one coordinate changed" and maps
  // node 0's ports one-to-one onto node r's (a reflected dimension swaps + and
  // -, and the tie at distance d/2, the signed offset, flips with it): the
  // collectives sharing a port at rank r are those sharing its preimage at
  // rank 0. Rank 0 is judged, every count scaled by p; the least failing
  // (step, rank) is rank 0's.
  if (const auto* eq = dynamic_cast<const SwingEquivariant*>(&s))
    if (const auto* t = dynamic_cast<const SwingTorus*>(&eq->direct());
        t && eq->action().group() == SymmetryGroup::torus_swing_dihedral && eq->route_ties_equivariant())
      return swing_torus_ports(s, *t, true);
  Verdict v;
  v.property = prop::swing_torus_ports;
  v.mode = "exact";
  v.stats["applies"] = "no (not a Swing torus schedule)";
  return v;
}

Verdict swing_torus_ports(const Schedule& s, const SwingTorus& torus, bool rank_zero_only) {
  Verdict v;
  v.property = prop::swing_torus_ports;
  v.mode = "exact";
  const SwingTorus* t = &torus;
  const std::vector<uint32_t>& dims = t->dims();
  const int D = static_cast<int>(dims.size());
  const int phase = t->square_phase_steps();
  uint64_t shared = 0, max_per_port = 0;
  RankStep rs;
  const Rank ranks = rank_zero_only ? 1 : static_cast<Rank>(s.p());
  for (Rank r = 0; r < ranks; ++r) {
    const std::vector<uint32_t> x = torus_coords(dims, r);
    for (int step = 0; step < s.num_steps(); ++step) {
      s.rank_step(r, step, rs);
      const int j = t->plan_index(step);
      ++v.checks;
      if (static_cast<int>(rs.sends.size()) != t->collectives()) {
        v.fail(at(s, r, step, std::to_string(t->collectives()) + " sends (one per collective)",
                                  std::to_string(rs.sends.size()) + " sends"));
        continue;
      }
      std::map<std::pair<int, int>, std::vector<int>> by_port;  // (dimension, +1/-1) -> collectives
      for (int c = 0; c < t->collectives(); ++c) {
        const std::vector<uint32_t> y = torus_coords(dims, rs.sends[c].peer);
        int dim = -1, changed = 0;
        for (int e = 0; e < D; ++e)
          if (x[e] != y[e]) dim = e, ++changed;
        if (changed != 1) {
          v.fail(at(s, r, step, "a peer along one torus dimension",
                                    "collective " + std::to_string(c) + " sends to rank " +
                                        std::to_string(rs.sends[c].peer) + ", " + std::to_string(changed) +
                                        " coordinates away"));
          continue;
        }
        const int dir = torus_hop_direction(x[dim], y[dim], dims[dim], t->signed_offset(r, c, j));
        by_port[{dim, dir}].push_back(c);
      }
      bool any_shared = false;
      for (const auto& [port, cs] : by_port) {
        max_per_port = std::max<uint64_t>(max_per_port, cs.size());
        if (cs.size() < 2) continue;
        any_shared = true;
        if (j < phase)
          v.fail(at(s, r, step,
                                    "2D collectives on 2D distinct ports (Sec. 4.1; first " + std::to_string(phase) +
                                        " steps of a non-square torus, Sec. 4.2)",
                                    "port (dimension " + std::to_string(port.first) + ", " +
                                        (port.second > 0 ? "+" : "-") + ") carries collectives " +
                                        std::to_string(cs[0]) + " and " + std::to_string(cs[1])));
      }
      shared += any_shared;
    }
  }
  if (rank_zero_only) {
    v.checks *= s.p();
    v.violations *= s.p();
    shared *= s.p();
    v.stats["method"] = "rank 0, every other rank its image under the torus-swing-dihedral group";
  }
  v.stats["shared_port_rank_steps"] = std::to_string(shared);
  v.stats["square_phase_steps"] = std::to_string(phase);
  v.stats["max_collectives_per_port"] = std::to_string(max_per_port);
  return v;
}

}  // namespace collcheck
