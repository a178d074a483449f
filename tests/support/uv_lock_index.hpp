#pragma once
// A real uv.lock rebuilt as a local index, and the lock rewritten onto it, for end-to-end tests
// and benchmarks of `setup -l uv.lock` (the lock's own URLs point at public hosts).
//
// Every registry package's wheels that fit one of the given platforms are built again (same
// project, version, build tag and tags; a stand-in module inside) on a MirrorBuilder index:
// "simple" for https://pypi.org/simple, "whl/<backend>" (pytorch style) for a registry ending in
// a PyTorch backend, "extra-<n>" for any other. A package none of whose wheels fits gets an sdist
// instead: the one `sdist_for` builds, else a stand-in sdist. The rewritten lock names the local
// URLs with the new files' sha256 and sizes, and the local registries; every other line of it
// (markers, edges, metadata, files not rebuilt) stays as uv wrote it.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/tags.hpp"
#include "mirror_builder.hpp"

namespace aitk::test {

struct UvLockIndexOptions {
    std::vector<pep::TargetPlatform> platforms;
    // A real sdist (a file) to publish for the package `name` `version`; nullopt: a stand-in.
    std::function<std::optional<std::filesystem::path>(const std::string& name,
                                                       const std::string& version)>
        sdist_for;
};

class UvLockIndex {
  public:
    // Builds the index under `root` from `uv_lock_text` (the lock's text, as uv wrote it).
    UvLockIndex(const std::filesystem::path& root, std::string uv_lock_text,
                const UvLockIndexOptions& options);

    const std::filesystem::path& root() const noexcept { return mirror_.root(); }
    // The lock with every rebuilt file's URL at `base_url` ("http://127.0.0.1:PORT", no
    // trailing slash), its sha256 and size, and the registries at their local indexes.
    std::string rewritten_lock(const std::string& base_url) const;
    std::size_t wheels() const noexcept { return wheels_; }
    std::size_t sdists() const noexcept { return sdists_; }

  private:
    struct Rebuilt {
        std::string url_path;  // "/files/simple/numpy/numpy-….whl" or "/whl/cu126/torch-…"
        std::string sha256;
        std::uint64_t size = 0;
    };

    MirrorBuilder mirror_;
    std::string text_;
    std::map<std::string, Rebuilt> files_;           // original URL → the new file
    std::map<std::string, std::string> registries_;  // original registry → local index path
    std::size_t wheels_ = 0;
    std::size_t sdists_ = 0;
};

}  // namespace aitk::test
