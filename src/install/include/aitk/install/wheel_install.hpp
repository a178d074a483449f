#pragma once
// Installing one wheel into a prefix from its unpacked tree in the cache (the tree is made once
// per sha256 by cache::Cache::ensure_unpacked + unpack_wheel): verify every file against the
// wheel's RECORD, link or copy the files into place, spread `<dist>.data/`, rewrite `#!python`
// shebangs, write console/GUI script wrappers from entry_points.txt (`<name>.exe` launchers on a
// Windows layout: windows_launcher.hpp), and write the installed RECORD (sha256 + size of what is
// on disk now), INSTALLER, REQUESTED and direct_url.json.
// pip's `list`, `show`, `check` and `uninstall` then work on the prefix.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/install/layout.hpp"
#include "aitk/install/windows_launcher.hpp"
#include "aitk/util/error.hpp"

namespace aitk::install {

enum class LinkMode { automatic, reflink, hardlink, copy };
// "auto", "reflink", "hardlink", "copy"; nullopt for anything else.
std::optional<LinkMode> parse_link_mode(std::string_view text);

// A wheel whose files do not match its RECORD, an unsafe member, a missing RECORD, ...
class WheelError : public util::Error {
  public:
    explicit WheelError(std::string message, std::string hint = {})
        : util::Error(util::ExitCode::failure, std::move(message), std::move(hint)) {}
};

// Unpacks `wheel` into `destination` (which must not exist) with secure extraction and a size
// cap, then checks every member against RECORD (hash and size; RECORD itself and signature
// files excepted) and that RECORD lists every member. Throws WheelError naming the wheel and
// the file. For cache::Cache::ensure_unpacked.
void unpack_wheel(const std::filesystem::path& wheel, const std::filesystem::path& destination);

// Zip-bomb and entry-count caps for unpack_wheel (counted on the bytes actually written).
//
// The expansion rule: RECORD is read first (through the zip's central directory), every member
// is stopped as soon as it passes the size RECORD gives for it, and the members together (as
// RECORD sizes them, and as written) may expand to at most
//     max(expansion_floor, expansion_ratio x the wheel's size)   (and never past max_total_bytes)
// = max(64 MiB, 50 x size). Real wheels expand 1.4 to 3.6 times: a torch CUDA wheel ~2 (1.9 GB
// -> 3.9 GB), CUDA libraries 1.4 (libcuvs 1.10 GB -> 1.59 GB), libcuml 3.6 (1.1 GB -> 4.0 GB),
// scikit-learn 3.4, pip and setuptools (text) 2.8 to 3.4, no single member of them past 17;
// deflate itself stops near 1030 (1 MB of zeros -> 1 GiB). 50 leaves 14x headroom over the most
// expansive real wheel found; the 64 MiB floor lets any small wheel hold whatever it likes.
struct UnpackLimits {
    std::uint64_t max_total_bytes = 16ull << 30;
    std::uint64_t max_entries = 500'000;
    std::size_t threads = 1;  // the members spread over this many threads (a large wheel)
    std::uint64_t expansion_floor = 64ull << 20;
    std::uint64_t expansion_ratio = 50;
};
void unpack_wheel(const std::filesystem::path& wheel, const std::filesystem::path& destination,
                  const UnpackLimits& limits);

// The most a wheel of `wheel_bytes` may expand to under `limits` (see UnpackLimits).
std::uint64_t wheel_expansion_limit(std::uint64_t wheel_bytes, const UnpackLimits& limits) noexcept;

struct WheelInstallRequest {
    std::filesystem::path unpacked;  // the verified tree
    std::string name;                // normalised distribution name
    std::string version;
    bool requested = false;                 // writes REQUESTED
    std::optional<std::string> direct_url;  // direct_url.json content for URL/VCS installs
    LinkMode link_mode = LinkMode::automatic;
    std::string label;  // names the wheel in errors (its filename); default "<name>-<version>"
    // Launcher programs for a Windows layout's console/GUI scripts; unused on POSIX layouts.
    // Without them (nullptr or an empty image) no `<name>.exe` is written and each skipped
    // script is named in WheelInstallResult::notes: the install itself still succeeds.
    const WindowsLaunchers* windows_launchers = embedded_windows_launchers();
    // RECORD paths (as InstalledFile::path) of files that a wheel installed after this one in
    // the same sync's order has already put in place: they are listed in this RECORD with this
    // wheel's hash, as pip lists an overwritten file, but the later copy stays (it wins, as it
    // would have installed one after the other). Null: every file is placed.
    std::function<bool(std::string_view record_path)> placed_by_later;
};

struct InstalledFile {
    std::string path;  // relative to site-packages, '/'-separated (as RECORD writes it)
    std::string hash;  // "sha256=<urlsafe b64 nopad>"; empty for RECORD itself
    std::uint64_t size = 0;
};

struct WheelInstallResult {
    std::filesystem::path dist_info;   // the installed .dist-info folder
    std::vector<InstalledFile> files;  // what RECORD now lists
    LinkMode used = LinkMode::copy;    // what linking settled on
    std::vector<std::string> notes;    // what was skipped, for the user (Windows launchers)
};

// Throws WheelError / util::Error. Files already present at a destination are replaced.
WheelInstallResult install_wheel(const PrefixLayout& layout, const WheelInstallRequest& request);

// The console/GUI script wrapper pip writes for "name = module:function" (POSIX: a python
// script with an absolute shebang to `python`). Windows: windows_launcher_payload.
std::string posix_script_text(const std::filesystem::path& python, const std::string& module,
                              const std::string& function);

}  // namespace aitk::install
