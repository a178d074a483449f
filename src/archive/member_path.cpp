#include "aitk/archive/member_path.hpp"

#include <vector>

#include "aitk/util/strings.hpp"

namespace aitk::archive {
namespace {

using Result = util::Expected<std::string, std::string>;

Result refuse(std::string why) {
    return util::Unexpected(std::move(why));
}

bool starts_with_drive_letter(std::string_view s) noexcept {
    return s.size() >= 2 && util::is_ascii_alpha(s[0]) && s[1] == ':';
}

// What every stored name and link target must satisfy before its components are looked at.
std::string_view common_flaw(std::string_view s) noexcept {
    // Before the ':' of a Windows-only check below: the drive letter is what the name means.
    if (starts_with_drive_letter(s)) return "starts with a drive letter";
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (c == '\\') return "contains a backslash (a path separator on Windows)";
        if (u < 0x20 || u == 0x7F) return "contains a control character";
#ifdef _WIN32
        if (c == ':') return "contains ':' (an NTFS stream separator)";
#endif
    }
    if (!s.empty() && s.front() == '/') return "is an absolute path";
    return {};
}

// Calls on_component for each '/'-separated part except empty and '.' ones, until it returns
// false.
template <class OnComponent>
void for_each_component(std::string_view s, OnComponent&& on_component) {
    std::size_t start = 0;
    while (start <= s.size()) {
        std::size_t end = s.find('/', start);
        if (end == std::string_view::npos) end = s.size();
        std::string_view part = s.substr(start, end - start);
        if (!part.empty() && part != ".") {
            if (!on_component(part)) return;
        }
        start = end + 1;
    }
}

}  // namespace

util::Expected<std::string, std::string> normalize_member_path(std::string_view stored) {
    if (stored.empty()) return refuse("has an empty name");
    if (stored.size() > max_member_path_bytes) {
        return refuse("has a name longer than " + std::to_string(max_member_path_bytes) + " bytes");
    }
    if (std::string_view flaw = common_flaw(stored); !flaw.empty()) {
        return refuse(std::string(flaw));
    }
    std::string out;
    out.reserve(stored.size());
    std::string problem;
    for_each_component(stored, [&](std::string_view part) {
        if (part == "..") {
            problem = "has a '..' component (it would leave the destination)";
            return false;
        }
        if (part.size() > max_component_bytes) {
            problem =
                "has a component longer than " + std::to_string(max_component_bytes) + " bytes";
            return false;
        }
        if (!out.empty()) out += '/';
        out += part;
        return true;
    });
    if (!problem.empty()) return refuse(std::move(problem));
    return out;
}

util::Expected<std::string, std::string> resolve_link_target(std::string_view link_path,
                                                             std::string_view target) {
    if (target.empty()) return refuse("has an empty link target");
    if (target.size() > max_member_path_bytes) return refuse("has an overlong link target");
    if (std::string_view flaw = common_flaw(target); !flaw.empty()) {
        return refuse("has a link target that " + std::string(flaw));
    }
    std::vector<std::string_view> stack;
    for_each_component(link_path, [&](std::string_view part) {
        stack.push_back(part);
        return true;
    });
    if (!stack.empty()) stack.pop_back();  // a link resolves from the folder holding it
    bool escapes = false;
    for_each_component(target, [&](std::string_view part) {
        if (part == "..") {
            if (stack.empty()) {
                escapes = true;
                return false;
            }
            stack.pop_back();
        } else {
            stack.push_back(part);
        }
        return true;
    });
    if (escapes) {
        return refuse("has a link target '" + std::string(target) +
                      "' that points outside the destination");
    }
    std::string out;
    for (std::string_view part : stack) {
        if (!out.empty()) out += '/';
        out += part;
    }
    return out;
}

}  // namespace aitk::archive
