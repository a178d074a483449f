#include "aitk/build/sdist.hpp"

#include <algorithm>
#include <system_error>

#include "aitk/archive/extract.hpp"
#include "aitk/build/error.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::build {

namespace stdfs = std::filesystem;

UnpackedSdist unpack_sdist(const stdfs::path& archive, const stdfs::path& destination) {
    archive::ExtractOptions options;
    options.links = archive::LinkPolicy::allow_inside;
    archive::extract(archive, destination, options);

    std::vector<stdfs::path> top;
    std::error_code ec;
    for (const auto& entry : stdfs::directory_iterator(destination, ec))
        top.push_back(entry.path());
    std::sort(top.begin(), top.end());
    if (top.size() != 1 || !stdfs::is_directory(top.front()) || stdfs::is_symlink(top.front())) {
        std::string found;
        for (const auto& p : top)
            found += (found.empty() ? "" : ", ") + util::utf8_of(p.filename());
        fs::remove_all_quietly(destination);
        throw BuildError("source distribution " + util::utf8_of(archive.filename()) +
                             " does not hold a single top-level folder (found: " +
                             (found.empty() ? "nothing" : found) + ")",
                         "an sdist holds one folder <name>-<version>/ with the project in it; "
                         "rebuild it with `python -m build --sdist`");
    }

    UnpackedSdist out;
    out.project = top.front();
    const stdfs::path pkg_info = out.project / "PKG-INFO";
    if (stdfs::is_regular_file(pkg_info, ec)) {
        out.pkg_info_text = fs::read_file(pkg_info);
        auto parsed = pep::CoreMetadata::parse(*out.pkg_info_text);
        if (parsed) {
            out.pkg_info = std::move(*parsed);
        } else {
            out.pkg_info_problem = util::utf8_of(pkg_info) + ": " + parsed.error().describe();
        }
    }
    return out;
}

std::string sdist_source_id(std::string_view sha256) {
    return "sha256:" + util::to_lower(sha256);
}

}  // namespace aitk::build
