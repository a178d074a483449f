#pragma once
// Text checks shared by every reader of a file a person or aitk-env wrote: UTF-8 decoding and
// the first look at a whole file (no NUL or terminal control bytes, lines of sane length), so a
// binary, an error page or a wheel given by mistake is refused at the line and column of the
// first bad byte, without echoing it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/util/input_problem.hpp"

namespace aitk::util {

// Length of the valid UTF-8 sequence at the start of `s` (0 when there is none: a stray
// continuation byte, a truncated sequence, an overlong form, a surrogate, a value past
// U+10FFFF) and its code point.
std::size_t utf8_sequence(std::string_view s, std::uint32_t& code_point) noexcept;

struct TextRules {
    // Longest line accepted, in bytes. Generous for hash-pinned lines with many --hash options.
    std::size_t max_line_bytes = 1u << 20;
    // Whether the bytes must be UTF-8 (a YAML reader may check per scalar instead).
    bool require_utf8 = true;
    // Whether \v, \f and the separators 0x1c-0x1e (pip splits lines on them) are accepted.
    bool allow_line_separators = true;
    // The hint of every problem found.
    std::string hint = "is this the right file? save it as UTF-8 text";
};

// Nothing when `text` keeps the rules, else the first problem, located in `file`.
std::optional<InputProblem> check_text(std::string_view text, std::string_view file,
                                       const TextRules& rules = {});

}  // namespace aitk::util
