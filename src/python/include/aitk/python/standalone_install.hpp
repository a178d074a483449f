#pragma once
// Installing a python-build-standalone CPython into the cache: the archive is downloaded once
// (sha256 from the table checked while it streams, stored content-addressed), unpacked once
// into <cache root>/v1/python/<version>-<build>-<os>-<arch>/ (in tmp/, then renamed into place
// under a per-build lock, so concurrent processes wait and then find it), and its interpreter
// (python/bin/python3, Windows python\python.exe) is returned.
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/cache/cache.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/net/url_rewrite.hpp"
#include "aitk/platform/host.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::python {

// Where the table's archives are published; a mirror replaces this prefix.
inline constexpr std::string_view standalone_release_base =
    "https://github.com/astral-sh/python-build-standalone/releases/download";
// The environment variable naming the mirror (air-gapped sites, internal proxies).
inline constexpr std::string_view python_mirror_variable = "AITK_ENV_PYTHON_MIRROR";

// `url` with standalone_release_base replaced by `mirror` (a trailing '/' is ignored); other
// URLs and an empty mirror leave it unchanged.
std::string mirrored_url(std::string_view url, std::string_view mirror);

// The table's names for a platform: os "linux" / "darwin" / "windows", arch "x86_64" /
// "aarch64", libc "gnu" (glibc Linux), "musl" or "none".
struct StandalonePlatform {
    std::string os;
    std::string arch;
    std::string libc;
    friend bool operator==(const StandalonePlatform&, const StandalonePlatform&) = default;
};
StandalonePlatform standalone_platform(const platform::HostInfo& host);

// The build for `version` ("3.12": the newest 3.12.x; "3.12.1": exactly it) on `where`; among
// several builds of one version the newest build. Throws util::InputError saying which
// versions exist for that platform.
const StandaloneBuild& select_standalone_build(std::string_view version,
                                               const StandalonePlatform& where,
                                               const std::vector<StandaloneBuild>& builds);

// <cache root>/v1/python/<version>-<build>-<os>-<arch>.
std::filesystem::path standalone_root(const cache::Cache& cache, const StandaloneBuild& build);
// <root>/python/bin/python3, <root>/python/python.exe.
std::filesystem::path standalone_executable(const std::filesystem::path& root, bool windows);

struct StandaloneInstallRequest {
    std::string version;  // "3.12" or "3.12.1"
    StandalonePlatform platform;
    std::string mirror;            // AITK_ENV_PYTHON_MIRROR; empty: the table's URLs
    net::UrlRewriteRules rewrite;  // applied after `mirror` (a cluster's pull-through cache)
    bool offline = false;          // never download: an archive not in the cache is an error
    // Ask the installed interpreter for its facts (only possible for this machine's platform);
    // otherwise the Interpreter is filled from the table.
    bool probe = true;
    DiscoveryOptions probe_options;  // environment, timeout and answers cache for the probe
    net::TransferObserver* observer = nullptr;
};

struct StandaloneInstall {
    StandaloneBuild build;
    std::filesystem::path root;
    Interpreter interpreter;
    bool downloaded = false;  // this call downloaded the archive
    bool unpacked = false;    // this call unpacked it
};

// Throws util::InputError for a version or platform the table lacks, util::Error (exit 1) for a
// failed download (the message names the URL; a sha256 mismatch names both digests and keeps
// nothing), for --offline without the archive in the cache (what is missing and how to fill
// the cache), and for an archive without the interpreter.
StandaloneInstall install_standalone(const StandaloneInstallRequest& request,
                                     const std::vector<StandaloneBuild>& builds,
                                     cache::Cache& cache, net::Downloader& downloader);
// The same with the compiled-in table.
StandaloneInstall install_standalone(const StandaloneInstallRequest& request, cache::Cache& cache,
                                     net::Downloader& downloader);

// What is unpacked under <cache root>/v1/python, newest version first.
struct InstalledStandalone {
    std::string version;
    std::string build;
    std::string os;
    std::string arch;
    std::filesystem::path root;
    std::filesystem::path executable;
    friend bool operator==(const InstalledStandalone&, const InstalledStandalone&) = default;
};
std::vector<InstalledStandalone> installed_standalone(const cache::Cache& cache);

}  // namespace aitk::python
