#pragma once
// Source distribution filenames, following packaging's parse_sdist_filename: "<name>-<version>"
// with a ".tar.gz" or ".zip" extension, split at the last '-' (a PEP 440 version has none).
#include <cstdint>
#include <string>
#include <string_view>

#include "aitk/pep/parsed.hpp"
#include "aitk/pep/version.hpp"

namespace aitk::pep {

enum class SdistFormat : std::uint8_t { tar_gz, zip };

struct SdistFilename {
    std::string name;  // PEP 503-normalised
    Version version;
    SdistFormat format = SdistFormat::tar_gz;

    static Parsed<SdistFilename> parse(std::string_view filename);

    // packaging's compose_sdist_filename: "<name with '_'>-<normalised version>.tar.gz|.zip".
    std::string to_string() const;

    friend bool operator==(const SdistFilename&, const SdistFilename&) = default;
};

}  // namespace aitk::pep
