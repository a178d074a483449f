#pragma once
// Names of .dist-info folders and the wording of wheel errors, shared by unpacking, installing
// and reading a prefix. Private to the install layer.
#include <optional>
#include <string>
#include <string_view>

namespace aitk::install::detail {

inline constexpr std::string_view dist_info_suffix = ".dist-info";

struct DistInfoName {
    std::string_view name;     // as written in the folder name ("Foo_Bar")
    std::string_view version;  // "1.0"
};

// "Foo_Bar-1.0.dist-info" -> {"Foo_Bar", "1.0"}; nothing without the suffix or a '-'.
std::optional<DistInfoName> split_dist_info(std::string_view folder) noexcept;

// Whether `folder` is the .dist-info of `name` (compared PEP 503-normalised) at `version`
// (compared as PEP 440 versions, as text when either does not parse).
bool dist_info_matches(std::string_view folder, std::string_view name, std::string_view version);

// "wheel <label>, member '<member>': <detail>", or "wheel <label>: <detail>" without a member.
std::string wheel_message(std::string_view label, std::string_view member, std::string_view detail);
[[noreturn]] void fail(std::string_view label, std::string_view member, std::string_view detail);
[[noreturn]] void fail(std::string_view label, std::string_view member, std::string_view detail,
                       std::string hint);

}  // namespace aitk::install::detail
