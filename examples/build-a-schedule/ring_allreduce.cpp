// Builds the ring allreduce (reduce-scatter, then allgather, p blocks, one
// neighbour per step) as plain data, checks it with check_schedule, the
// checker `collcheck verify` and `collcheck check-file` run, then breaks it
// (one rank copies where it must reduce) and shows the checker's minimal
// counterexample. Exit 0 when the correct schedule holds and the broken one
// is refuted, 1 otherwise.
#include <iostream>

#include "properties/instance_checker.hpp"
#include "schedules/schedule.hpp"

using namespace collcheck;

namespace {

// One message from `from` to `to` of block `b` in step `s`: both ends list it.
void message(MaterializedSchedule& m, int s, Rank from, Rank to, Block b, Combine c) {
  m.steps[s][from].sends.push_back({to, BlockSet::single(b), c});
  m.steps[s][to].recvs.push_back({from, BlockSet::single(b), c});
}

MaterializedSchedule ring_allreduce(uint64_t p) {
  MaterializedSchedule m;
  m.spec = CollectiveSpec{Collective::allreduce, p, p, 0};
  m.steps.assign(2 * (p - 1), std::vector<RankStep>(p));
  for (uint64_t s = 0; s + 1 < p; ++s)
    for (Rank r = 0; r < p; ++r) {
      // Reduce-scatter: block r - s moves on and is combined; after p - 1
      // steps rank r holds block r + 1 complete.
      message(m, static_cast<int>(s), r, (r + 1) % p, (r + p - s) % p, Combine::reduce);
      // Allgather: the complete blocks travel once more around the ring.
      message(m, static_cast<int>(p - 1 + s), r, (r + 1) % p, (r + 1 + p - s) % p, Combine::copy);
    }
  return m;
}

// Prints every property's verdict; returns the instance's status.
Status check(const char* title, MaterializedSchedule m) {
  const MaterializedView view(std::move(m));
  const InstanceCheck result = check_schedule(view, /*claim=*/nullptr, /*hook=*/{}, CheckOptions{});
  std::cout << title << " (" << result.mode << "):\n";
  for (const Verdict& v : result.verdicts) {
    std::cout << "  " << v.property << ": " << to_string(v.status);  // cost: skipped, no claim given
    if (v.counterexample) std::cout << " at " << v.counterexample->location() << ": " << v.counterexample->message;
    std::cout << "\n";
  }
  return combined_status(result.verdicts);
}

}  // namespace

int main() {
  const uint64_t p = 6;
  const Status good = check("ring allreduce, p = 6", ring_allreduce(p));

  // The broken one: in step 1 rank 2 sends block 1 to rank 3, which
  // overwrites its own block 1 instead of combining: rank 3's contribution
  // to block 1 is lost.
  MaterializedSchedule broken = ring_allreduce(p);
  broken.steps[1][2].sends[0].combine = Combine::copy;
  broken.steps[1][3].recvs[0].combine = Combine::copy;
  const Status bad = check("the same with one copy for a reduce", std::move(broken));

  const bool ok = good == Status::holds && bad == Status::violated;
  std::cout << (ok ? "as expected: the ring holds, the broken ring is refuted\n" : "UNEXPECTED\n");
  return ok ? 0 : 1;
}
