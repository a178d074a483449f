#pragma once
// PEP 440 versions: parsing, normalisation and ordering, following pypa/packaging's Version.
#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <initializer_list>
#include <memory>
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

// Release numbers with room for four inline: nearly every real version ("2.7.0") fits, so
// parsing one allocates nothing; longer releases move to the heap. Moving one is a few word
// copies, which matters when versions are sorted by the hundred thousand.
class ReleaseNumbers {
  public:
    ReleaseNumbers() = default;
    ReleaseNumbers(std::initializer_list<std::uint64_t> numbers) {
        for (auto n : numbers)
            push_back(n);
    }
    ReleaseNumbers(const ReleaseNumbers& other) { *this = other; }
    ReleaseNumbers& operator=(const ReleaseNumbers& other) {
        if (this == &other) return *this;
        clear();
        for (std::size_t i = 0; i < other.size_; ++i)
            push_back(other[i]);
        return *this;
    }
    ReleaseNumbers(ReleaseNumbers&&) noexcept = default;
    ReleaseNumbers& operator=(ReleaseNumbers&&) noexcept = default;

    void push_back(std::uint64_t n) {
        if (size_ < inline_.size() && !heap_) {
            inline_[size_++] = n;
            return;
        }
        if (!heap_ || size_ == capacity_) grow();
        heap_[size_++] = n;
    }
    void clear() noexcept {
        size_ = 0;
        capacity_ = 0;
        heap_.reset();
    }
    std::size_t size() const noexcept { return size_; }
    const std::uint64_t* data() const noexcept { return heap_ ? heap_.get() : inline_.data(); }
    std::uint64_t operator[](std::size_t i) const noexcept { return data()[i]; }
    operator std::span<const std::uint64_t>() const noexcept { return {data(), size_}; }

  private:
    void grow() {
        std::size_t capacity = capacity_ == 0 ? 2 * inline_.size() : 2 * capacity_;
        auto bigger = std::make_unique<std::uint64_t[]>(capacity);
        std::copy(data(), data() + size_, bigger.get());
        heap_ = std::move(bigger);
        capacity_ = static_cast<std::uint32_t>(capacity);
    }

    std::array<std::uint64_t, 4> inline_{};
    std::unique_ptr<std::uint64_t[]> heap_;  // all numbers once there are more than four
    std::uint32_t size_ = 0;
    std::uint32_t capacity_ = 0;
};

// A local label, on the heap only when there is one: most versions have none, and a null
// pointer moves as cheaply as an integer.
class LocalLabel {
  public:
    LocalLabel() = default;
    LocalLabel(const LocalLabel& other)
        : text_(other.text_ ? std::make_unique<std::string>(*other.text_) : nullptr) {}
    LocalLabel& operator=(const LocalLabel& other) {
        if (this != &other)
            text_ = other.text_ ? std::make_unique<std::string>(*other.text_) : nullptr;
        return *this;
    }
    LocalLabel(LocalLabel&&) noexcept = default;
    LocalLabel& operator=(LocalLabel&&) noexcept = default;

    void assign(std::string text) {
        text_ = text.empty() ? nullptr : std::make_unique<std::string>(std::move(text));
    }
    void clear() noexcept { text_.reset(); }
    bool empty() const noexcept { return !text_; }
    const std::string& str() const noexcept {
        static const std::string none;
        return text_ ? *text_ : none;
    }

  private:
    std::unique_ptr<std::string> text_;
};

class Version {
  public:
    // Accepts everything packaging accepts: surrounding whitespace, a leading "v", upper case,
    // alternative spellings (alpha, preview, rev, ...) and separators, implicit post ("1.0-1").
    static Parsed<Version> parse(std::string_view text);

    Version() : release_{0} {}  // "0"

    std::uint64_t epoch() const noexcept { return epoch_; }
    std::span<const std::uint64_t> release() const noexcept { return release_; }
    std::optional<PreRelease> pre() const noexcept {
        if (pre_kind_ == 0) return std::nullopt;
        return PreRelease{static_cast<PreKind>(pre_kind_ - 1), pre_number_};
    }
    std::optional<std::uint64_t> post() const noexcept {
        return has_post_ ? std::optional<std::uint64_t>(post_) : std::nullopt;
    }
    std::optional<std::uint64_t> dev() const noexcept {
        return has_dev_ ? std::optional<std::uint64_t>(dev_) : std::nullopt;
    }
    // Normalised local label ("ubuntu.1", "cu128"); empty when there is none.
    const std::string& local() const noexcept { return local_.str(); }
    bool has_local() const noexcept { return !local_.empty(); }

    bool is_prerelease() const noexcept { return pre_kind_ != 0 || has_dev_; }
    bool is_postrelease() const noexcept { return has_post_; }
    bool is_devrelease() const noexcept { return has_dev_; }
    std::uint64_t major() const noexcept { return component(0); }
    std::uint64_t minor() const noexcept { return component(1); }
    std::uint64_t micro() const noexcept { return component(2); }

    std::string to_string() const;      // normalised form, e.g. "1!2.0rc1.post3.dev4+abc.5"
    std::string public_string() const;  // without the local label
    std::string base_version() const;   // epoch and release only
    Version public_version() const;     // this version without its local label
    Version base() const;               // epoch and release only

    // PEP 440 ordering; trailing zeros in the release do not matter (1.0 == 1.0.0). Sorting and
    // resolving compare versions millions of times, and most pairs differ in the epoch or the
    // release, so that part is inline and the rest is out of line.
    friend std::strong_ordering operator<=>(const Version& a, const Version& b) noexcept {
        if (a.order_key_ != b.order_key_) return a.order_key_ <=> b.order_key_;
        if (a.epoch_ != b.epoch_) return a.epoch_ <=> b.epoch_;
        const std::uint64_t* ra = a.release_.data();
        const std::uint64_t* rb = b.release_.data();
        const std::uint32_t n = a.significant_ < b.significant_ ? a.significant_ : b.significant_;
        for (std::uint32_t i = 0; i < n; ++i) {
            if (ra[i] != rb[i]) return ra[i] <=> rb[i];
        }
        if (a.significant_ != b.significant_) return a.significant_ <=> b.significant_;
        if (a.plain_ && b.plain_) return std::strong_ordering::equal;
        return compare_after_release(a, b);
    }
    friend bool operator==(const Version& a, const Version& b) noexcept { return (a <=> b) == 0; }
    // Consistent with ==: equal versions hash equally.
    std::size_t hash() const noexcept;

  private:
    static std::strong_ordering compare_after_release(const Version& a, const Version& b) noexcept;
    void update_significant() noexcept {
        std::size_t n = release_.size();
        while (n > 0 && release_[n - 1] == 0)
            --n;
        significant_ = static_cast<std::uint32_t>(n);
        order_key_ = make_order_key();
    }
    std::uint64_t make_order_key() const noexcept;

    std::uint64_t component(std::size_t i) const noexcept {
        return i < release_.size() ? release_[i] : 0;
    }

    std::uint64_t epoch_ = 0;
    ReleaseNumbers release_;
    std::uint32_t significant_ = 0;  // release length without trailing zeros
    // The epoch and the first three release numbers packed so that a < b whenever
    // order_key_(a) < order_key_(b): most comparisons in a sort end on this one integer. A
    // number too large for its field saturates and zeroes the fields after it, so equal keys
    // only ever mean "compare in full".
    std::uint64_t order_key_ = 0;
    bool plain_ = true;  // no pre, post, dev or local part
    // Pre/post/dev parts packed (no std::optional padding): versions are sorted and moved in
    // bulk, so their size matters.
    std::uint64_t pre_number_ = 0;
    std::uint64_t post_ = 0;
    std::uint64_t dev_ = 0;
    std::uint8_t pre_kind_ = 0;  // 0: none, else PreKind + 1
    bool has_post_ = false;
    bool has_dev_ = false;
    LocalLabel local_;
};

struct VersionHash {
    std::size_t operator()(const Version& v) const noexcept { return v.hash(); }
};

// packaging.utils.canonicalize_version: the normalised string with trailing ".0"s of the release
// removed (when strip_trailing_zero); a string that is not a version is returned unchanged.
std::string canonicalize_version(std::string_view text, bool strip_trailing_zero = true);

}  // namespace aitk::pep
