#include "aitk/python/py_launcher.hpp"

#include "aitk/util/strings.hpp"

namespace aitk::python {

namespace {

// "C:\...", "\\server\share\...": the launcher always prints absolute paths.
bool looks_like_windows_path(std::string_view text) {
    if (text.size() >= 3 && util::is_ascii_alpha(text[0]) && text[1] == ':' &&
        (text[2] == '\\' || text[2] == '/')) {
        return true;
    }
    return text.size() >= 2 && text[0] == '\\' && text[1] == '\\';
}

}  // namespace

std::vector<PyLauncherEntry> parse_py_launcher_list(std::string_view text) {
    std::vector<PyLauncherEntry> out;
    for (auto raw : util::split(text, '\n')) {
        std::string_view line = util::trim(raw);
        if (line.size() < 2 || line[0] != '-') continue;
        std::size_t tag_end = 0;
        while (tag_end < line.size() && !util::is_ascii_space(line[tag_end]))
            ++tag_end;
        std::string_view tag = line.substr(1, tag_end - 1);
        if (tag.substr(0, 2) == "V:") tag.remove_prefix(2);
        std::string_view rest = util::trim(line.substr(tag_end));
        PyLauncherEntry entry;
        if (!rest.empty() && rest[0] == '*') {
            entry.is_default = true;
            rest = util::trim(rest.substr(1));
        }
        if (tag.empty() || !looks_like_windows_path(rest)) continue;
        entry.tag = std::string(tag);
        entry.path = std::filesystem::path(std::string(rest));
        out.push_back(std::move(entry));
    }
    return out;
}

}  // namespace aitk::python
