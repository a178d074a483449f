#pragma once
// PEP 610 direct_url.json: how an installed distribution records that it came from a URL, a VCS
// checkout or a local folder rather than from an index. The one writer (sync, for wheels locked
// by URL and for built source nodes) and the one reader (snapshot), so that what one writes the
// other reads back.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "aitk/util/expected.hpp"

namespace aitk::install {

struct DirectUrl {
    // An archive (a wheel, an sdist, any other file) fetched from `url`.
    struct Archive {
        std::string sha256;  // lower-case hex; "" when no sha256 is known
    };
    // A VCS checkout of `url` (the repository, without the "git+" prefix).
    struct Vcs {
        std::string vcs = "git";
        std::string commit_id;
        std::optional<std::string> requested_revision;  // the branch, tag or commit asked for
    };
    // A local folder (`url` is a file: URL), editable or not.
    struct Directory {
        bool editable = false;
    };

    std::string url;
    std::string subdirectory;  // "" when the project is at the root
    std::variant<Archive, Vcs, Directory> info;
};

// The JSON text (keys sorted, as pip writes them). An archive without a sha256 gets an empty
// archive_info; one with it both `hashes` and the older `hash` key.
std::string write_direct_url(const DirectUrl& direct);

// Reads what pip and this tool write: vcs_info wins over dir_info over archive_info; a sha256
// comes from `hashes` or the older `hash` key (lower-cased), other algorithms are not kept.
// The error says what is wrong ("no \"url\"", "vcs_info without \"commit_id\"", …).
util::Expected<DirectUrl, std::string> read_direct_url(std::string_view json_text);

}  // namespace aitk::install
