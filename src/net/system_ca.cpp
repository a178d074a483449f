#include "aitk/net/system_ca.hpp"

#include <array>

namespace aitk::net {
namespace {

// Each distribution's own bundle first, then the compatibility links some others also make.
// Sources: each family's ca-certificates package (Debian's update-ca-certificates, Fedora's
// update-ca-trust, openSUSE's ca-certificates, Alpine's ca-certificates) as Go's crypto/x509
// also lists them.
constexpr std::array<SystemCaFile, 6> files{{
    {"/etc/ssl/certs/ca-certificates.crt", "Debian, Ubuntu, Arch, Gentoo"},
    {"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "RHEL, Fedora, CentOS, Amazon Linux"},
    {"/etc/pki/tls/certs/ca-bundle.crt", "RHEL, Fedora, CentOS (older)"},
    {"/etc/ssl/ca-bundle.pem", "openSUSE, SLES"},
    {"/etc/ssl/cert.pem", "Alpine, Arch, macOS"},
    {"/etc/pki/tls/cacert.pem", "OpenELEC"},
}};

}  // namespace

std::span<const SystemCaFile> system_ca_files() {
    return files;
}

std::optional<SystemCaFile> find_system_ca_file(
    const std::function<bool(const std::filesystem::path&)>& is_file) {
    for (const auto& file : files) {
        if (is_file(std::filesystem::path(file.path))) return file;
    }
    return std::nullopt;
}

}  // namespace aitk::net
