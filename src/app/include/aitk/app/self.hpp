#pragma once
// `aitk-env self install|uninstall|update`: the executable managing its own copy. Release
// archives (bash .ci/release) are named aitk-env-<version>-<target>.zip (Windows) or .tar.gz
// and hold one folder with the executable; a release folder lists them in SHA256SUMS, the
// format of sha256sum(1), which is all `self update` reads before it downloads.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/session.hpp"
#include "aitk/platform/user_path.hpp"
#include "aitk/util/expected.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

struct SelfReport {
    nlohmann::json json;  // --json
    std::string text;     // the same for people (stdout)
    int exit_code = 0;
};

// ---- install / uninstall ----

struct SelfInstallOptions {
    std::filesystem::path executable;          // the running one
    std::optional<std::filesystem::path> dir;  // --dir; default: default_install_dir
    bool modify_path = true;                   // --no-modify-path: false
    util::Environment environment;             // PATH, HOME, LOCALAPPDATA, SHELL, XDG_BIN_HOME
    bool windows = false;                      // the host's rules (exe name, PATH syntax)
    // The user's PATH store (Windows: HKCU\Environment); null where the system has none that
    // aitk-env may edit (shell files): the report then says which line to add.
    platform::UserPathStore* user_path = nullptr;
};

// %LOCALAPPDATA%\Programs\aitk-env\bin on Windows; $XDG_BIN_HOME, else ~/.local/bin elsewhere.
// Throws util::InputError when the environment names no home folder.
std::filesystem::path default_install_dir(const util::Environment& env, bool windows);

// Copies the executable into the folder (unchanged when the same bytes are there) and puts the
// folder on the user's PATH. Idempotent.
SelfReport self_install(const SelfInstallOptions& options);
// Removes the folder's executable and the PATH entry that install added.
SelfReport self_uninstall(const SelfInstallOptions& options);

// ---- update ----

// The release target this build is for: windows-x86_64, linux-x86_64, linux-aarch64, ...;
// empty when no release archives are made for it.
std::string this_release_target();

struct ReleaseArchive {
    std::string name;     // aitk-env-0.2.0-linux-x86_64.tar.gz
    std::string version;  // 0.2.0
    std::string target;   // linux-x86_64
    std::string sha256;   // lower-case hex
};

// The archives a SHA256SUMS text lists (lines "<64 hex>  <name>" or "<hex> *<name>"); lines for
// other files are skipped. A malformed line is an error naming `source` and its line number.
util::Expected<std::vector<ReleaseArchive>, std::string> parse_release_sums(
    std::string_view text, std::string_view source);

// The archive to install for `target`: `wanted` exactly when given, else the newest version
// (PEP 440 order). nullopt when the list has none for the target (or not that version).
std::optional<ReleaseArchive> choose_release(const std::vector<ReleaseArchive>& archives,
                                             std::string_view target,
                                             const std::optional<std::string>& wanted);

struct SelfUpdateOptions {
    std::filesystem::path executable;    // what is replaced: the running one
    std::string current_version;         // AITK_ENV_VERSION
    std::string target;                  // this_release_target()
    std::string base_url;                // --base-url, AITK_ENV_RELEASE_URL or the default
    std::optional<std::string> version;  // --version: this one, even when older
    bool check_only = false;             // --check
    bool windows = false;
};

// The release page the project publishes (SHA256SUMS and the archives of the newest release).
inline constexpr std::string_view default_release_url =
    "https://github.com/aitk-env/aitk-env/releases/latest/download";

// Reads SHA256SUMS, downloads the chosen archive through the session's downloader, checks its
// sha256 and replaces the executable. Throws util::Error (exit 1) when anything fails; the
// executable is then as it was.
SelfReport self_update(Session& session, const SelfUpdateOptions& options);

}  // namespace aitk::app
