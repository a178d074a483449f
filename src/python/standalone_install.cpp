#include "aitk/python/standalone_install.hpp"

#include <algorithm>
#include <system_error>

#include "aitk/archive/extract.hpp"
#include "aitk/cache/offline.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::python {

namespace fsys = std::filesystem;

namespace {

// The archive's file name: the URL's last path segment, percent-decoded ("%2B" → "+").
std::string filename_of(std::string_view url) {
    url = url.substr(0, std::min(url.find('?'), url.find('#')));
    return util::percent_decode(url.substr(url.rfind('/') + 1));
}

bool newer_version(const std::string& a, const std::string& b) {
    auto va = pep::Version::parse(a);
    auto vb = pep::Version::parse(b);
    if (va && vb) return *vb < *va;
    return a > b;
}

std::string platform_text(const StandalonePlatform& where) {
    std::string text = where.os + "-" + where.arch;
    if (!where.libc.empty() && where.libc != "none") text += " (" + where.libc + ")";
    return text;
}

// "3.12" or "3.12.1".
bool is_version_request(std::string_view text) {
    auto parts = util::split(text, '.');
    if (parts.size() < 2 || parts.size() > 3) return false;
    return std::all_of(parts.begin(), parts.end(), [](std::string_view p) {
        return !p.empty() && std::all_of(p.begin(), p.end(), util::is_ascii_digit);
    });
}

bool on_platform(const StandaloneBuild& b, const StandalonePlatform& where) {
    return b.os == where.os && b.arch == where.arch && (where.libc.empty() || b.libc == where.libc);
}

// Unpacks `archive` into `root` unless another process did: under a per-build lock, in the
// cache's tmp/, renamed into place only when it holds the interpreter.
bool unpack_once(cache::Cache& cache, const fsys::path& archive, const fsys::path& root,
                 bool windows) {
    auto lock = fs::FileLock::acquire(
        cache.base() / "locks" / ("python-" + util::utf8_of(root.filename()) + ".lock"),
        fs::LockMode::exclusive);
    std::error_code ec;
    if (fsys::is_directory(root, ec)) return false;
    auto staging = fs::TempDir::create_in(cache.temp_dir(), "python");
    const fsys::path tree = staging.path() / "tree";
    archive::extract(archive, tree);
    const fsys::path exe = standalone_executable(tree, windows);
    if (!fsys::exists(exe, ec)) {
        throw util::Error(util::ExitCode::failure,
                          util::utf8_of(archive.filename()) + " does not hold " +
                              util::generic_utf8_of(exe.lexically_relative(tree)) +
                              ": not a python-build-standalone install archive");
    }
    fsys::create_directories(root.parent_path(), ec);
    fs::publish(tree, root);  // already_exists: someone bypassed the lock; theirs is as good
    return true;
}

}  // namespace

std::string mirrored_url(std::string_view url, std::string_view mirror) {
    while (!mirror.empty() && mirror.back() == '/')
        mirror.remove_suffix(1);
    if (mirror.empty() || url.size() <= standalone_release_base.size() ||
        url.substr(0, standalone_release_base.size()) != standalone_release_base ||
        url[standalone_release_base.size()] != '/') {
        return std::string(url);
    }
    return std::string(mirror) + std::string(url.substr(standalone_release_base.size()));
}

StandalonePlatform standalone_platform(const platform::HostInfo& host) {
    StandalonePlatform where;
    switch (host.os) {
        case platform::OsKind::linux_os:
            where.os = "linux";
            where.libc = host.libc.family == "musl" ? "musl" : "gnu";
            break;
        case platform::OsKind::macos:
            where.os = "darwin";
            where.libc = "none";
            break;
        case platform::OsKind::windows:
            where.os = "windows";
            where.libc = "none";
            break;
        case platform::OsKind::other:
            where.os = "other";
            break;
    }
    where.arch = host.arch == "arm64" ? "aarch64" : host.arch;
    return where;
}

const StandaloneBuild& select_standalone_build(std::string_view version,
                                               const StandalonePlatform& where,
                                               const std::vector<StandaloneBuild>& builds) {
    std::vector<const StandaloneBuild*> here;
    for (const auto& b : builds) {
        if (on_platform(b, where)) here.push_back(&b);
    }
    if (here.empty()) {
        throw util::InputError("no standalone CPython build is known for " + platform_text(where),
                               "install Python yourself and pass its path with --python");
    }
    std::vector<StandaloneBuild> candidates;
    for (const auto* b : here)
        candidates.push_back(*b);
    auto full = full_python_version(version, candidates);
    const StandaloneBuild* best = nullptr;
    if (full) {
        for (const auto* b : here) {
            if (b->version == *full && (!best || b->build > best->build)) best = b;
        }
    }
    if (best) return *best;
    std::vector<std::string> versions;
    for (const auto* b : here) {
        if (std::find(versions.begin(), versions.end(), b->version) == versions.end())
            versions.push_back(b->version);
    }
    std::sort(versions.begin(), versions.end(), newer_version);
    if (!full && !is_version_request(version)) {
        throw util::InputError(
            "\"" + std::string(version) + "\" is not a Python version: give X.Y or X.Y.Z",
            "known versions for " + platform_text(where) + ": " + util::join(versions, ", "));
    }
    throw util::InputError(
        "no standalone CPython " + std::string(version) + " is known for " + platform_text(where),
        "known versions: " + util::join(versions, ", "));
}

fsys::path standalone_root(const cache::Cache& cache, const StandaloneBuild& build) {
    return cache.base() / "python" /
           (build.version + "-" + build.build + "-" + build.os + "-" + build.arch);
}

fsys::path standalone_executable(const fsys::path& root, bool windows) {
    return windows ? root / "python" / "python.exe" : root / "python" / "bin" / "python3";
}

StandaloneInstall install_standalone(const StandaloneInstallRequest& request,
                                     const std::vector<StandaloneBuild>& builds,
                                     cache::Cache& cache, net::Downloader& downloader) {
    StandaloneInstall out;
    out.build = select_standalone_build(request.version, request.platform, builds);
    out.root = standalone_root(cache, out.build);
    const bool windows = out.build.os == "windows";
    const fsys::path exe = standalone_executable(out.root, windows);
    auto in_use = cache.hold();
    std::error_code ec;
    if (!fsys::is_directory(out.root, ec)) {
        const std::string filename = cache::checked_filename(filename_of(out.build.url));
        const std::string url = request.rewrite.apply(mirrored_url(out.build.url, request.mirror));
        auto archive = cache.find_artifact(out.build.sha256, filename);
        if (!archive && request.offline) {
            std::vector<cache::ArtifactRef> wanted{{out.build.sha256, filename, url}};
            throw util::Error(util::ExitCode::failure,
                              cache::check_offline(cache, wanted).describe(cache, 1, 0));
        }
        if (!archive) {
            net::FileRequest download;
            download.url = url;
            download.destination = cache.staging_path(filename);
            download.expected_sha256 = cache::checked_sha256(out.build.sha256);
            auto outcome = downloader.download(download, request.observer);
            if (!outcome) {
                // The staging name is fresh each run, so a kept .part could never be resumed.
                fs::remove_all_quietly(download.destination);
                fs::remove_all_quietly(util::utf8_of(download.destination) + ".part");
                throw util::Error(util::ExitCode::failure, "cannot download CPython " +
                                                               out.build.version + ": " +
                                                               outcome.error().message);
            }
            archive = cache.insert_artifact(outcome->destination, out.build.sha256, filename,
                                            outcome->sha256, url);
            out.downloaded = true;
        }
        out.unpacked = unpack_once(cache, *archive, out.root, windows);
    }
    if (!fsys::exists(exe, ec)) {
        throw util::Error(
            util::ExitCode::failure,
            util::utf8_of(exe) + " is missing from the installed CPython " + out.build.version,
            "remove " + util::utf8_of(out.root) + " and install it again");
    }
    if (request.probe) {
        auto probed = probe_interpreter(exe, request.probe_options);
        if (!probed) {
            throw util::Error(
                util::ExitCode::failure,
                "the installed CPython " + out.build.version + " does not run: " + probed.error(),
                "remove " + util::utf8_of(out.root) + " and install it again");
        }
        out.interpreter = std::move(*probed);
    } else {
        out.interpreter.implementation = "CPython";
        out.interpreter.version = out.build.version;
        out.interpreter.path = exe;
        out.interpreter.executable = exe;
    }
    return out;
}

StandaloneInstall install_standalone(const StandaloneInstallRequest& request, cache::Cache& cache,
                                     net::Downloader& downloader) {
    return install_standalone(request, standalone_builds(), cache, downloader);
}

std::vector<InstalledStandalone> installed_standalone(const cache::Cache& cache) {
    std::vector<InstalledStandalone> out;
    std::error_code ec;
    for (const auto& entry : fsys::directory_iterator(cache.base() / "python", ec)) {
        if (!entry.is_directory(ec)) continue;
        // <version>-<build>-<os>-<arch>: the version has no '-', so split from the left.
        const std::string name = util::utf8_of(entry.path().filename());
        auto parts = util::split(name, '-');
        if (parts.size() != 4) continue;
        InstalledStandalone s;
        s.version = std::string(parts[0]);
        s.build = std::string(parts[1]);
        s.os = std::string(parts[2]);
        s.arch = std::string(parts[3]);
        s.root = entry.path();
        s.executable = standalone_executable(s.root, s.os == "windows");
        if (!fsys::exists(s.executable, ec)) continue;
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        if (a.version != b.version) return newer_version(a.version, b.version);
        return a.build > b.build;
    });
    return out;
}

}  // namespace aitk::python
