#pragma once
// Circulant schedules as EquivariantSchedule (schedules/symmetry.hpp) under
// the translations g_r(x) = x + r (mod p), blocks shifted by r*h, or on a
// torus under the torus translations (g_r(x)_i = x_i + r_i mod d_i, blocks
// as ranks in each part, or fixed): rank 0's transfers from the direct
// generator, every other rank's as their image.
//
// The faithfulness half of the certificate is the generator's own rule: a
// schedule qualifies only if its rule reads the rank r through r + c (mod p)
// alone (on a torus: each coordinate x_i through x_i + c), for peers and for
// blocks (block b of rank r is block g_r^{-1}(b) of rank 0), so rank r's
// transfers are rank 0's translated by r. Each wrapped generator states that
// argument where it is written (ring_allreduce.hpp, traff_allgather.hpp,
// bucket_torus.hpp, trivance_torus.hpp), and
// tests/unit/schedules/translation_equivariant_test.cpp (rings: every
// p <= 200 and a few larger) and torus_translation_equivariant_test.cpp
// (tori: every shape of small sides up to 3 dimensions) compare every rank's
// every step with the direct generator, and catch a wrong shift, a generator
// that is not circulant and Trivance's fold.
//
// Rank 0's steps are computed on demand, not kept: the ring has 2(p-1) of
// them (four million at p = 2^21), and each is one generator call.
#include <memory>
#include <string>
#include <vector>

#include "schedules/symmetry.hpp"

namespace collcheck {

class TranslationEquivariant final : public EquivariantSchedule {
 public:
  // `direct`: a generator whose rank r is rank 0 translated by r, blocks
  // shifted by r*h; `certificate`: why (one sentence, printed in reports).
  // Throws InputError when the translations do not act (GroupAction::invalid).
  TranslationEquivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate);
  // On the ring with blocks as (source, destination) pairs (all-to-all:
  // BlockAction::pairs, block (i, j) of rank r is block (i - r, j - r) of
  // rank 0).
  TranslationEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks, std::string certificate);
  // On the torus `dims` (the torus translations), blocks as ranks in each
  // part or fixed.
  TranslationEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks, std::vector<uint32_t> dims,
                         std::string certificate);
  const CollectiveSpec& spec() const override { return direct_->spec(); }
  int num_steps() const override { return direct_->num_steps(); }
  int ports() const override { return direct_->ports(); }
  void representative_step(int s, RankStep& out) const override { direct_->rank_step(0, s, out); }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return certificate_; }
  int64_t route_tie(Rank r, int s, size_t send) const override { return direct_->route_tie(r, s, send); }
  // On a torus: the wrapped generators' ties do not depend on the rank (the
  // bucket's is its collective's direction, Trivance's none), and a
  // translation keeps every direction, so they are equivariant (tested at
  // every rank for every declared torus variant in
  // torus_translation_equivariant_test.cpp; a generator wrapped here later
  // must keep its ties rank-independent, or the link loads' orbit argument
  // fails).
  bool route_ties_equivariant() const override { return action_.torus(); }
  const Schedule& direct() const { return *direct_; }

 private:
  std::unique_ptr<Schedule> direct_;
  GroupAction action_;
  std::string certificate_;
};

// `direct` wrapped as TranslationEquivariant where the translations act on
// its collective with shift h (GroupAction::invalid), `direct` itself otherwise.
std::unique_ptr<Schedule> translation_equivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate);
// An all-to-all whose rank r is rank 0 translated by r, blocks as
// (source, destination) pairs moved at both ends; `direct` itself where the
// translations do not act (not an all-to-all of p * p blocks).
std::unique_ptr<Schedule> alltoall_translation_equivariant(std::unique_ptr<Schedule> direct, std::string certificate);
// The same on the torus `dims`.
std::unique_ptr<Schedule> torus_translation_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks,
                                                        const std::vector<uint32_t>& dims, std::string certificate);

// The direct generator behind `s` if `s` is a TranslationEquivariant, else
// `s` (for properties that read a generator's own plan).
const Schedule& translation_direct(const Schedule& s);

}  // namespace collcheck
