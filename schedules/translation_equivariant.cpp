#include "schedules/translation_equivariant.hpp"

namespace collcheck {

TranslationEquivariant::TranslationEquivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate)
    : direct_(std::move(direct)),
      action_(SymmetryGroup::translations, BlockAction::shift, direct_->spec(), h),
      certificate_(std::move(certificate)) {}

TranslationEquivariant::TranslationEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks,
                                               std::string certificate)
    : direct_(std::move(direct)),
      action_(SymmetryGroup::translations, blocks, direct_->spec()),
      certificate_(std::move(certificate)) {}

TranslationEquivariant::TranslationEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks,
                                               std::vector<uint32_t> dims, std::string certificate)
    : direct_(std::move(direct)),
      action_(SymmetryGroup::torus_translations, blocks, direct_->spec(), 0, std::move(dims)),
      certificate_(std::move(certificate)) {}

std::unique_ptr<Schedule> translation_equivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate) {
  if (GroupAction::invalid(SymmetryGroup::translations, BlockAction::shift, direct->spec(), h)) return direct;
  return std::make_unique<TranslationEquivariant>(std::move(direct), h, std::move(certificate));
}

std::unique_ptr<Schedule> alltoall_translation_equivariant(std::unique_ptr<Schedule> direct, std::string certificate) {
  if (GroupAction::invalid(SymmetryGroup::translations, BlockAction::pairs, direct->spec())) return direct;
  return std::make_unique<TranslationEquivariant>(std::move(direct), BlockAction::pairs, std::move(certificate));
}

std::unique_ptr<Schedule> torus_translation_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks,
                                                        const std::vector<uint32_t>& dims, std::string certificate) {
  if (GroupAction::invalid(SymmetryGroup::torus_translations, blocks, direct->spec(), 0, dims)) return direct;
  return std::make_unique<TranslationEquivariant>(std::move(direct), blocks, dims, std::move(certificate));
}

const Schedule& translation_direct(const Schedule& s) {
  if (const auto* t = dynamic_cast<const TranslationEquivariant*>(&s)) return t->direct();
  return s;
}

}  // namespace collcheck
