#pragma once
// The torus analysis (properties/topology/torus_analysis.hpp) rendered for
// `collcheck analyze --dims`: a text table, JSON, or a self-contained HTML
// page with the table and an inline-SVG log-log chart of Xi against p per
// algorithm (the picture to set beside the Swing paper's Table 2).
#include <string>

#include "properties/topology/torus_analysis.hpp"

namespace collcheck {

std::string torus_analysis_text(const TorusAnalysis& a);
std::string torus_analysis_json(const TorusAnalysis& a, const std::string& command);
std::string torus_analysis_html(const TorusAnalysis& a, const std::string& command);

}  // namespace collcheck
