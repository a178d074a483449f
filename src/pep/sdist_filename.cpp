#include "aitk/pep/sdist_filename.hpp"

#include <algorithm>

#include "aitk/pep/name.hpp"

namespace aitk::pep {

namespace {

constexpr std::string_view kTarGz = ".tar.gz";
constexpr std::string_view kZip = ".zip";

bool ends_with(std::string_view s, std::string_view suffix) noexcept {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Parsed<SdistFilename> SdistFilename::parse(std::string_view filename) {
    SdistFilename out;
    std::string_view stem;
    if (ends_with(filename, kTarGz)) {
        out.format = SdistFormat::tar_gz;
        stem = filename.substr(0, filename.size() - kTarGz.size());
    } else if (ends_with(filename, kZip)) {
        out.format = SdistFormat::zip;
        stem = filename.substr(0, filename.size() - kZip.size());
    } else {
        return parse_error(
            "sdist filename '" + std::string(filename) + "' must end in '.tar.gz' or '.zip'",
            filename, filename.size());
    }

    // A PEP 440 version contains no '-', so the name ends at the last one.
    std::size_t dash = stem.rfind('-');
    if (dash == std::string_view::npos) {
        return parse_error("sdist filename '" + std::string(filename) +
                               "' has no '-' between the name and the version "
                               "(expected <name>-<version>.tar.gz)",
                           filename, stem.size());
    }
    if (dash == 0) {
        return parse_error(
            "sdist filename '" + std::string(filename) + "' has an empty project name", filename,
            0);
    }
    out.name = canonicalize_name(stem.substr(0, dash));

    std::string_view version_text = stem.substr(dash + 1);
    auto version = Version::parse(version_text);
    if (!version) {
        const ParseError& inner = version.error();
        std::size_t where = inner.position == ParseError::no_position
                                ? dash + 1
                                : dash + 1 + std::min(inner.position, version_text.size());
        return parse_error("invalid version '" + std::string(version_text) +
                               "' in sdist filename: " + inner.message,
                           filename, where);
    }
    out.version = std::move(*version);
    return out;
}

std::string SdistFilename::to_string() const {
    std::string out = name;
    std::replace(out.begin(), out.end(), '-', '_');
    out += '-';
    out += version.to_string();
    out += format == SdistFormat::zip ? kZip : kTarGz;
    return out;
}

}  // namespace aitk::pep
