#pragma once
// Why a project page or a file's metadata could not be had. Messages are complete sentences for
// the user and name the URL (credentials removed).
#include <string>
#include <string_view>

namespace aitk::index {

struct IndexError {
    enum class Kind {
        not_found,          // no index (of those the routing allows) lists the project
        offline_missing,    // --offline and the cache has no copy
        network,            // the transfer failed (after the downloader's retries)
        bad_page,           // the server answered with something that is not an index page
        bad_metadata,       // METADATA missing, unreadable or not core metadata
        metadata_mismatch,  // METADATA names another project or version than the filename
        hash_mismatch,      // a .metadata file or a download differs from the index's hash
        unsupported,        // e.g. the metadata of an sdist (needs a build)
        local_io,           // a find-links folder or a cached file could not be read
    };
    Kind kind = Kind::network;
    std::string message;
    std::string url;  // redacted
};

std::string_view to_string(IndexError::Kind kind) noexcept;

}  // namespace aitk::index
