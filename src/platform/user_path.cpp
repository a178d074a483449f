// PATH list edits for `self install` / `self uninstall` (the Windows registry store is in
// user_path_windows.cpp).
#include "aitk/platform/user_path.hpp"

#include <vector>

#include "aitk/util/strings.hpp"

namespace aitk::platform {

namespace {

constexpr char separator_of(PathListStyle style) noexcept {
    return style == PathListStyle::windows ? ';' : ':';
}

std::vector<std::string_view> entries_of(std::string_view list, PathListStyle style) {
    std::vector<std::string_view> entries;
    for (std::string_view entry : util::split(list, separator_of(style))) {
        if (!util::trim(entry).empty()) entries.push_back(entry);
    }
    return entries;
}

// %NAME% references replaced by their values (Windows' ExpandEnvironmentStrings, which leaves
// an unknown name as it is).
std::string expand_references(std::string_view text, const util::Environment& env) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t open = text.find('%', i);
        if (open == std::string_view::npos) break;
        const std::size_t close = text.find('%', open + 1);
        if (close == std::string_view::npos) break;
        out.append(text.substr(i, open - i));
        const std::string name(text.substr(open + 1, close - open - 1));
        auto value = name.empty() ? std::nullopt : util::environment_lookup(env, name, true);
        if (value) {
            out += *value;
            i = close + 1;
        } else {
            out += '%';  // not a reference: the second '%' may open the next one
            i = open + 1;
        }
    }
    out.append(text.substr(i));
    return out;
}

// The form two spellings of one folder share.
std::string comparable(std::string_view entry, PathListStyle style, const util::Environment& env) {
    std::string text(util::trim(entry));
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
        text = text.substr(1, text.size() - 2);
    }
    if (style == PathListStyle::windows) {
        text = expand_references(text, env);
        for (char& c : text) {
            if (c == '/') c = '\\';
        }
        while (text.size() > 1 && text.back() == '\\' && text[text.size() - 2] != ':') {
            text.pop_back();
        }
        return util::to_lower(text);
    }
    while (text.size() > 1 && text.back() == '/')
        text.pop_back();
    return text;
}

}  // namespace

bool path_list_has(std::string_view list, std::string_view dir, PathListStyle style,
                   const util::Environment& env) {
    const std::string wanted = comparable(dir, style, env);
    for (std::string_view entry : entries_of(list, style)) {
        if (comparable(entry, style, env) == wanted) return true;
    }
    return false;
}

std::string path_list_with(std::string_view list, std::string_view dir, PathListStyle style,
                           const util::Environment& env) {
    if (path_list_has(list, dir, style, env)) return std::string(list);
    const char separator = separator_of(style);
    std::string out(dir);
    for (std::string_view entry : entries_of(list, style)) {
        out += separator;
        out += entry;
    }
    return out;
}

std::string path_list_without(std::string_view list, std::string_view dir, PathListStyle style,
                              const util::Environment& env) {
    const char separator = separator_of(style);
    const std::string unwanted = comparable(dir, style, env);
    std::string out;
    for (std::string_view entry : entries_of(list, style)) {
        if (comparable(entry, style, env) == unwanted) continue;
        if (!out.empty()) out += separator;
        out += entry;
    }
    return out;
}

}  // namespace aitk::platform
