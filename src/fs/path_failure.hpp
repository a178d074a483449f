#pragma once
// The fs layer's one failure for an operation on a path: "cannot read /x: No such file".
#include <filesystem>
#include <string>

#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::fs::detail {

[[noreturn]] inline void fail_at(const std::string& what, const std::filesystem::path& path,
                                 const std::string& reason) {
    throw util::Error(util::ExitCode::failure, what + " " + util::utf8_of(path) + ": " + reason);
}

}  // namespace aitk::fs::detail
