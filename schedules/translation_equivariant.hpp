#pragma once
// Circulant schedules as EquivariantSchedule (schedules/symmetry.hpp) under
// the translations g_r(x) = x + r (mod p), blocks shifted by r*h: rank 0's
// transfers from the direct generator, every other rank's as their image.
//
// The faithfulness half of the certificate is the generator's own rule: a
// schedule qualifies only if its rule reads the rank r through r + c (mod p)
// alone, for peers and for blocks (block b of rank r is block b - r*h of rank
// 0), so rank r's transfers are rank 0's translated by r. Each wrapped
// generator states that argument where it is written (ring_allreduce.hpp,
// traff_allgather.hpp, traff_reduce_scatter.hpp, traff_allreduce.hpp), and
// tests/unit/schedules/translation_equivariant_test.cpp compares every rank's
// every step with the direct generator for every p <= 200 (and a few larger
// p), and catches a wrong shift.
//
// Rank 0's steps are computed on demand, not kept: the ring has 2(p-1) of
// them (four million at p = 2^21), and each is one generator call.
#include <memory>
#include <string>

#include "schedules/symmetry.hpp"

namespace collcheck {

class TranslationEquivariant final : public EquivariantSchedule {
 public:
  // `direct`: a generator whose rank r is rank 0 translated by r, blocks
  // shifted by r*h; `certificate`: why (one sentence, printed in reports).
  // Throws InputError when the translations do not act (GroupAction::invalid).
  TranslationEquivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate);
  const CollectiveSpec& spec() const override { return direct_->spec(); }
  int num_steps() const override { return direct_->num_steps(); }
  int ports() const override { return direct_->ports(); }
  void representative_step(int s, RankStep& out) const override { direct_->rank_step(0, s, out); }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return certificate_; }
  const Schedule& direct() const { return *direct_; }

 private:
  std::unique_ptr<Schedule> direct_;
  GroupAction action_;
  std::string certificate_;
};

// `direct` wrapped as TranslationEquivariant where the translations act on
// its collective with shift h (GroupAction::invalid), `direct` itself otherwise.
std::unique_ptr<Schedule> translation_equivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate);

}  // namespace collcheck
