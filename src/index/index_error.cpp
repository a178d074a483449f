#include "aitk/index/index_error.hpp"

namespace aitk::index {

std::string_view to_string(IndexError::Kind kind) noexcept {
    using K = IndexError::Kind;
    switch (kind) {
        case K::not_found:
            return "not_found";
        case K::offline_missing:
            return "offline_missing";
        case K::network:
            return "network";
        case K::bad_page:
            return "bad_page";
        case K::bad_metadata:
            return "bad_metadata";
        case K::metadata_mismatch:
            return "metadata_mismatch";
        case K::hash_mismatch:
            return "hash_mismatch";
        case K::unsupported:
            return "unsupported";
        case K::local_io:
            return "local_io";
    }
    return "network";
}

}  // namespace aitk::index
