#include "aitk/index/html.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::index {

namespace {

struct NamedReference {
    std::string_view name;  // without '&' and ';'
    std::string_view text;  // UTF-8
    bool legacy;            // also recognised without the ';'
};

// The references of ASCII punctuation and the no-break space: everything an index page puts in
// a filename, a URL or a Requires-Python specifier. Others stay as written.
constexpr std::array<NamedReference, 40> named_references = {{
    {"amp", "&", true},     {"AMP", "&", true},     {"lt", "<", true},
    {"LT", "<", true},      {"gt", ">", true},      {"GT", ">", true},
    {"quot", "\"", true},   {"QUOT", "\"", true},   {"nbsp", "\xC2\xA0", true},
    {"apos", "'", false},   {"excl", "!", false},   {"num", "#", false},
    {"dollar", "$", false}, {"percnt", "%", false}, {"lpar", "(", false},
    {"rpar", ")", false},   {"ast", "*", false},    {"plus", "+", false},
    {"comma", ",", false},  {"period", ".", false}, {"sol", "/", false},
    {"colon", ":", false},  {"semi", ";", false},   {"equals", "=", false},
    {"quest", "?", false},  {"commat", "@", false}, {"lsqb", "[", false},
    {"lbrack", "[", false}, {"bsol", "\\", false},  {"rsqb", "]", false},
    {"rbrack", "]", false}, {"Hat", "^", false},    {"lowbar", "_", false},
    {"grave", "`", false},  {"lcub", "{", false},   {"lbrace", "{", false},
    {"verbar", "|", false}, {"vert", "|", false},   {"rcub", "}", false},
    {"rbrace", "}", false},
}};

constexpr std::size_t max_reference_name = 32;

const NamedReference* find_reference(std::string_view name, bool need_legacy) {
    for (const auto& r : named_references) {
        if (r.name == name && (!need_legacy || r.legacy)) return &r;
    }
    return nullptr;
}

void append_code_point(std::string& out, std::uint32_t cp) {
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int digit_value(char c, bool hex) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    return hex ? util::hex_value(c) : -1;
}

// Decodes the reference starting at text[at] == '&'; returns the index after it, or `at` when
// there is no reference (the '&' is then literal).
std::size_t decode_reference(std::string_view text, std::size_t at, std::string& out) {
    const std::size_t n = text.size();
    std::size_t k = at + 1;
    if (k < n && text[k] == '#') {
        ++k;
        bool hex = false;
        if (k < n && (text[k] == 'x' || text[k] == 'X')) {
            hex = true;
            ++k;
        }
        const std::size_t digits_start = k;
        std::uint32_t value = 0;
        while (k < n) {
            const int d = digit_value(text[k], hex);
            if (d < 0) break;
            // Saturate: anything past U+10FFFF is replaced anyway, and no overflow happens.
            value = std::min<std::uint32_t>(value * (hex ? 16u : 10u) + static_cast<unsigned>(d),
                                            0x110000u);
            ++k;
        }
        if (k == digits_start) return at;
        if (k < n && text[k] == ';') ++k;
        append_code_point(out, value);
        return k;
    }
    while (k < n && k - at - 1 < max_reference_name && util::is_ascii_alnum(text[k]))
        ++k;
    const std::string_view name = text.substr(at + 1, k - at - 1);
    if (name.empty()) return at;
    if (k < n && text[k] == ';') {
        if (const auto* r = find_reference(name, false)) {
            out.append(r->text);
            return k + 1;
        }
        return at;
    }
    // Legacy references without ';' ("&lt3.9"): in attribute values HTML leaves them alone when
    // a letter, digit or '=' follows; the name run above already stops at a non-alphanumeric.
    if (k < n && (text[k] == '=' || util::is_ascii_alnum(text[k]))) return at;
    if (const auto* r = find_reference(name, true)) {
        out.append(r->text);
        return k;
    }
    return at;
}

bool is_html_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

// Case-insensitive search for an ASCII `needle` (lower case) from `from`.
std::size_t find_ascii_ci(std::string_view haystack, std::string_view needle, std::size_t from) {
    if (needle.empty() || haystack.size() < needle.size()) return std::string_view::npos;
    const char first = needle[0];
    for (std::size_t i = from; i + needle.size() <= haystack.size(); ++i) {
        i = haystack.find(first, i);
        if (i == std::string_view::npos || i + needle.size() > haystack.size()) break;
        if (util::iequals(haystack.substr(i, needle.size()), needle)) return i;
    }
    return std::string_view::npos;
}

bool is_raw_text_element(std::string_view lower_name) noexcept {
    return lower_name == "script" || lower_name == "style" || lower_name == "textarea" ||
           lower_name == "title" || lower_name == "xmp" || lower_name == "noscript";
}

}  // namespace

const HtmlAttribute* HtmlStartTag::attribute(std::string_view wanted) const noexcept {
    for (const auto& a : attributes) {
        if (a.name == wanted) return &a;
    }
    return nullptr;
}

std::string decode_html_entities(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto amp = text.find('&', i);
        if (amp == std::string_view::npos) {
            out.append(text.substr(i));
            break;
        }
        out.append(text.substr(i, amp - i));
        const std::size_t next = decode_reference(text, amp, out);
        if (next == amp) {
            out += '&';
            i = amp + 1;
        } else {
            i = next;
        }
    }
    return out;
}

std::vector<HtmlStartTag> scan_start_tags(std::string_view html,
                                          std::initializer_list<std::string_view> names) {
    std::vector<HtmlStartTag> tags;
    const std::size_t n = html.size();
    std::size_t i = 0;
    std::string lower_name;
    while (i < n) {
        i = html.find('<', i);
        if (i == std::string_view::npos || i + 1 >= n) break;
        const char next = html[i + 1];
        if (html.substr(i, 4) == "<!--") {
            // "<!-->" and "<!--->" are complete (empty) comments.
            if (html.substr(i, 5) == "<!-->") {
                i += 5;
                continue;
            }
            if (html.substr(i, 6) == "<!--->") {
                i += 6;
                continue;
            }
            const auto end = html.find("-->", i + 4);
            if (end == std::string_view::npos) break;
            i = end + 3;
            continue;
        }
        if (next == '!' || next == '?' || next == '/') {
            // Doctype, processing instruction, end tag or bogus comment: up to the next '>'.
            const auto end = html.find('>', i + 2);
            if (end == std::string_view::npos) break;
            i = end + 1;
            continue;
        }
        if (!util::is_ascii_alpha(next)) {
            ++i;  // a literal '<' in text
            continue;
        }

        const std::size_t tag_start = i;
        std::size_t k = i + 1;
        while (k < n && !is_html_space(html[k]) && html[k] != '/' && html[k] != '>')
            ++k;
        lower_name = util::to_lower(html.substr(i + 1, k - i - 1));
        const bool wanted = std::find(names.begin(), names.end(), lower_name) != names.end();
        HtmlStartTag tag;
        bool closed = false;
        while (k < n) {
            while (k < n && (is_html_space(html[k]) || html[k] == '/'))
                ++k;
            if (k >= n) break;
            if (html[k] == '>') {
                ++k;
                closed = true;
                break;
            }
            const std::size_t name_start = k++;  // the first character may even be '='
            while (k < n && !is_html_space(html[k]) && html[k] != '/' && html[k] != '>' &&
                   html[k] != '=')
                ++k;
            const std::string_view attribute_name = html.substr(name_start, k - name_start);
            std::size_t after_name = k;
            while (after_name < n && is_html_space(html[after_name]))
                ++after_name;
            std::string_view value;
            if (after_name < n && html[after_name] == '=') {
                k = after_name + 1;
                while (k < n && is_html_space(html[k]))
                    ++k;
                if (k < n && (html[k] == '"' || html[k] == '\'')) {
                    const auto close = html.find(html[k], k + 1);
                    if (close == std::string_view::npos) {
                        k = n;  // an unterminated value swallows the rest: no tag
                        break;
                    }
                    value = html.substr(k + 1, close - k - 1);
                    k = close + 1;
                } else {
                    const std::size_t value_start = k;
                    while (k < n && !is_html_space(html[k]) && html[k] != '>')
                        ++k;
                    value = html.substr(value_start, k - value_start);
                }
            }
            if (wanted) {
                tag.attributes.push_back(
                    HtmlAttribute{util::to_lower(attribute_name), decode_html_entities(value)});
            }
        }
        if (!closed) break;  // a tag cut off by the end of the page is dropped, as browsers do
        if (wanted) {
            tag.name = lower_name;
            tag.offset = tag_start;
            tags.push_back(std::move(tag));
        }
        i = k;
        if (is_raw_text_element(lower_name)) {
            const auto end = find_ascii_ci(html, "</" + lower_name, i);
            if (end == std::string_view::npos) break;
            i = end;
        }
    }
    return tags;
}

}  // namespace aitk::index
