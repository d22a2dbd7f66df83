#include "properties/exactly_once.hpp"

namespace collcheck {

void exactly_once_double(Verdict& v, uint64_t p, Rank r, int step, Block b, Rank sender, Rank twice) {
  Counterexample c = Counterexample::at(p, r, step, b, sender);
  if (v.counted_beyond_minimal(c)) return;
  c.expected = "contribution of rank " + std::to_string(twice) + " at most once";
  c.actual = "twice (already held, and again from rank " + std::to_string(sender) + ")";
  c.message = "reduce combines the contribution of rank " + std::to_string(twice) + " a second time";
  v.fail(std::move(c));
}

void exactly_once_fingerprint(Verdict& v, uint64_t p, Rank r, int last_step, Block b, uint64_t expected_count,
                              uint64_t count, bool sum_mismatch) {
  Counterexample c = Counterexample::at(p, r, last_step, b);
  if (v.counted_beyond_minimal(c)) return;
  c.expected = std::to_string(expected_count) + " contributions, each once";
  c.actual = std::to_string(count) + " contributions" + (sum_mismatch ? ", fingerprint differs" : "");
  c.message = count > expected_count ? "some contribution was combined more than once"
                                     : "one contribution counted twice while another is missing";
  v.fail(std::move(c));
}

}  // namespace collcheck
