#pragma once
// glibc ld.so's search for a DT_NEEDED name, run over files (private to diag): an object
// already loaded under that name or SONAME; a name with '/' is a path; DT_RPATH of the importer
// and then of each object up the chain that loaded it (only when the importer has no
// DT_RUNPATH, and only from objects without one); LD_LIBRARY_PATH; the importer's DT_RUNPATH;
// ld.so.cache; the default folders. A candidate of the other ELF class or another machine is
// skipped and the search goes on; a file that is not ELF at all stops it ("invalid ELF
// header", as open_verify in glibc's elf/dl-load.c does).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aitk/diag/ld_so_cache.hpp"
#include "aitk/diag/scan.hpp"
#include "image_cache.hpp"
#include "resolution.hpp"

namespace aitk::diag::detail {

// The search list of one importer, shared by all of its DT_NEEDED lookups.
struct LinuxContext {
    std::shared_ptr<const std::vector<SearchedPlace>> places;
    std::uint16_t machine = 0;
    bool is_64bit = true;
    std::string key;  // identifies the list for memoised lookups
};

// glibc's built-in folders for an object of this machine and class, Debian multiarch first.
std::vector<std::filesystem::path> glibc_default_dirs(std::uint16_t machine, bool is_64bit);

class LinuxLoader {
  public:
    LinuxLoader(const LinuxSearch& search, ImageCache& images, FolderCache& folders);

    // The search list for the DT_NEEDED names of chain.back(), loaded through the objects
    // before it (chain.front() is the object the process opened).
    LinuxContext context(std::span<const ChainNode> chain);

    Resolution resolve(std::string_view name, const LinuxContext& context,
                       const LoadedModules& loaded);

  private:
    Resolution search(std::string_view name, const LinuxContext& context);
    // Fills r from the candidate file; false when the search must go on (skipped).
    bool try_candidate(const std::filesystem::path& file, const LinuxContext& context,
                       Resolution& r);
    const std::vector<LdCacheEntry>* cache_entries(std::string_view soname);

    const LinuxSearch& search_;
    ImageCache& images_;
    FolderCache& folders_;
    std::unordered_map<std::string, std::shared_ptr<const std::vector<SearchedPlace>>> places_;
    std::unordered_map<std::string, Resolution> memo_;
    bool cache_read_ = false;
    std::unordered_map<std::string, std::vector<LdCacheEntry>> cache_;
};

}  // namespace aitk::diag::detail
