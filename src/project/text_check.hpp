#pragma once
// The first look at a file the user gave (requirements file, manifest, environment.yml): text a
// person wrote is UTF-8 without NUL or terminal control bytes, in lines of sane length. Anything
// else is the wrong file (a binary, a download error page, a wheel) and is refused before any
// parser sees it, at the line and column of the first bad byte, without echoing it.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/util/input_problem.hpp"

namespace aitk::project::detail {

// Longest line accepted, in bytes. Generous for hash-pinned lines with many --hash options.
inline constexpr std::size_t max_line_bytes = 1u << 20;

// Nothing when `text` is acceptable, else the first problem, located in `file`.
std::optional<util::InputProblem> check_user_text(std::string_view text, std::string_view file);

}  // namespace aitk::project::detail
