#include "smt/parametric/parametric_certificates.hpp"

#include <mutex>

#include "schedules/ring/ring_allreduce.hpp"
#include "smt/ring/ring_certificate.hpp"

namespace collcheck::smt {
namespace {

using parametric::CertificateOutcome;

constexpr unsigned kObligationTimeoutMs = 60000;

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string interval_text(uint64_t lo, uint64_t hi) {
  return "[" + std::to_string(lo) + ", " + (hi == kRingCertificateMaxP ? std::string("2^30") : std::to_string(hi)) +
         "]";
}

class Certificates final : public ParametricDecider {
 public:
  std::optional<ParametricDecision> decide(const Schedule& s, std::string* declined) const override {
    const auto p = ring_allreduce_rule_p(s);
    if (!p) return std::nullopt;
    const auto& rule = parametric::ring_allreduce_rule();
    if (s.ports() < 1) {
      *declined = std::string(kParametricMethod) + " of " + rule.name + ": the schedule claims " +
                  std::to_string(s.ports()) + " ports, the rule makes one send and one receive per step";
      return std::nullopt;
    }
    const CertificateOutcome& cert = ring_outcome();
    if (!cert.proved) {
      *declined = std::string(kParametricMethod) + " of " + rule.name + " not proved: " + cert.failed;
      return std::nullopt;
    }
    if (*p < cert.p_lo || *p > cert.p_hi) {
      *declined = std::string(kParametricMethod) + " of " + rule.name + " covers p in " +
                  interval_text(cert.p_lo, cert.p_hi) + " only";
      return std::nullopt;
    }
    ParametricDecision d = parametric::single_transfer_decision(rule, *p);
    d.method = ring_method_;  // an exact-size copy per instance (a range keeps each)
    return d;
  }

 private:
  const CertificateOutcome& ring_outcome() const {
    std::call_once(ring_once_, [this] {
      try {
        const auto& rule = parametric::ring_allreduce_rule();
        ring_ = parametric::prove_single_transfer_allreduce(rule, 2, kRingCertificateMaxP, kObligationTimeoutMs);
        // One text for every p (reports group instances by it); the
        // invariant itself is where certificate_source points.
        ring_method_ = std::string(kParametricMethod) + ": " + rule.name + " proved by Z3 for every p in " +
                       interval_text(ring_.p_lo, ring_.p_hi) + " at once (" + rule.certificate_source +
                       "); obligations: " + join(ring_.obligations);
      } catch (const std::exception& e) {  // a Z3 error proves nothing
        ring_ = CertificateOutcome{};
        ring_.failed = std::string("Z3 error: ") + e.what();
      }
    });
    return ring_;
  }
  mutable std::once_flag ring_once_;
  mutable CertificateOutcome ring_;
  mutable std::string ring_method_;
};

}  // namespace

const ParametricDecider& parametric_certificates() {
  static const Certificates certificates;
  return certificates;
}

}  // namespace collcheck::smt
