#pragma once
// Where Linux distributions keep the system's CA bundle. The portable aitk-env carries its own
// OpenSSL and libcurl, built on Debian: their compiled-in bundle path is Debian's, which RHEL,
// Fedora and SUSE lack, so TLS there would trust nothing. aitk-env looks for the bundle itself.
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

namespace aitk::net {

struct SystemCaFile {
    std::string_view path;
    std::string_view layout;  // whose layout it is, for doctor ("Debian, Ubuntu, Arch, Gentoo")
};

// The files searched, in order: one PEM bundle of every trusted CA on each distribution family.
std::span<const SystemCaFile> system_ca_files();

// The first of system_ca_files() that `is_file` finds; nothing when none is there.
std::optional<SystemCaFile> find_system_ca_file(
    const std::function<bool(const std::filesystem::path&)>& is_file);

}  // namespace aitk::net
