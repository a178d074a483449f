#include "version_set.hpp"

#include <algorithm>
#include <bit>

namespace aitk::resolve {

VersionSet VersionSet::none(std::size_t universe) {
    VersionSet set;
    set.universe_ = universe;
    set.words_.assign((universe + 63) / 64, 0);
    return set;
}

VersionSet VersionSet::all(std::size_t universe) {
    VersionSet set;
    set.universe_ = universe;
    set.words_.assign((universe + 63) / 64, ~std::uint64_t{0});
    set.clear_tail();
    return set;
}

VersionSet VersionSet::single(std::size_t universe, std::size_t index) {
    VersionSet set = none(universe);
    set.insert(index);
    return set;
}

// Bits past the universe stay zero, so counts, equality and emptiness need no masking.
void VersionSet::clear_tail() noexcept {
    if (universe_ % 64 != 0 && !words_.empty()) {
        words_.back() &= (std::uint64_t{1} << (universe_ % 64)) - 1;
    }
}

bool VersionSet::empty() const noexcept {
    return std::all_of(words_.begin(), words_.end(), [](std::uint64_t w) { return w == 0; });
}

bool VersionSet::full() const noexcept {
    return count() == universe_;
}

std::size_t VersionSet::count() const noexcept {
    std::size_t n = 0;
    for (auto w : words_)
        n += static_cast<std::size_t>(std::popcount(w));
    return n;
}

std::optional<std::size_t> VersionSet::highest() const noexcept {
    for (std::size_t i = words_.size(); i-- > 0;) {
        if (words_[i] != 0) {
            return i * 64 + 63 - static_cast<std::size_t>(std::countl_zero(words_[i]));
        }
    }
    return std::nullopt;
}

VersionSet VersionSet::complement() const {
    VersionSet out = *this;
    for (auto& w : out.words_)
        w = ~w;
    out.clear_tail();
    return out;
}

VersionSet& VersionSet::operator&=(const VersionSet& other) noexcept {
    const std::size_t n = std::min(words_.size(), other.words_.size());
    for (std::size_t i = 0; i < n; ++i)
        words_[i] &= other.words_[i];
    for (std::size_t i = n; i < words_.size(); ++i)
        words_[i] = 0;
    return *this;
}

VersionSet& VersionSet::operator|=(const VersionSet& other) noexcept {
    const std::size_t n = std::min(words_.size(), other.words_.size());
    for (std::size_t i = 0; i < n; ++i)
        words_[i] |= other.words_[i];
    return *this;
}

VersionSet& VersionSet::operator-=(const VersionSet& other) noexcept {
    const std::size_t n = std::min(words_.size(), other.words_.size());
    for (std::size_t i = 0; i < n; ++i)
        words_[i] &= ~other.words_[i];
    return *this;
}

bool VersionSet::subset_of(const VersionSet& other) const noexcept {
    for (std::size_t i = 0; i < words_.size(); ++i) {
        const std::uint64_t theirs = i < other.words_.size() ? other.words_[i] : 0;
        if ((words_[i] & ~theirs) != 0) return false;
    }
    return true;
}

bool VersionSet::disjoint(const VersionSet& other) const noexcept {
    const std::size_t n = std::min(words_.size(), other.words_.size());
    for (std::size_t i = 0; i < n; ++i) {
        if ((words_[i] & other.words_[i]) != 0) return false;
    }
    return true;
}

}  // namespace aitk::resolve
