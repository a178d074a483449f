#include "linux_loader.hpp"

#include <unordered_set>

#include "aitk/fs/mapped_file.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::diag::detail {

namespace fs = std::filesystem;

std::vector<fs::path> glibc_default_dirs(std::uint16_t machine, bool is_64bit) {
    auto with_triplet = [](const char* triplet, bool lib64) {
        // POSIX text, not path arithmetic: the folders are those of a Linux tree on any host.
        std::vector<fs::path> dirs = {std::string("/lib/") + triplet,
                                      std::string("/usr/lib/") + triplet};
        if (lib64) dirs.insert(dirs.end(), {"/lib64", "/usr/lib64"});
        dirs.insert(dirs.end(), {"/lib", "/usr/lib"});
        return dirs;
    };
    if (machine == kElfMachineX86_64 && is_64bit) return with_triplet("x86_64-linux-gnu", true);
    if (machine == kElfMachineAarch64 && is_64bit) return with_triplet("aarch64-linux-gnu", true);
    if (machine == kElfMachine386 && !is_64bit) return with_triplet("i386-linux-gnu", false);
    if (is_64bit) return {"/lib64", "/usr/lib64", "/lib", "/usr/lib"};
    return {"/lib", "/usr/lib"};
}

LinuxLoader::LinuxLoader(const LinuxSearch& search, ImageCache& images, FolderCache& folders)
    : search_(search), images_(images), folders_(folders) {}

LinuxContext LinuxLoader::context(std::span<const ChainNode> chain) {
    const ChainNode& importer = chain.back();
    const ElfImage& elf = *importer.image->elf;
    std::vector<SearchedPlace> places;
    std::unordered_set<std::string> seen;
    auto add = [&](const char* origin, const fs::path& dir) {
        // A folder met again later is not searched again (glibc shares one entry per folder
        // and the answer cannot change), so the list says where the search really looked.
        if (!dir.empty() && !seen.insert(util::utf8_of(dir.lexically_normal())).second) return;
        places.push_back(SearchedPlace{origin, dir});
    };
    auto add_expanded = [&](const char* origin, const std::string& value, const fs::path& obj) {
        for (const auto& dir : expand_search_path(value, util::utf8_of(obj.parent_path())))
            add(origin, dir);
    };
    if (!elf.runpath) {
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const ElfImage& loader = *it->image->elf;
            // An object with DT_RUNPATH has its DT_RPATH ignored by ld.so.
            if (loader.rpath && !loader.runpath) add_expanded("DT_RPATH", *loader.rpath, it->path);
        }
    }
    for (const auto& dir : search_.ld_library_path)
        add("LD_LIBRARY_PATH", dir);
    if (elf.runpath) add_expanded("DT_RUNPATH", *elf.runpath, importer.path);
    if (search_.ld_so_cache) places.push_back(SearchedPlace{"ld.so.cache", {}});
    const auto defaults =
        search_.default_dirs.value_or(glibc_default_dirs(elf.machine, elf.is_64bit));
    for (const auto& dir : defaults)
        add("default", dir);

    LinuxContext context;
    context.machine = elf.machine;
    context.is_64bit = elf.is_64bit;
    context.key = std::to_string(elf.machine) + (elf.is_64bit ? "/64" : "/32");
    for (const auto& place : places)
        context.key += '\n' + place.origin + '\t' + util::utf8_of(place.folder);
    auto [it, inserted] = places_.try_emplace(context.key);
    if (inserted)
        it->second = std::make_shared<const std::vector<SearchedPlace>>(std::move(places));
    context.places = it->second;
    return context;
}

Resolution LinuxLoader::resolve(std::string_view name, const LinuxContext& context,
                                const LoadedModules& loaded) {
    if (const auto* module = loaded.find(std::string(name))) {
        Resolution r;
        r.status = ResolveStatus::already_loaded;
        r.origin = "already loaded";
        r.path = module->path;
        r.image = module->image;
        return r;
    }
    std::string key = context.key;
    key += '\0';
    key += name;
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    Resolution r = search(name, context);
    return memo_.emplace(std::move(key), std::move(r)).first->second;
}

bool LinuxLoader::try_candidate(const fs::path& file, const LinuxContext& context, Resolution& r) {
    const Image& image = images_.get(file);
    if (image.format != ImageFormat::elf || !image.ok()) {
        // Not ELF, or broken: open_verify fails with "invalid ELF header" (or "file too
        // short") and the whole load fails; only the class and machine checks let it go on.
        r.status = ResolveStatus::bad_image;
        r.path = file;
        r.image = &image;
        r.problem = image.problem ? image.problem->describe() : "not an ELF object";
        return true;
    }
    const ElfImage& elf = *image.elf;
    if (elf.is_64bit != context.is_64bit) {
        r.skipped.push_back(util::utf8_of(file) + (elf.is_64bit ? " (64-bit)" : " (32-bit)"));
        return false;
    }
    if (elf.machine != context.machine) {
        r.skipped.push_back(util::utf8_of(file) + " (" + image.architecture + ")");
        return false;
    }
    r.status = ResolveStatus::found;
    r.path = file;
    r.image = &image;
    return true;
}

Resolution LinuxLoader::search(std::string_view name, const LinuxContext& context) {
    Resolution r;
    if (name.find('/') != std::string_view::npos) {
        fs::path file(name);
        if (!file.is_absolute()) {
            // Relative to the process's working folder, which a scan cannot know.
            r.status = ResolveStatus::unknown;
            return r;
        }
        r.places = std::make_shared<const std::vector<SearchedPlace>>(
            std::vector<SearchedPlace>{{"path", file.parent_path()}});
        std::error_code ec;
        if (fs::is_regular_file(file, ec) && try_candidate(file, context, r)) {
            r.origin = "path";
            r.found_at = 0;
            return r;
        }
        r.status = ResolveStatus::missing;
        return r;
    }
    r.places = context.places;
    const auto& places = *context.places;
    for (std::size_t i = 0; i < places.size(); ++i) {
        const SearchedPlace& place = places[i];
        std::optional<fs::path> file;
        if (place.origin == "ld.so.cache") {
            // ld.so takes the first entry that fits this object and tries only that file.
            if (const auto* entries = cache_entries(name)) {
                for (const auto& entry : *entries) {
                    if (!ld_cache_entry_fits(entry.flags, context.machine, context.is_64bit))
                        continue;
                    std::error_code ec;
                    if (fs::is_regular_file(entry.path, ec)) file = fs::path(entry.path);
                    break;
                }
            }
        } else {
            file = folders_.find(place.folder, name);
        }
        if (!file || !try_candidate(*file, context, r)) continue;
        r.origin = place.origin;
        r.found_at = i;
        if (place.origin == "LD_LIBRARY_PATH") r.entry = place.folder;
        return r;
    }
    r.status = ResolveStatus::missing;
    return r;
}

const std::vector<LdCacheEntry>* LinuxLoader::cache_entries(std::string_view soname) {
    if (!cache_read_) {
        cache_read_ = true;
        // An unreadable cache is no cache: ld.so ignores one it cannot read.
        if (auto mapped = aitk::fs::map_file(*search_.ld_so_cache)) {
            if (auto entries = read_ld_so_cache(mapped->bytes())) {
                for (auto& entry : *entries)
                    cache_[entry.soname].push_back(std::move(entry));
            }
        }
    }
    auto it = cache_.find(std::string(soname));
    return it == cache_.end() ? nullptr : &it->second;
}

}  // namespace aitk::diag::detail
