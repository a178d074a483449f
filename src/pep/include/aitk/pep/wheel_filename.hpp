#pragma once
// Wheel filenames (PEP 427 / binary distribution format), following packaging's
// parse_wheel_filename: name-version[-build]-interpreter-abi-platform.whl.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/parsed.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/version.hpp"

namespace aitk::pep {

// The optional build tag: a number and whatever follows it ("1000abc" -> {1000, "abc"}).
// Wheels that differ only in build tag sort by it, number first.
struct BuildTag {
    std::uint64_t number = 0;
    std::string suffix;
    friend bool operator==(const BuildTag&, const BuildTag&) = default;
    friend std::strong_ordering operator<=>(const BuildTag&, const BuildTag&) = default;
};

struct WheelFilename {
    std::string name;  // PEP 503-normalised ("Foo_Bar" -> "foo-bar")
    Version version;
    std::optional<BuildTag> build;
    std::vector<Tag> tags;  // expanded, sorted, without duplicates

    // `filename` is a bare file name (no directory or URL). Errors name the offending part.
    static Parsed<WheelFilename> parse(std::string_view filename,
                                       const TagParseOptions& tag_options = {});

    // packaging's compose_wheel_filename: the name with '_' separators, the normalised version,
    // the build tag, and the tags compressed per component (each sorted, joined by '.').
    std::string to_string() const;

    friend bool operator==(const WheelFilename&, const WheelFilename&) = default;
};

}  // namespace aitk::pep
