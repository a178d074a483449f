#include "marker_scanner.hpp"

#include <array>

#include "aitk/util/strings.hpp"

namespace aitk::pep::detail {
namespace {

using util::is_ascii_alnum;
using util::is_ascii_digit;
using util::to_ascii_lower;

// Whether the code point counts for Python's \w (str.isalnum() or '_'). Exact for ASCII and
// Latin-1; beyond that, whitespace and the common punctuation and symbol blocks are non-word and
// everything else (the letters and digits of other scripts) is word.
bool is_word_code_point(char32_t cp) noexcept {
    if (cp < 0x80) return is_ascii_alnum(static_cast<char>(cp)) || cp == '_';
    if (cp < 0xC0) {
        // ª ² ³ µ ¹ º ¼ ½ ¾ are letters or numbers; the rest of U+0080..U+00BF is not.
        return cp == 0xAA || cp == 0xB2 || cp == 0xB3 || cp == 0xB5 || cp == 0xB9 || cp == 0xBA ||
               (cp >= 0xBC && cp <= 0xBE);
    }
    if (cp == 0xD7 || cp == 0xF7) return false;                        // × ÷
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x206F)) return false;  // spaces, punctuation
    if (cp >= 0x20A0 && cp <= 0x20CF) return false;                    // currency signs
    if (cp >= 0x2190 && cp <= 0x245F) return false;  // arrows, maths, technical symbols
    if (cp >= 0x2500 && cp <= 0x2775) return false;  // box drawing, shapes, dingbats
    if (cp >= 0x3000 && cp <= 0x3004) return false;  // CJK space and punctuation
    if (cp >= 0x3008 && cp <= 0x3020) return false;
    if (cp >= 0xFE30 && cp <= 0xFE4F) return false;  // CJK compatibility forms
    if ((cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
        (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65))
        return false;  // full-width punctuation
    return true;
}

// The code point whose UTF-8 sequence starts at `at`; an invalid sequence reads as a letter
// (packaging only ever sees valid text, so any choice is as good).
char32_t code_point_at(std::string_view text, std::size_t at) noexcept {
    auto byte = [&](std::size_t i) {
        return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u;
    };
    unsigned lead = byte(at);
    auto tail = [&](std::size_t i) { return (byte(at + i) & 0xC0u) == 0x80u; };
    if (lead < 0x80) return lead;
    if ((lead & 0xE0) == 0xC0 && tail(1)) return ((lead & 0x1Fu) << 6) | (byte(at + 1) & 0x3Fu);
    if ((lead & 0xF0) == 0xE0 && tail(1) && tail(2)) {
        return ((lead & 0x0Fu) << 12) | ((byte(at + 1) & 0x3Fu) << 6) | (byte(at + 2) & 0x3Fu);
    }
    if ((lead & 0xF8) == 0xF0 && tail(1) && tail(2) && tail(3)) {
        return ((lead & 0x07u) << 18) | ((byte(at + 1) & 0x3Fu) << 12) |
               ((byte(at + 2) & 0x3Fu) << 6) | (byte(at + 3) & 0x3Fu);
    }
    return 0x4E00;  // any letter
}

// Python's \w for the character starting at / ending just before `at`.
bool word_starting_at(std::string_view text, std::size_t at) noexcept {
    return at < text.size() && is_word_code_point(code_point_at(text, at));
}
bool word_ending_at(std::string_view text, std::size_t at) noexcept {
    if (at == 0 || at > text.size()) return false;
    std::size_t start = at - 1;
    // Step back over at most three continuation bytes to the lead byte.
    for (int i = 0; i < 3 && start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80;
         ++i)
        --start;
    return is_word_code_point(code_point_at(text, start));
}

bool is_version_separator(char c) noexcept {
    return c == '-' || c == '_' || c == '.';
}

// The marker variables in the order of packaging's VARIABLE regex; '?' stands for [._].
struct VariableSpelling {
    std::string_view pattern;
    MarkerVariable variable;
};
constexpr std::array<VariableSpelling, 15> kVariableSpellings{{
    {"python_version", MarkerVariable::python_version},
    {"python_full_version", MarkerVariable::python_full_version},
    {"os?name", MarkerVariable::os_name},
    {"sys?platform", MarkerVariable::sys_platform},
    {"platform_release", MarkerVariable::platform_release},
    {"platform_system", MarkerVariable::platform_system},
    {"platform?version", MarkerVariable::platform_version},
    {"platform?machine", MarkerVariable::platform_machine},
    {"platform?python_implementation", MarkerVariable::platform_python_implementation},
    {"python_implementation", MarkerVariable::platform_python_implementation},
    {"implementation_name", MarkerVariable::implementation_name},
    {"implementation_version", MarkerVariable::implementation_version},
    {"extras", MarkerVariable::extras},
    {"extra", MarkerVariable::extra},
    {"dependency_groups", MarkerVariable::dependency_groups},
}};

bool matches_spelling(std::string_view text, std::string_view pattern) noexcept {
    if (text.size() < pattern.size()) return false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        char want = pattern[i];
        char got = text[i];
        if (want == '?' ? (got != '.' && got != '_') : got != want) return false;
    }
    return true;
}

// Case-insensitive prefix test, as the SPECIFIER regex is compiled with IGNORECASE.
bool starts_with_ci(std::string_view text, std::string_view word) noexcept {
    if (text.size() < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (to_ascii_lower(text[i]) != word[i]) return false;
    }
    return true;
}

}  // namespace

bool Scanner::at_end() const noexcept {
    return pos_ >= text_.size() || (pos_ + 1 == text_.size() && text_[pos_] == '\n');
}

std::size_t Scanner::ws_length() const noexcept {
    std::size_t n = 0;
    while (pos_ + n < text_.size() && (text_[pos_ + n] == ' ' || text_[pos_ + n] == '\t'))
        ++n;
    return n;
}

std::size_t Scanner::quoted_string_length() const noexcept {
    if (pos_ >= text_.size()) return 0;
    char quote = text_[pos_];
    if (quote != '\'' && quote != '"') return 0;
    std::size_t close = text_.find(quote, pos_ + 1);
    return close == std::string_view::npos ? 0 : close + 1 - pos_;
}

std::size_t Scanner::comparison_op_length() const noexcept {
    static constexpr std::array<std::string_view, 8> kOps{
        "===", "==", "~=", "!=", "<=", ">=", "<", ">"};
    std::string_view rest = this->rest();
    for (std::string_view op : kOps) {
        if (rest.substr(0, op.size()) == op) return op.size();
    }
    return 0;
}

bool Scanner::word_boundary(std::size_t at) const noexcept {
    return word_ending_at(text_, at) != word_starting_at(text_, at);
}

std::size_t Scanner::keyword_length(std::string_view word) const noexcept {
    if (rest().substr(0, word.size()) != word) return 0;
    if (!word_boundary(pos_) || !word_boundary(pos_ + word.size())) return 0;
    return word.size();
}

std::size_t Scanner::variable_length(MarkerVariable* variable) const noexcept {
    if (!word_boundary(pos_)) return 0;
    std::string_view rest = this->rest();
    for (const auto& spelling : kVariableSpellings) {
        if (matches_spelling(rest, spelling.pattern) &&
            word_boundary(pos_ + spelling.pattern.size())) {
            if (variable) *variable = spelling.variable;
            return spelling.pattern.size();
        }
    }
    return 0;
}

std::size_t Scanner::identifier_length() const noexcept {
    if (pos_ >= text_.size() || !is_ascii_alnum(text_[pos_]) || !word_boundary(pos_)) return 0;
    std::size_t end = pos_ + 1;
    while (end < text_.size() && (is_ascii_alnum(text_[end]) || is_version_separator(text_[end])))
        ++end;
    // The regex ends in \b, so it gives back characters until it sits on a boundary.
    for (; end > pos_; --end) {
        if (word_boundary(end)) return end - pos_;
    }
    return 0;
}

std::size_t Scanner::url_length() const noexcept {
    std::size_t n = 0;
    while (pos_ + n < text_.size() && text_[pos_ + n] != ' ' && text_[pos_ + n] != '\t')
        ++n;
    return n;
}

std::size_t Scanner::wildcard_trail_length() const noexcept {
    return rest().substr(0, 2) == ".*" ? 2 : 0;
}

std::size_t Scanner::local_trail_length() const noexcept {
    // Case-sensitive, unlike the clause itself: packaging compiles this rule without IGNORECASE.
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || is_ascii_digit(c); };
    std::string_view rest = this->rest();
    if (rest.size() < 2 || rest[0] != '+' || !lower_alnum(rest[1])) return 0;
    std::size_t n = 2;
    while (n < rest.size()) {
        if (lower_alnum(rest[n])) {
            ++n;
        } else if (is_version_separator(rest[n]) && n + 1 < rest.size() &&
                   lower_alnum(rest[n + 1])) {
            n += 2;
        } else {
            break;
        }
    }
    return n;
}

std::size_t Scanner::word_length() const noexcept {
    std::size_t n = 0;
    while (pos_ + n < text_.size() &&
           (is_ascii_alnum(text_[pos_ + n]) || text_[pos_ + n] == '_' || text_[pos_ + n] == '.' ||
            static_cast<unsigned char>(text_[pos_ + n]) >= 0x80))
        ++n;
    return n;
}

std::size_t Scanner::specifier_length() const noexcept {
    // Tried in the order of packaging's operator alternation: "==" before "===", so "===" is
    // only reached once "==" has failed to find a version after it.
    static constexpr std::array<std::string_view, 8> kOps{
        "~=", "==", "!=", "<=", ">=", "<", ">", "==="};
    std::string_view rest = this->rest();
    for (std::string_view op : kOps) {
        if (rest.substr(0, op.size()) != op) continue;
        if (auto version = version_after_operator(pos_ + op.size())) return op.size() + *version;
    }
    return 0;
}

// The version part of the SPECIFIER regex after an operator ending at `at`. The regex picks its
// branch by looking behind at the operator; after the release every part is optional, so the
// first way each part can match is the one the regex keeps.
std::optional<std::size_t> Scanner::version_after_operator(std::size_t at) const noexcept {
    auto behind = [&](std::string_view s) {
        return at >= s.size() && text_.substr(at - s.size(), s.size()) == s;
    };
    auto char_at = [&](std::size_t i) { return i < text_.size() ? text_[i] : '\0'; };
    auto digits = [&](std::size_t i) {
        std::size_t n = 0;
        while (i + n < text_.size() && is_ascii_digit(text_[i + n]))
            ++n;
        return n;
    };
    auto spaces = [&](std::size_t i) {
        std::size_t start = i;
        while (std::size_t n = util::leading_space_length(text_.substr(i)))
            i += n;
        return i - start;
    };

    std::size_t p = at + spaces(at);
    if (behind("===")) {
        // Arbitrary equality: anything up to whitespace, ';' or ')'.
        while (p < text_.size() && text_[p] != ';' && text_[p] != ')' &&
               util::leading_space_length(text_.substr(p)) == 0)
            ++p;
        return p - at;
    }
    bool equality = behind("==") || behind("!=");
    bool compatible = behind("~=");

    if (to_ascii_lower(char_at(p)) == 'v') ++p;
    // An epoch only counts when a release follows it ("2!.2" is the release "2", then "!").
    if (std::size_t n = digits(p); n > 0 && char_at(p + n) == '!' && digits(p + n + 1) > 0)
        p += n + 1;
    std::size_t release = digits(p);
    if (release == 0) return std::nullopt;
    p += release;
    std::size_t dotted = 0;
    while (char_at(p) == '.' && digits(p + 1) > 0) {
        p += 1 + digits(p + 1);
        ++dotted;
    }
    if (compatible && dotted == 0) return std::nullopt;
    if (equality && char_at(p) == '.' && char_at(p + 1) == '*') return p + 2 - at;

    auto keyword_part = [&](std::size_t q, auto&& keywords) {
        std::size_t r = q;
        if (is_version_separator(char_at(r))) ++r;
        for (std::string_view word : keywords) {
            if (starts_with_ci(text_.substr(r), word)) {
                r += word.size();
                if (is_version_separator(char_at(r))) ++r;
                return r + digits(r);
            }
        }
        return q;
    };
    static constexpr std::array<std::string_view, 8> kPre{"alpha", "beta", "preview", "pre",
                                                          "a",     "b",    "c",       "rc"};
    static constexpr std::array<std::string_view, 3> kPost{"post", "rev", "r"};
    static constexpr std::array<std::string_view, 1> kDev{"dev"};

    p = keyword_part(p, kPre);
    if (char_at(p) == '-' && digits(p + 1) > 0) {
        p += 1 + digits(p + 1);
    } else {
        p = keyword_part(p, kPost);
    }
    p = keyword_part(p, kDev);
    if (equality && char_at(p) == '+' && is_ascii_alnum(char_at(p + 1))) {
        ++p;
        while (true) {
            if (is_ascii_alnum(char_at(p))) {
                ++p;
            } else if (is_version_separator(char_at(p)) && is_ascii_alnum(char_at(p + 1))) {
                p += 2;
            } else {
                break;
            }
        }
    }
    return p - at;
}

bool may_be_specifier_version(MarkerOp op, std::string_view value) noexcept {
    if (op == MarkerOp::arbitrary) return true;
    while (std::size_t n = util::leading_space_length(value))
        value.remove_prefix(n);
    if (value.empty()) return false;
    // The value may also complete the operator: '>' + "=1.0" is ">=1.0", '==' + "=x" is "===x".
    char c = value[0];
    return is_ascii_digit(c) || c == 'v' || c == 'V' || c == '=' || c == '~' || c == '!' ||
           c == '<' || c == '>';
}

}  // namespace aitk::pep::detail
