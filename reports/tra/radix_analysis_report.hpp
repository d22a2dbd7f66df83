#pragma once
// TRA's radix analysis (properties/tra/radix_analysis.hpp) rendered for
// `collcheck analyze`: a text table (every radix up to P = 64, else a sample
// with the optimum and sqrt(P)), JSON (every radix) or a self-contained HTML
// page with two inline-SVG log-log charts (K and D; the cost) and the table.
#include <string>

#include "properties/tra/radix_analysis.hpp"

namespace collcheck {

std::string analysis_text(const Analysis& a);
std::string analysis_json(const Analysis& a, const std::string& command);
std::string analysis_html(const Analysis& a, const std::string& command);

}  // namespace collcheck
