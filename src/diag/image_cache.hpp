#pragma once
// The files a scan reads, each read once (private to diag): a path maps to its parsed image,
// and a folder to its listing. A prefix holds thousands of libraries that import the same few
// dozen, and every lookup of every import would otherwise stat or map the same files again.
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "aitk/diag/elf.hpp"
#include "aitk/diag/image_problem.hpp"
#include "aitk/diag/pe.hpp"

namespace aitk::diag::detail {

enum class ImageFormat { pe, elf, other };

struct Image {
    std::filesystem::path path;               // as first asked for
    ImageFormat format = ImageFormat::other;  // by the magic bytes
    std::optional<PeImage> pe;
    std::optional<ElfImage> elf;
    std::optional<ImageProblem> problem;  // could not be mapped, or the reader refused it
    std::string architecture;             // "x86_64", "x86", "arm64", ...; empty with a problem

    bool ok() const noexcept { return !problem.has_value(); }
};

class ImageCache {
  public:
    ImageCache() = default;
    ImageCache(const ImageCache&) = delete;
    ImageCache& operator=(const ImageCache&) = delete;

    // The image at `path`, mapped and parsed on the first call; the same object for every
    // path that names the same file (links included), so its address identifies the file.
    const Image& get(const std::filesystem::path& path);

  private:
    std::unordered_map<std::string, const Image*> by_path_;
    std::unordered_map<std::string, const Image*> by_file_;  // canonical path
    std::deque<Image> images_;                               // stable addresses
};

// Folder listings (regular files and links to them), read once per folder. Case-insensitive
// lookups match names the way Windows does, on a case-sensitive Linux folder too.
class FolderCache {
  public:
    explicit FolderCache(bool case_insensitive) : case_insensitive_(case_insensitive) {}
    FolderCache(const FolderCache&) = delete;
    FolderCache& operator=(const FolderCache&) = delete;

    // `folder / <the name as stored>` when `folder` holds `name`; nullopt otherwise (also for a
    // name with a path separator, and for a folder that does not exist).
    std::optional<std::filesystem::path> find(const std::filesystem::path& folder,
                                              std::string_view name);
    bool case_insensitive() const noexcept { return case_insensitive_; }
    // The lookup key of a name: itself, or lower-cased when case-insensitive.
    std::string key(std::string_view name) const;

  private:
    using Listing = std::unordered_map<std::string, std::string>;  // key → name as stored
    const Listing& listing(const std::filesystem::path& folder);

    bool case_insensitive_;
    std::unordered_map<std::string, Listing> folders_;
};

}  // namespace aitk::diag::detail
