#include "schedules/translation_equivariant.hpp"

namespace collcheck {

TranslationEquivariant::TranslationEquivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate)
    : direct_(std::move(direct)),
      action_(SymmetryGroup::translations, BlockAction::shift, direct_->spec(), h),
      certificate_(std::move(certificate)) {}

std::unique_ptr<Schedule> translation_equivariant(std::unique_ptr<Schedule> direct, Block h, std::string certificate) {
  if (GroupAction::invalid(SymmetryGroup::translations, BlockAction::shift, direct->spec(), h)) return direct;
  return std::make_unique<TranslationEquivariant>(std::move(direct), h, std::move(certificate));
}

}  // namespace collcheck
