#include "schedules/schedule.hpp"

namespace collcheck {

const char* to_string(Combine c) { return c == Combine::copy ? "copy" : "reduce"; }

const EquivariantSchedule* equivariant_view(const Schedule& s) { return s.shape().group; }

const EquivariantSchedule* equivariant_core(const Schedule& s) {
  const ScheduleShape sh = s.shape();
  return sh.core ? sh.core->shape().group : nullptr;
}

MaterializedSchedule materialize(const Schedule& s) {
  MaterializedSchedule m;
  m.spec = s.spec();
  m.ports = s.ports();
  m.steps.resize(static_cast<size_t>(s.num_steps()));
  for (int st = 0; st < s.num_steps(); ++st) {
    m.steps[static_cast<size_t>(st)].resize(s.p());
    for (Rank r = 0; r < s.p(); ++r) s.rank_step(r, st, m.steps[static_cast<size_t>(st)][r]);
  }
  return m;
}

}  // namespace collcheck
