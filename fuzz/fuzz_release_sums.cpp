// Fuzzes what `self update` reads from a release server: SHA256SUMS text must parse or fail with
// a message, every archive it yields must be named and hashed as the format says, and choosing
// among them must give one of them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/app/self.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto archives = aitk::app::parse_release_sums(text, "SHA256SUMS");
    if (!archives) {
        if (archives.error().empty()) std::abort();
        return 0;
    }
    for (const auto& archive : *archives) {
        if (archive.sha256.size() != 64 || archive.version.empty() || archive.target.empty() ||
            archive.name.rfind("aitk-env-" + archive.version + "-" + archive.target, 0) != 0 ||
            archive.name.find_first_of("/\\") != std::string::npos) {
            std::abort();
        }
        auto chosen = aitk::app::choose_release(*archives, archive.target, std::nullopt);
        if (!chosen || chosen->target != archive.target) std::abort();
        auto exact = aitk::app::choose_release(*archives, archive.target, archive.version);
        if (!exact || exact->target != archive.target) std::abort();
    }
    return 0;
}
