// `aitk-env self update`: the newest release for this build's target, read from a release
// folder's SHA256SUMS, downloaded and checked before the running executable is replaced.
#include <fstream>
#include <system_error>

#include "aitk/app/self.hpp"
#include "aitk/app/settings.hpp"
#include "aitk/archive/reader.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/url.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "self_files.hpp"

namespace aitk::app {

namespace {

namespace stdfs = std::filesystem;

// An executable larger than this is not ours (ours is ~20 MB).
constexpr std::uint64_t kMaxExecutableBytes = 512ull << 20;

[[noreturn]] void fail(std::string message, std::string hint = {}) {
    throw util::Error(util::ExitCode::failure, std::move(message), std::move(hint));
}

std::string without_trailing_slashes(std::string url) {
    while (!url.empty() && url.back() == '/')
        url.pop_back();
    return url;
}

// The session's network settings (proxies, CA bundle, retries), with advice for a server that
// cannot be reached that fits a release folder rather than a package index.
net::DownloaderOptions release_download_options(const Session& session) {
    auto options = downloader_options(session.network());
    options.unreachable_hint =
        "or name a release folder that can be reached: --base-url URL or AITK_ENV_RELEASE_URL "
        "(a mirror, or a local folder holding SHA256SUMS and the archives)";
    return options;
}

std::vector<ReleaseArchive> read_release_list(net::Downloader& downloader,
                                              const std::string& sums_url) {
    net::FetchRequest request;
    request.url = sums_url;
    auto fetched = downloader.fetch(request);
    if (!fetched) {
        fail("cannot read the release list: " + fetched.error().message,
             "check the address (--base-url, AITK_ENV_RELEASE_URL) and the network; nothing "
             "was changed");
    }
    auto archives = parse_release_sums(fetched->body, sums_url);
    if (!archives)
        fail(archives.error(), "the release folder's SHA256SUMS is damaged; nothing was changed");
    return std::move(*archives);
}

std::string names_for_target(const std::vector<ReleaseArchive>& archives, std::string_view target) {
    std::vector<std::string> versions;
    for (const auto& a : archives) {
        if (a.target == target) versions.push_back(a.version);
    }
    return versions.empty() ? std::string("none") : util::join(versions, ", ");
}

// Writes the archive's executable (its top folder's aitk-env or aitk-env.exe) to `out`.
void extract_executable(const stdfs::path& archive_file, const std::string& archive_name,
                        const std::string& exe_name, const stdfs::path& out) {
    auto reader = archive::Reader::open(archive_file);
    while (const archive::Entry* entry = reader.next()) {
        if (entry->type != archive::EntryType::file) continue;
        const std::string& path = entry->path;
        const auto slash = path.find('/');
        const bool in_top =
            slash == std::string::npos ? path == exe_name : path.substr(slash + 1) == exe_name;
        if (!in_top) continue;
        std::ofstream file(out, std::ios::binary | std::ios::trunc);
        std::string_view block;
        std::uint64_t offset = 0, written = 0;
        while (reader.next_block(block, offset)) {
            written += block.size();
            if (written > kMaxExecutableBytes)
                fail(archive_name + "'s " + path + " is larger than any aitk-env");
            file.seekp(static_cast<std::streamoff>(offset));
            file.write(block.data(), static_cast<std::streamsize>(block.size()));
        }
        file.close();
        if (!file) fail("cannot write " + util::utf8_of(out));
        detail::mark_executable(out);
        return;
    }
    fail(archive_name + " holds no " + exe_name + " in its top folder; nothing was changed",
         "the release folder holds a damaged or foreign archive");
}

}  // namespace

SelfReport self_update(Session& session, const SelfUpdateOptions& options) {
    if (options.target.empty()) {
        fail("no release archives are made for this system",
             "build aitk-env from source (README) to update it");
    }
    // A folder (a share, a USB stick of an air-gapped site) is read as its file: URL.
    std::string base = without_trailing_slashes(options.base_url);
    if (!index::has_url_scheme(base)) {
        std::error_code ec;
        const auto folder = std::filesystem::absolute(util::path_from_utf8(base), ec);
        base = without_trailing_slashes(
            index::path_to_file_url(ec ? util::path_from_utf8(base) : folder));
    }
    const std::string sums_url = base + "/SHA256SUMS";
    net::Downloader downloader(release_download_options(session));
    const auto archives = read_release_list(downloader, sums_url);
    auto chosen = choose_release(archives, options.target, options.version);
    if (!chosen) {
        fail(sums_url + " lists no archive for " + options.target +
                 (options.version ? " at version " + *options.version : std::string()) +
                 " (versions for it: " + names_for_target(archives, options.target) +
                 "); nothing was changed",
             options.version ? "choose one of the listed versions" : "check --base-url");
    }
    const auto current = pep::Version::parse(options.current_version);
    const auto latest = pep::Version::parse(chosen->version);
    const bool differs = !current || !latest || *current != *latest;
    // Never a downgrade unless a version was asked for by name.
    const bool wanted = options.version ? differs : (!current || (latest && *current < *latest));

    SelfReport report;
    report.json = {{"current", options.current_version},
                   {"latest", chosen->version},
                   {"target", options.target},
                   {"update_available", wanted},
                   {"updated", false},
                   {"executable", util::utf8_of(options.executable)},
                   {"archive", base + "/" + chosen->name},
                   {"sha256", chosen->sha256}};
    if (!wanted) {
        report.text = "aitk-env " + options.current_version + " is up to date (" + sums_url +
                      " offers " + chosen->version + " for " + options.target + ")\n";
        return report;
    }
    if (options.check_only) {
        report.text = "aitk-env " + chosen->version + " is available (this is " +
                      options.current_version + "): aitk-env self update" +
                      (options.version ? " --version " + *options.version : std::string()) + "\n";
        return report;
    }

    const stdfs::path dir = options.executable.parent_path();
    detail::remove_moved_aside(dir);
    std::optional<fs::TempDir> work;
    try {
        work.emplace(fs::TempDir::create_in(dir, "aitk-env-new"));
    } catch (const util::Error& e) {
        fail(std::string(e.what()) + "; nothing was changed",
             "aitk-env can replace only an executable in a folder you can write to; one installed "
             "by a package manager is updated by it");
    }
    net::FileRequest request;
    request.url = base + "/" + chosen->name;
    request.destination = work->path() / chosen->name;
    request.expected_sha256 = chosen->sha256;
    auto downloaded = downloader.download(request, session.observer());
    if (!downloaded) {
        const auto& error = downloaded.error();
        if (error.kind == net::TransferError::Kind::hash_mismatch) {
            fail(chosen->name + " does not match SHA256SUMS (expected sha256 " + chosen->sha256 +
                     (error.actual_sha256 ? ", got " + *error.actual_sha256 : std::string()) +
                     "); nothing was changed",
                 "the release folder or a proxy serves other bytes than the list names; do not "
                 "install it by hand either");
        }
        fail("cannot download " + chosen->name + ": " + error.message + "; nothing was changed");
    }
    const std::string exe_name = detail::executable_file_name(options.windows);
    const stdfs::path staged = work->path() / exe_name;
    extract_executable(request.destination, chosen->name, exe_name, staged);
    detail::replace_executable(staged, options.executable);

    report.json["updated"] = true;
    report.text = "updated " + util::utf8_of(options.executable) + " from " +
                  options.current_version + " to " + chosen->version + " (" + chosen->name +
                  ", sha256 checked)\n";
    return report;
}

}  // namespace aitk::app
