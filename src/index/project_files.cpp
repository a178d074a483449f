#include <set>

#include "aitk/index/client.hpp"

namespace aitk::index {

std::size_t ProjectFiles::source_of(std::size_t file) const noexcept {
    return file < file_source.size() ? file_source[file] : 0;
}

const IndexLocation& ProjectFiles::index_of(std::size_t file) const noexcept {
    const std::size_t source = source_of(file);
    return source < listed_on.size() ? listed_on[source] : index;
}

ProjectFiles merge_listings(std::vector<ProjectFiles> listings,
                            bool version_files_from_every_index) {
    ProjectFiles out = std::move(listings.front());
    if (listings.size() == 1) return out;
    out.listed_on = {out.index};
    out.file_source.assign(out.files.size(), 0);
    // The versions earlier indexes list: theirs, whatever the later ones offer of them.
    std::set<pep::Version> listed;
    std::set<std::string> names;  // the file names taken so far
    for (const auto& file : out.files) {
        listed.insert(file.version());
        names.insert(file.filename);
    }
    for (std::size_t i = 1; i < listings.size(); ++i) {
        auto& more = listings[i];
        std::set<pep::Version> added;
        for (auto& file : more.files) {
            if (version_files_from_every_index ? !names.insert(file.filename).second
                                               : listed.count(file.version()) != 0) {
                continue;
            }
            added.insert(file.version());
            out.files.push_back(std::move(file));
            out.file_source.push_back(out.listed_on.size());
        }
        listed.insert(added.begin(), added.end());
        out.skipped.insert(out.skipped.end(), std::make_move_iterator(more.skipped.begin()),
                           std::make_move_iterator(more.skipped.end()));
        out.listed_on.push_back(std::move(more.index));
    }
    return out;
}

}  // namespace aitk::index
