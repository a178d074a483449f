#include "aitk/pep/wheel_filename.hpp"

#include <algorithm>
#include <charconv>

#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::pep {

namespace {

constexpr std::string_view kExtension = ".whl";

// Decodes one well-formed UTF-8 sequence of 2 to 4 bytes at s[i]; 0 length when malformed.
struct CodePoint {
    char32_t value = 0;
    std::size_t length = 0;
};

CodePoint decode_utf8(std::string_view s, std::size_t i) noexcept {
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned char lead = byte(0);
    std::size_t length = lead >= 0xF0 && lead <= 0xF4   ? 4
                         : lead >= 0xE0                 ? 3
                         : lead >= 0xC2 && lead <= 0xDF ? 2
                                                        : 0;
    if (lead >= 0xF5) length = 0;
    if (length == 0 || i + length > s.size()) return {};
    char32_t value = lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(k) & 0xC0) != 0x80) return {};
        value = (value << 6) | (byte(k) & 0x3F);
    }
    // Reject overlong forms, surrogates and values past U+10FFFF.
    if ((length == 3 && value < 0x800) || (length == 4 && value < 0x10000) ||
        (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) {
        return {};
    }
    return {value, length};
}

// An approximation of Python's Unicode `\w` for non-ASCII characters (PEP 427 allows any word
// character in the escaped name): letters and digits of every script, minus the Latin-1
// punctuation and the general punctuation, symbol and specials blocks.
bool is_non_ascii_word(char32_t cp) noexcept {
    if (cp < 0xC0) {
        return cp == 0xAA || cp == 0xB2 || cp == 0xB3 || cp == 0xB5 || cp == 0xB9 || cp == 0xBA ||
               (cp >= 0xBC && cp <= 0xBE);
    }
    if (cp == 0xD7 || cp == 0xF7) return false;
    if (cp >= 0x2000 && cp <= 0x2BFF) return false;
    if (cp >= 0x3000 && cp <= 0x3004) return false;
    if (cp >= 0xFF00 && cp <= 0xFF0F) return false;
    if (cp >= 0xFFF0 && cp <= 0xFFFF) return false;
    return true;
}

std::optional<ParseError> check_name(std::string_view filename, std::string_view name) {
    if (name.empty()) {
        return ParseError{
            "wheel filename '" + std::string(filename) + "' has an empty project name",
            std::string(filename), 0};
    }
    if (std::size_t pos = name.find("__"); pos != std::string_view::npos) {
        return ParseError{"invalid project name '" + std::string(name) +
                              "' in wheel filename: '__' is not allowed (PEP 427 escapes every "
                              "run of '-', '_' and '.' as a single '_')",
                          std::string(filename), pos};
    }
    for (std::size_t i = 0; i < name.size();) {
        char c = name[i];
        if (util::is_ascii_alnum(c) || c == '_' || c == '.') {
            ++i;
            continue;
        }
        if (static_cast<unsigned char>(c) >= 0x80) {
            CodePoint cp = decode_utf8(name, i);
            if (cp.length != 0 && is_non_ascii_word(cp.value)) {
                i += cp.length;
                continue;
            }
        }
        std::string message = "invalid project name '";
        message.append(name).append("' in wheel filename: ");
        if (util::is_ascii_space(c) || static_cast<unsigned char>(c) < 0x20) {
            message += "a control or space character";
        } else {
            message.append(1, '\'').append(1, c).append(1, '\'');
        }
        message += " is not allowed (letters, digits, '_' and '.' only)";
        return ParseError{std::move(message), std::string(filename), i};
    }
    return std::nullopt;
}

}  // namespace

Parsed<WheelFilename> WheelFilename::parse(std::string_view filename,
                                           const TagParseOptions& tag_options) {
    if (filename.size() < kExtension.size() ||
        filename.substr(filename.size() - kExtension.size()) != kExtension) {
        return parse_error("wheel filename '" + std::string(filename) + "' must end in '.whl'",
                           filename, filename.size());
    }
    std::string_view stem = filename.substr(0, filename.size() - kExtension.size());
    std::size_t dashes = static_cast<std::size_t>(std::count(stem.begin(), stem.end(), '-'));
    if (dashes != 4 && dashes != 5) {
        return parse_error("wheel filename '" + std::string(filename) + "' has " +
                               std::to_string(dashes + 1) +
                               " '-'-separated parts, expected 5 or 6 "
                               "(name-version[-build]-python-abi-platform.whl)",
                           filename);
    }

    // name, version, [build,] then the tag with its own two dashes.
    std::string_view parts[3];
    std::size_t offsets[3] = {};
    std::size_t start = 0;
    for (std::size_t k = 0; k < dashes - 2; ++k) {
        std::size_t dash = stem.find('-', start);
        parts[k] = stem.substr(start, dash - start);
        offsets[k] = start;
        start = dash + 1;
    }
    std::string_view tag_text = stem.substr(start);
    std::size_t tag_offset = start;

    WheelFilename out;
    if (auto error = check_name(filename, parts[0])) return util::Unexpected(std::move(*error));
    out.name = canonicalize_name(parts[0]);

    auto version = Version::parse(parts[1]);
    if (!version) {
        const ParseError& inner = version.error();
        std::size_t where = inner.position == ParseError::no_position
                                ? offsets[1]
                                : offsets[1] + std::min(inner.position, parts[1].size());
        return parse_error(
            "invalid version '" + std::string(parts[1]) + "' in wheel filename: " + inner.message,
            filename, where);
    }
    out.version = std::move(*version);

    if (dashes == 5) {
        std::string_view build = parts[2];
        std::size_t digits = 0;
        while (digits < build.size() && util::is_ascii_digit(build[digits]))
            ++digits;
        if (digits == 0) {
            return parse_error(
                "build tag '" + std::string(build) + "' in wheel filename must start with a digit",
                filename, offsets[2]);
        }
        BuildTag tag;
        auto [end, ec] = std::from_chars(build.data(), build.data() + digits, tag.number);
        if (ec != std::errc{} || end != build.data() + digits) {
            return parse_error("build number '" + std::string(build.substr(0, digits)) +
                                   "' in wheel filename is too large",
                               filename, offsets[2]);
        }
        tag.suffix = std::string(build.substr(digits));
        out.build = std::move(tag);
    }

    auto tags = parse_tag(tag_text, tag_options);
    if (!tags) {
        const ParseError& inner = tags.error();
        std::size_t where = inner.position == ParseError::no_position
                                ? tag_offset
                                : tag_offset + std::min(inner.position, tag_text.size());
        return parse_error(inner.message + " in wheel filename '" + std::string(filename) + "'",
                           filename, where);
    }
    out.tags = std::move(*tags);
    return out;
}

std::string WheelFilename::to_string() const {
    auto joined = [&](auto member) {
        std::vector<std::string> values;
        values.reserve(tags.size());
        for (const Tag& tag : tags)
            values.push_back(tag.*member);
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        return util::join(values, ".");
    };
    std::string out = name;
    std::replace(out.begin(), out.end(), '-', '_');
    out += '-';
    out += version.to_string();
    if (build) {
        out += '-';
        out += std::to_string(build->number);
        out += build->suffix;
    }
    out += '-';
    out += joined(&Tag::interpreter);
    out += '-';
    out += joined(&Tag::abi);
    out += '-';
    out += joined(&Tag::platform);
    out += kExtension;
    return out;
}

}  // namespace aitk::pep
