#pragma once
// Why resolution failed, in words: PubGrub's error reporting (pub's doc/solver.md) over the
// derivation graph of the incompatibility that rules out the root, one "Because …" sentence per
// line, lines numbered where a later line refers back to them.
#include <string>
#include <vector>

#include "aitk/resolve/resolver.hpp"
#include "incompatibility.hpp"
#include "package_table.hpp"

namespace aitk::resolve {

std::string explain_failure(IncompatibilityId failure,
                            const std::vector<Incompatibility>& incompatibilities,
                            PackageTable& table);

}  // namespace aitk::resolve
