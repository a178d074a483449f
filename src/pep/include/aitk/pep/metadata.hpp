#pragma once
// Core metadata (a wheel's METADATA, an sdist's PKG-INFO, a PEP 658 .metadata file): RFC 822
// style headers, then an optional body holding the long description.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/parsed.hpp"
#include "aitk/pep/version.hpp"

namespace aitk::pep {

struct MetadataHeader {
    std::string name;      // as written ("Requires-Dist"); compare with util::iequals
    std::string value;     // unfolded and trimmed
    std::size_t line = 0;  // 1-based line of the header's first line
};

struct CoreMetadata {
    std::string metadata_version;  // "2.1"; empty when the header is missing
    std::string name;              // as written; a valid PEP 508 name
    std::string version_text;      // as written
    Version version;
    std::string requires_python;              // specifier text, empty when absent
    std::vector<std::string> requires_dist;   // raw PEP 508 strings, in file order
    std::vector<std::string> provides_extra;  // as written, in file order
    std::string summary;
    std::string description_content_type;
    // The Description header (continuation lines unfolded with the 8-space / 7-space + '|'
    // convention), else the body after the first blank line. Line ends are '\n'.
    std::string description;
    std::vector<MetadataHeader> headers;  // every header, in file order

    // Needs Name and Version; errors say which line is wrong, or which field is missing.
    // Accepts LF, CRLF and CR line ends and a leading UTF-8 byte order mark.
    static Parsed<CoreMetadata> parse(std::string_view text);

    // First value of a header (case-insensitive name), nullopt when absent.
    std::optional<std::string_view> get(std::string_view header) const;
    // Every value of a multiple-use header (Classifier, Project-URL, ...), in file order.
    std::vector<std::string_view> get_all(std::string_view header) const;
};

}  // namespace aitk::pep
