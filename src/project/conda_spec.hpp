#pragma once
// One dependency string of an environment.yml, read the way conda's MatchSpec reads the forms
// found in such files (conda/models/match_spec.py, _parse_spec_str): "name",
// "name=1.2" (any 1.2.x), "name=1.2=build" (exactly 1.2), "name==1.2", "name>=1.2,<2",
// "name 1.2 build", "channel::name…" and "name[version='>=1',build=py*]".
#include <cstddef>
#include <string>
#include <string_view>

#include "aitk/project/conda_environment.hpp"

namespace aitk::project::detail {

struct CondaSpecError {
    std::size_t offset = 0;  // into the text
    std::string message;
    std::string hint;
};

// Fills channel, name (lower case), version and build; `where` and `text` are the caller's.
// The version is stored as conda means it: exact "1.2", any-of "1.2.*", or with operators
// (">=1.2,<2"); empty when the spec gives none.
util::Expected<CondaSpec, CondaSpecError> parse_conda_spec(std::string_view text);

}  // namespace aitk::project::detail
