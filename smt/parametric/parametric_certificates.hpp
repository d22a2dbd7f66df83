#pragma once
// The parametric certificates verify hands to check_schedule
// (CheckOptions::parametric; properties/parametric_decider.hpp). Each is
// proved once per process, on first use, for its whole interval of p, and
// then decides every instance of its generator in that interval:
//   ring/bandwidth (schedules/ring/ring_rule.hpp): every p in [2, 2^30],
//     smt/ring/ring_certificate.hpp.
// A certificate that is not proved (an obligation fails or times out)
// decides nothing: each instance says why in stats["parametric_declined"]
// and is decided per p as before.
#include "properties/parametric_decider.hpp"

namespace collcheck::smt {

// The largest p the certificate covers: the proof is over unbounded
// integers, the generator's types hold the rule's values only up to here
// (Schedule::num_steps is an int: 2(p - 1) < 2^31; ranks and the ring's
// block count are 32-bit). verify takes p <= 2^24.
inline constexpr uint64_t kRingCertificateMaxP = uint64_t{1} << 30;

const ParametricDecider& parametric_certificates();

}  // namespace collcheck::smt
