#pragma once
// A set of versions of one package, as a bitset over that package's candidate list (sorted
// oldest first): bit i stands for candidate i. Candidates are finite, so membership is decided
// once per requirement by pep::SpecifierSet::contains, which keeps every PEP 440 quirk exact
// (local labels, wildcards, "~=", "===", the prerelease rules) with no interval arithmetic.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace aitk::resolve {

class VersionSet {
  public:
    VersionSet() = default;
    static VersionSet none(std::size_t universe);
    static VersionSet all(std::size_t universe);
    static VersionSet single(std::size_t universe, std::size_t index);

    // The number of candidates the set is drawn from.
    std::size_t universe() const noexcept { return universe_; }

    bool contains(std::size_t index) const noexcept {
        return index < universe_ && ((words_[index / 64] >> (index % 64)) & 1U) != 0;
    }
    void insert(std::size_t index) noexcept {
        if (index < universe_) words_[index / 64] |= std::uint64_t{1} << (index % 64);
    }
    void erase(std::size_t index) noexcept {
        if (index < universe_) words_[index / 64] &= ~(std::uint64_t{1} << (index % 64));
    }

    bool empty() const noexcept;
    bool full() const noexcept;
    std::size_t count() const noexcept;
    // The highest member (the newest candidate), if any.
    std::optional<std::size_t> highest() const noexcept;

    VersionSet complement() const;
    VersionSet& operator&=(const VersionSet& other) noexcept;
    VersionSet& operator|=(const VersionSet& other) noexcept;
    // Removes the members of `other`.
    VersionSet& operator-=(const VersionSet& other) noexcept;
    friend VersionSet operator&(VersionSet a, const VersionSet& b) { return a &= b; }
    friend VersionSet operator|(VersionSet a, const VersionSet& b) { return a |= b; }
    friend VersionSet operator-(VersionSet a, const VersionSet& b) { return a -= b; }

    bool subset_of(const VersionSet& other) const noexcept;
    bool disjoint(const VersionSet& other) const noexcept;

    friend bool operator==(const VersionSet&, const VersionSet&) = default;

  private:
    void clear_tail() noexcept;

    std::vector<std::uint64_t> words_;
    std::size_t universe_ = 0;
};

}  // namespace aitk::resolve
