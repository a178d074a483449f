#include "aitk/lock/lockfile.hpp"

#include <array>
#include <utility>

namespace aitk::lock {
namespace {

constexpr std::array<std::pair<IndexKind, std::string_view>, 3> index_kinds{{
    {IndexKind::simple, "simple"},
    {IndexKind::find_links, "find-links"},
    {IndexKind::torch_backend, "torch-backend"},
}};

constexpr std::array<std::pair<SourceKind, std::string_view>, 4> source_kinds{{
    {SourceKind::vcs, "vcs"},
    {SourceKind::sdist, "sdist"},
    {SourceKind::url, "url"},
    {SourceKind::directory, "directory"},
}};

template <class Kind, std::size_t N>
std::string_view word_of(const std::array<std::pair<Kind, std::string_view>, N>& table,
                         Kind kind) noexcept {
    for (const auto& [k, word] : table) {
        if (k == kind) return word;
    }
    return table.front().second;
}

template <class Kind, std::size_t N>
std::optional<Kind> kind_of(const std::array<std::pair<Kind, std::string_view>, N>& table,
                            std::string_view text) noexcept {
    for (const auto& [k, word] : table) {
        if (word == text) return k;
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(IndexKind kind) noexcept {
    return word_of(index_kinds, kind);
}

std::string_view to_string(SourceKind kind) noexcept {
    return word_of(source_kinds, kind);
}

std::optional<IndexKind> parse_index_kind(std::string_view text) noexcept {
    return kind_of(index_kinds, text);
}

std::optional<SourceKind> parse_source_kind(std::string_view text) noexcept {
    return kind_of(source_kinds, text);
}

const LockedPackage* LockedTarget::find(std::string_view name) const {
    for (const auto& package : packages) {
        if (package.name == name) return &package;
    }
    return nullptr;
}

const LockedTarget* Lockfile::find_target(std::string_view id) const {
    for (const auto& target : targets) {
        if (target.id == id) return &target;
    }
    return nullptr;
}

const LockedIndex* Lockfile::find_index(std::string_view name) const {
    if (name.empty()) return nullptr;
    for (const auto& index : indexes) {
        if (index.name == name) return &index;
    }
    return nullptr;
}

std::string default_lockfile_path(std::string_view manifest_name) {
    return "lockfiles/" + std::string(manifest_name) + ".lock.yml";
}

}  // namespace aitk::lock
