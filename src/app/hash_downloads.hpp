#pragma once
// Files nobody gave a sha256 for (the torch index omits it at times; a pip-installed wheel
// has only its RECORD): each is downloaded once into the cache and hashed there, so the
// install that follows finds it. Private to the app layer (lock, snapshot).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/app/session.hpp"

namespace aitk::app {

struct UnhashedFile {
    std::string filename;
    std::string url;
};

struct FileHash {
    std::string sha256;
    std::uint64_t size = 0;
};

// One FileHash per file, in order. Offline: util::Error "offline: <unknown> <names>, and hashing
// them needs a download"; a failed download: "cannot hash <file>: <why>" (both exit 1).
std::vector<FileHash> download_to_hash(Session& session, const std::vector<UnhashedFile>& files,
                                       std::string_view unknown);

}  // namespace aitk::app
