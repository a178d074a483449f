#include "msvc_runtime.hpp"

#include <charconv>

#include "aitk/util/strings.hpp"

namespace aitk::diag::detail {

namespace {

constexpr PeVersion kTorch24Runtime{{14, 40, 0, 0}};

// "2.4.1+cu121" → {2, 4}; nullopt when it does not start with two numbers.
std::optional<std::pair<int, int>> major_minor(std::string_view version) {
    int major = 0, minor = 0;
    const char* end = version.data() + version.size();
    auto [p, ec] = std::from_chars(version.data(), end, major);
    if (ec != std::errc() || p == end || *p != '.') return std::nullopt;
    auto [q, ec2] = std::from_chars(p + 1, end, minor);
    if (ec2 != std::errc()) return std::nullopt;
    (void)q;
    return std::pair{major, minor};
}

}  // namespace

bool is_checked_msvc_runtime(std::string_view dll) noexcept {
    std::string lower = util::to_lower(dll);
    return lower == "msvcp140.dll" || lower == "vcruntime140.dll" || lower == "vcruntime140_1.dll";
}

std::optional<PeVersion> minimum_msvc_runtime(const std::optional<std::string>& torch_version) {
    if (!torch_version) return kTorch24Runtime;
    auto mm = major_minor(*torch_version);
    if (!mm) return kTorch24Runtime;
    if (*mm < std::pair{2, 4}) return std::nullopt;
    return kTorch24Runtime;
}

std::string short_version(const PeVersion& version) {
    return std::to_string(version.parts[0]) + "." + std::to_string(version.parts[1]);
}

}  // namespace aitk::diag::detail
