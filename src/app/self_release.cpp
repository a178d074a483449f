// What `self update` reads of a release folder: its SHA256SUMS, the archives it names, and
// which of them is for this build. No I/O here.
#include <algorithm>

#include "aitk/app/self.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {

namespace {

constexpr std::string_view kArchivePrefix = "aitk-env-";

// The extension a target's archive has: zip where Explorer opens it without help, tar.gz where
// tar keeps the executable bit.
std::string_view archive_extension(std::string_view target) {
    return target.rfind("windows-", 0) == 0 ? ".zip" : ".tar.gz";
}

// aitk-env-<version>-<os>-<arch>.<ext> with a PEP 440 version; nullopt for any other name.
std::optional<ReleaseArchive> archive_of(std::string_view name) {
    if (name.rfind(kArchivePrefix, 0) != 0) return std::nullopt;
    // A file name, never a path: it becomes part of a URL and of a file name here.
    const bool plain = std::none_of(name.begin(), name.end(), [](char c) {
        return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
    });
    if (!plain) return std::nullopt;
    std::string_view rest = name.substr(kArchivePrefix.size());
    const auto dash = rest.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    ReleaseArchive archive;
    archive.name = std::string(name);
    archive.version = std::string(rest.substr(0, dash));
    std::string_view target_and_ext = rest.substr(dash + 1);
    for (std::string_view ext : {std::string_view(".zip"), std::string_view(".tar.gz")}) {
        if (target_and_ext.size() > ext.size() &&
            target_and_ext.substr(target_and_ext.size() - ext.size()) == ext) {
            archive.target =
                std::string(target_and_ext.substr(0, target_and_ext.size() - ext.size()));
            if (archive_extension(archive.target) != ext) return std::nullopt;
        }
    }
    if (archive.target.empty() || archive.target.find('-') == std::string::npos)
        return std::nullopt;
    if (!pep::Version::parse(archive.version)) return std::nullopt;
    return archive;
}

}  // namespace

std::string this_release_target() {
#if defined(_WIN32) && (defined(__x86_64__) || defined(_M_X64))
    return "windows-x86_64";
#elif defined(__linux__) && defined(__x86_64__)
    return "linux-x86_64";
#elif defined(__linux__) && defined(__aarch64__)
    return "linux-aarch64";
#else
    return {};
#endif
}

util::Expected<std::vector<ReleaseArchive>, std::string> parse_release_sums(
    std::string_view text, std::string_view source) {
    std::vector<ReleaseArchive> archives;
    std::size_t number = 0;
    for (std::string_view line : util::split(text, '\n')) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (util::trim(line).empty()) continue;
        // sha256sum writes "<hash>  <name>" (text mode) or "<hash> *<name>" (binary mode).
        const bool well_formed = line.size() > 66 && util::is_hex(line.substr(0, 64)) &&
                                 line[64] == ' ' && (line[65] == ' ' || line[65] == '*');
        if (!well_formed) {
            return util::Unexpected(std::string(source) + " line " + std::to_string(number) +
                                    " is not '<sha256>  <file name>' as sha256sum writes it: " +
                                    util::single_quoted(line.substr(0, 120)));
        }
        if (auto archive = archive_of(line.substr(66))) {
            archive->sha256 = util::to_lower(line.substr(0, 64));
            archives.push_back(std::move(*archive));
        }
    }
    return archives;
}

std::optional<ReleaseArchive> choose_release(const std::vector<ReleaseArchive>& archives,
                                             std::string_view target,
                                             const std::optional<std::string>& wanted) {
    std::optional<ReleaseArchive> best;
    std::optional<pep::Version> best_version;
    const auto wanted_version =
        wanted ? pep::Version::parse(*wanted) : pep::Parsed<pep::Version>(pep::Version());
    for (const auto& archive : archives) {
        if (archive.target != target) continue;
        auto version = pep::Version::parse(archive.version);
        if (!version) continue;
        if (wanted) {
            const bool same =
                wanted_version ? *version == *wanted_version : archive.version == *wanted;
            if (same) return archive;
            continue;
        }
        if (!best_version || *best_version < *version) {
            best_version = *version;
            best = archive;
        }
    }
    return best;
}

}  // namespace aitk::app
