#pragma once
// Pieces every input kind's ProjectInput is made with: the fixed rendering of requirement lines
// and options the lock's input hash covers, and the torch pins copied from plain lines. Private
// to the project layer.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/project/project_input.hpp"

namespace aitk::project::detail {

// One line per requirement (`prefix`, "-e " when editable, the text after ${VAR} expansion, its
// --hash options): comments and layout of the file do not count.
std::string render_lines(const std::vector<RequirementLine>& lines, std::string_view prefix);
// One line per option, in a fixed order.
std::string render_options(const RequirementsOptions& options);
// Unconditional plain torch/torchvision/torchaudio lines of `requirements` (no marker, no URL,
// applying everywhere) into `pins`, so the backend choice knows the release; the lines stay in
// `requirements`.
void copy_torch_pins(const std::vector<InputRequirement>& requirements,
                     std::map<std::string, std::string>& pins);

}  // namespace aitk::project::detail
