#pragma once
// PEP 440 versions: parsing, normalisation and ordering, following pypa/packaging's Version.
#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/parsed.hpp"

namespace aitk::pep {

enum class PreKind : std::uint8_t { alpha, beta, rc };

struct PreRelease {
    PreKind kind;
    std::uint64_t number;
    friend bool operator==(const PreRelease&, const PreRelease&) = default;
};

// "a", "b" or "rc".
std::string_view pre_kind_string(PreKind kind) noexcept;

class Version {
  public:
    // Accepts everything packaging accepts: surrounding whitespace, a leading "v", upper case,
    // alternative spellings (alpha, preview, rev, ...) and separators, implicit post ("1.0-1").
    static Parsed<Version> parse(std::string_view text);

    Version() : release_{0} {}  // "0"

    std::uint64_t epoch() const noexcept { return epoch_; }
    std::span<const std::uint64_t> release() const noexcept { return release_; }
    const std::optional<PreRelease>& pre() const noexcept { return pre_; }
    const std::optional<std::uint64_t>& post() const noexcept { return post_; }
    const std::optional<std::uint64_t>& dev() const noexcept { return dev_; }
    // Normalised local label ("ubuntu.1", "cu128"); empty when there is none.
    const std::string& local() const noexcept { return local_; }
    bool has_local() const noexcept { return !local_.empty(); }

    bool is_prerelease() const noexcept { return pre_.has_value() || dev_.has_value(); }
    bool is_postrelease() const noexcept { return post_.has_value(); }
    bool is_devrelease() const noexcept { return dev_.has_value(); }
    std::uint64_t major() const noexcept { return component(0); }
    std::uint64_t minor() const noexcept { return component(1); }
    std::uint64_t micro() const noexcept { return component(2); }

    std::string to_string() const;      // normalised form, e.g. "1!2.0rc1.post3.dev4+abc.5"
    std::string public_string() const;  // without the local label
    std::string base_version() const;   // epoch and release only
    Version public_version() const;     // this version without its local label
    Version base() const;               // epoch and release only

    // PEP 440 ordering; trailing zeros in the release do not matter (1.0 == 1.0.0).
    friend std::strong_ordering operator<=>(const Version& a, const Version& b) noexcept;
    friend bool operator==(const Version& a, const Version& b) noexcept { return (a <=> b) == 0; }
    // Consistent with ==: equal versions hash equally.
    std::size_t hash() const noexcept;

  private:
    std::uint64_t component(std::size_t i) const noexcept {
        return i < release_.size() ? release_[i] : 0;
    }

    std::uint64_t epoch_ = 0;
    std::vector<std::uint64_t> release_;
    std::optional<PreRelease> pre_;
    std::optional<std::uint64_t> post_;
    std::optional<std::uint64_t> dev_;
    std::string local_;
};

struct VersionHash {
    std::size_t operator()(const Version& v) const noexcept { return v.hash(); }
};

// packaging.utils.canonicalize_version: the normalised string with trailing ".0"s of the release
// removed (when strip_trailing_zero); a string that is not a version is returned unchanged.
std::string canonicalize_version(std::string_view text, bool strip_trailing_zero = true);

}  // namespace aitk::pep
