#include "aitk/app/lock_local_files.hpp"

#include <algorithm>
#include <optional>

#include "aitk/app/lock.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/index/url.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

namespace stdfs = std::filesystem;

// `path` absolute, `..` folded and symbolic links resolved as far as it exists.
stdfs::path resolved(const stdfs::path& path) {
    std::error_code ec;
    auto out = stdfs::weakly_canonical(stdfs::absolute(path, ec), ec);
    return ec ? stdfs::absolute(path, ec).lexically_normal() : out;
}

bool is_within(const stdfs::path& path, const stdfs::path& root) {
    const stdfs::path rel = path.lexically_relative(root);
    return !rel.empty() && *rel.begin() != "..";
}

// What a location names on this machine: a file: URL's path or a plain path (without its
// "#fragment"). Nothing for a URL of another scheme. `foreign_host`: a file: URL naming
// another machine, which is nowhere allowed.
struct Local {
    std::optional<stdfs::path> path;
    bool local = false;
};

Local local_of(std::string_view location) {
    if (index::has_url_scheme(location)) {
        if (!util::istarts_with(location, "file:")) return {};
        return {index::file_url_to_path(location), true};
    }
    if (location.empty()) return {};
    const auto hash = location.find('#');
    return {util::path_from_utf8(std::string(location.substr(0, hash))), true};
}

// "3:14" of the first place `needle` is written in `text` (1-based); "" when it is not there
// as written (YAML escapes).
std::string line_column(std::string_view text, std::string_view needle) {
    const auto at = text.find(needle);
    if (at == std::string_view::npos) return {};
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

LocalFileRule LocalFileRule::for_lock(const stdfs::path& cwd, const stdfs::path& lock_file,
                                      const IndexSettings& passed) {
    LocalFileRule rule;
    rule.lock_file = lock_file;
    rule.lock_path = fs::absolute_from(cwd, lock_file);
    const auto folder = resolved(rule.lock_path).parent_path();
    rule.folders.push_back(folder);
    if (folder.filename() == "lockfiles") rule.folders.push_back(folder.parent_path());
    auto add = [&](const std::string& location, bool index) {
        const auto local = local_of(location);
        if (!local.path) return;
        auto path = resolved(fs::absolute_from(cwd, *local.path));
        std::error_code ec;
        // A find-links page (an HTML file) vouches for its folder.
        if (stdfs::is_regular_file(path, ec)) path = path.parent_path();
        rule.folders.push_back(path);
        // A mirror's index (`DIR/simple/`) keeps its files beside it (`DIR/files/`).
        const auto name = path.filename().empty() ? path.parent_path().filename() : path.filename();
        if (index && name == "simple") rule.folders.push_back(path.parent_path());
    };
    for (const auto& location : passed.find_links)
        add(location, false);
    if (passed.index_url) add(*passed.index_url, true);
    for (const auto& location : passed.extra_index_urls)
        add(location, true);
    if (passed.torch_index_url) add(*passed.torch_index_url, true);
    return rule;
}

bool LocalFileRule::refuses(std::string_view url) const {
    const auto local = local_of(url);
    if (!local.local) return false;
    if (!local.path) return true;  // file://otherhost/…
    const auto path = resolved(*local.path);
    for (const auto& folder : folders) {
        if (is_within(path, folder)) return false;
    }
    return true;
}

std::vector<std::string> lock_urls_opened(const std::vector<const lock::LockedPackage*>& packages,
                                          bool wheels_located,
                                          const net::UrlRewriteRules& rewrite) {
    std::vector<std::string> urls;
    auto add = [&](const std::string& url) {
        if (!url.empty() && rewrite.apply(url) == url) urls.push_back(url);
    };
    for (const auto* package : packages) {
        if (package->wheel && !wheels_located) add(package->wheel->url);
        if (package->source && package->source->kind != lock::SourceKind::vcs) {
            add(package->source->url);
        }
    }
    return urls;
}

void refuse_foreign_local_files(const LocalFileRule& rule, const std::vector<std::string>& urls) {
    std::vector<std::string> refused;
    for (const auto& url : urls) {
        if (rule.refuses(url) && std::find(refused.begin(), refused.end(), url) == refused.end()) {
            refused.push_back(url);
        }
    }
    if (refused.empty()) return;
    std::string text;
    try {
        text = read_lockfile_text(rule.lock_path);
    } catch (const util::Error&) {
        // The places are a help; the refusal stands without them.
    }
    const std::string lock_name = util::utf8_of(rule.lock_file);
    std::vector<std::string> folders;
    for (const auto& folder : rule.folders)
        folders.push_back(util::utf8_of(folder));
    std::string message;
    constexpr std::size_t shown = 5;
    for (std::size_t i = 0; i < refused.size() && i < shown; ++i) {
        const auto where = line_column(text, refused[i]);
        message += (i == 0 ? "" : "\n  ") + lock_name + (where.empty() ? "" : ":" + where) +
                   ": the lock names the file " + util::redact_url(refused[i]) + " on this machine";
    }
    if (refused.size() > shown) {
        message += "\n  (and " + std::to_string(refused.size() - shown) + " more)";
    }
    message +=
        "\n  a lock reads files on this machine only under its own folder or a folder "
        "you passed (" +
        util::join(folders, ", ") + ")";
    throw util::InputError(message,
                           "pass the folder that holds the file with --find-links DIR, or move "
                           "the file beside the lock");
}

}  // namespace aitk::app
