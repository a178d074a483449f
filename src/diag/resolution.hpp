#pragma once
// What a simulated loader decided for one import name (private to diag): the file it takes,
// where that came from, and every place it would have looked, so the scan can both report a
// missing library and tell whether a copy inside the scanned folder was passed over.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "aitk/diag/scan.hpp"

namespace aitk::diag::detail {

struct Image;

enum class ResolveStatus {
    present,             // an OS part that is always there (API set, KnownDLL, Windows 10 DLL)
    already_loaded,      // a module this process loaded earlier under that name
    found,               // `path`, from places[found_at]
    missing,             // nowhere: places lists every folder tried
    wrong_architecture,  // Windows: `path` has another machine and stops the search
    bad_image,           // `path` is not a loadable image, which stops the search (`problem`)
    unknown,             // cannot be decided from files (a relative path on Linux)
};

struct Resolution {
    ResolveStatus status = ResolveStatus::missing;
    std::filesystem::path path;  // the file the loader takes (or stops at)
    const Image* image = nullptr;
    std::string origin;           // SearchedPlace::origin of `path`, or "API set" / "KnownDLLs"
    std::filesystem::path entry;  // the PATH / LD_LIBRARY_PATH entry that supplied `path`
    // The whole search list in order, shared by every name looked up from one importer.
    std::shared_ptr<const std::vector<SearchedPlace>> places;
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::size_t found_at = npos;       // index in *places of the place that supplied `path`
    std::vector<std::string> skipped;  // Linux: "<path> (32-bit)", candidates passed over
    std::string problem;               // bad_image: ImageProblem::describe()
};

// One object of a load chain: the path it was found at (its folder is its $ORIGIN, its own
// folder for the Windows search) and its parsed image.
struct ChainNode {
    std::filesystem::path path;
    const Image* image = nullptr;
};

// Modules a simulated process holds, by the names later imports can match (lower-case DLL
// names on Windows; requested names, SONAMEs and full paths on Linux).
struct LoadedModules {
    struct Module {
        std::filesystem::path path;
        const Image* image = nullptr;
    };
    std::unordered_map<std::string, Module> by_name;

    void clear() { by_name.clear(); }
    const Module* find(const std::string& name) const {
        auto it = by_name.find(name);
        return it == by_name.end() ? nullptr : &it->second;
    }
    void add(std::string name, const std::filesystem::path& path, const Image* image) {
        by_name.try_emplace(std::move(name), Module{path, image});
    }
};

}  // namespace aitk::diag::detail
