#pragma once
// The FileVersion of a PE image's version resource (private to diag): RT_VERSION in the
// resource tree, its first name and language, and the VS_FIXEDFILEINFO of the VS_VERSIONINFO
// there, which is how an old Visual C++ runtime DLL is told from a new one without running it.
#include <optional>

#include "aitk/diag/pe.hpp"
#include "pe_map.hpp"

namespace aitk::diag::detail {

// nullopt: the resource tree (`dir`, non-empty) has no version resource.
util::Expected<std::optional<PeVersion>, ImageProblem> read_version(const PeMap& map,
                                                                    const PeDirectory& dir);

}  // namespace aitk::diag::detail
