#include "image_cache.hpp"

#include <system_error>

#include "aitk/fs/mapped_file.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::diag::detail {

namespace fs = std::filesystem;

namespace {

void parse(Image& image) {
    auto mapped = aitk::fs::map_file(image.path);
    if (!mapped) {
        image.problem = ImageProblem{mapped.error(), 0};
        return;
    }
    auto bytes = mapped->bytes();
    if (bytes.empty()) {
        image.problem = ImageProblem{"empty file", 0};
    } else if (looks_like_elf(bytes)) {
        image.format = ImageFormat::elf;
        auto elf = read_elf(bytes);
        if (elf) {
            image.architecture = elf_machine_name(elf->machine, elf->is_64bit);
            image.elf = std::move(*elf);
        } else {
            image.problem = elf.error();
        }
    } else if (looks_like_pe(bytes)) {
        image.format = ImageFormat::pe;
        auto pe = read_pe(bytes);
        if (pe) {
            image.architecture = pe_machine_name(pe->machine);
            image.pe = std::move(*pe);
        } else {
            image.problem = pe.error();
        }
    } else {
        image.problem = ImageProblem{"neither a PE image nor an ELF object", 0};
    }
    // The mapping ends here: only the parsed tables are kept, so thousands of libraries never
    // hold thousands of mappings at once.
}

}  // namespace

const Image& ImageCache::get(const fs::path& path) {
    std::string as_given = util::utf8_of(path);
    if (auto it = by_path_.find(as_given); it != by_path_.end()) return *it->second;
    std::error_code ec;
    fs::path file = fs::canonical(path, ec);
    std::string file_key = ec ? util::utf8_of(path.lexically_normal()) : util::utf8_of(file);
    if (auto it = by_file_.find(file_key); it != by_file_.end()) {
        by_path_.emplace(std::move(as_given), it->second);
        return *it->second;
    }
    Image& image = images_.emplace_back();
    image.path = path;
    parse(image);
    by_file_.emplace(std::move(file_key), &image);
    by_path_.emplace(std::move(as_given), &image);
    return image;
}

std::string FolderCache::key(std::string_view name) const {
    return case_insensitive_ ? util::to_lower(name) : std::string(name);
}

const FolderCache::Listing& FolderCache::listing(const fs::path& folder) {
    std::string folder_key = util::utf8_of(folder.lexically_normal());
    if (auto it = folders_.find(folder_key); it != folders_.end()) return it->second;
    Listing& names = folders_[folder_key];
    std::error_code ec;
    fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        std::error_code type_ec;
        if (!it->is_regular_file(type_ec)) continue;  // follows links: a link to a file counts
        std::string name = util::utf8_of(it->path().filename());
        auto [slot, inserted] = names.try_emplace(key(name), name);
        // Two names differing only in case: keep one deterministically, whatever the
        // directory order.
        if (!inserted && name < slot->second) slot->second = name;
    }
    return names;
}

std::optional<fs::path> FolderCache::find(const fs::path& folder, std::string_view name) {
    if (name.empty() || name.find('/') != std::string_view::npos ||
        name.find('\\') != std::string_view::npos || folder.empty())
        return std::nullopt;
    const Listing& names = listing(folder);
    auto it = names.find(key(name));
    if (it == names.end()) return std::nullopt;
    return folder / it->second;
}

}  // namespace aitk::diag::detail
