#pragma once
// Requirements text that is not a file of its own: the `pip:` list of an environment.yml, whose
// items become the lines of a requirements text while problems point into the yml.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aitk/project/requirements_file.hpp"

namespace aitk::project::detail {

struct RequirementsSource {
    std::string label;               // SourceLocation::file of lines and problems
    std::filesystem::path base_dir;  // relative includes and paths start here
    // Where physical line i + 1 of the text starts in `label` (line, column); empty: the text
    // is the file itself.
    std::vector<std::pair<std::size_t, std::size_t>> line_starts;
    // Why a problem in this text gives its place but never its text, or empty: the file lies
    // outside the folder of the input the user named (an `-r /etc/shadow` inside it), or not
    // everyone may read it (fs::readable_by_everyone).
    std::string hidden_because;
};

Loaded<RequirementsFile> parse_requirements_source(std::string_view text,
                                                   const RequirementsSource& source,
                                                   const RequirementsReadOptions& options);

}  // namespace aitk::project::detail
