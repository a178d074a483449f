// `aitk-env self install|update|uninstall` through the real binary: copies of it in scratch
// folders, release folders served by a real HTTP server. On Windows (the suite under Wine) the
// install test also puts its folder in HKCU\Environment's Path and reads it back with reg.exe.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "aitk/archive/writer.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "http_server.hpp"
#include "run_cli.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using aitk::test::read_file;
using nlohmann::json;

#ifdef _WIN32
constexpr bool kWindows = true;
constexpr const char* kExeName = "aitk-env.exe";
constexpr const char* kTarget = "windows-x86_64";
constexpr const char* kExtension = ".zip";
#else
constexpr bool kWindows = false;
constexpr const char* kExeName = "aitk-env";
#if defined(__aarch64__)
constexpr const char* kTarget = "linux-aarch64";
#else
constexpr const char* kTarget = "linux-x86_64";
#endif
constexpr const char* kExtension = ".tar.gz";
#endif

// The binary as a user runs a copy of it: from `exe`, with a bare environment.
aitk::test::CliResult run_copy(const stdfs::path& exe, const std::vector<std::string>& args,
                               const stdfs::path& home, aitk::util::Environment extra = {}) {
    aitk::util::Environment env = aitk::util::current_environment();
    env["HOME"] = aitk::util::utf8_of(home);
    env["AITK_ENV_CACHE_DIR"] = aitk::util::utf8_of(home / "cache");
    env["AITK_ENV_HTTP_RETRIES"] = "0";
    env["no_proxy"] = "127.0.0.1";
    env.erase("AITK_ENV_RELEASE_URL");
    env.erase("XDG_BIN_HOME");
    for (auto& [name, value] : extra)
        env[name] = value;
    aitk::util::ProcessRequest request;
    request.argv = {aitk::util::utf8_of(exe)};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.environment = std::move(env);
    request.timeout = std::chrono::seconds(120);
    return aitk::test::cli_result_of(request);
}

// What a folder holds, by name.
std::vector<std::string> names_in(const stdfs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : stdfs::directory_iterator(dir)) {
        names.push_back(aitk::util::utf8_of(entry.path().filename()));
    }
    return names;
}

// A release folder: one archive for this host's target holding `exe_bytes`, and SHA256SUMS
// naming it with `listed_sha256` (default: its real hash).
struct ReleaseFolder {
    aitk::test::HttpServer server;
    std::string archive_name;
    std::string archive;
    std::string archive_sha256;
    std::string sums;

    ReleaseFolder(const std::string& version, const std::string& exe_bytes,
                  std::optional<std::string> listed_sha256 = std::nullopt,
                  const std::string& target = kTarget) {
        archive_name = "aitk-env-" + version + "-" + target + kExtension;
        const std::string top = "aitk-env-" + version + "-" + target + "/";
        std::vector<aitk::archive::WriteEntry> entries{
            aitk::archive::WriteEntry::file(top + "README.md", "# aitk-env\n"),
            aitk::archive::WriteEntry::file(top + kExeName, exe_bytes, 0755),
            aitk::archive::WriteEntry::file(top + "LICENSE", "MIT\n")};
        archive = aitk::archive::write_archive_to_memory(
            kWindows ? aitk::archive::Format::zip : aitk::archive::Format::tar_gz,
            std::move(entries));
        archive_sha256 = aitk::fs::sha256_hex(archive);
        sums = listed_sha256.value_or(archive_sha256) + "  " + archive_name + "\n" +
               std::string(64, '0') + "  aitk-env-" + version + "-plan9-mips" + kExtension + "\n";
        server.add_file("/rel/" + archive_name, archive, "application/octet-stream");
        server.add_file("/rel/SHA256SUMS", sums, "text/plain");
    }
    // The same release as a plain folder (a share, a USB stick).
    void write_to(const stdfs::path& dir) const {
        stdfs::create_directories(dir);
        aitk::test::write_file(dir / "SHA256SUMS", sums);
        aitk::test::write_file(dir / archive_name, archive);
    }
    std::string url() const { return server.url("/rel"); }
};

struct Installed {
    aitk::test::TempDir scratch{"self-cli"};
    stdfs::path dir = scratch.path / "bin dir";
    stdfs::path exe = dir / kExeName;
    stdfs::path home = scratch.path / "home";

    Installed() {
        stdfs::create_directories(home);
        auto r = run_copy(
            AITK_ENV_EXE,
            {"self", "install", "--dir", aitk::util::utf8_of(dir), "--no-modify-path", "--json"},
            home);
        EXPECT_EQ(r.exit_code, 0) << r.err;
    }
};

TEST(SelfCli, InstallCopiesTheRunningExecutableOnceAndSaysHowToReachIt) {
    aitk::test::TempDir scratch("self-install");
    const stdfs::path dir = scratch.path / "bin";
    auto first = run_copy(
        AITK_ENV_EXE,
        {"--json", "self", "install", "--dir", aitk::util::utf8_of(dir), "--no-modify-path"},
        scratch.path, {{"SHELL", "/usr/bin/zsh"}, {"PATH", "/usr/bin:/bin"}});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    auto report = json::parse(first.out);
    EXPECT_EQ(report["copied"], true);
    EXPECT_EQ(report["executable"], aitk::util::utf8_of(dir / kExeName));
    EXPECT_EQ(read_file(dir / kExeName), read_file(AITK_ENV_EXE));
    EXPECT_EQ(report["path"]["changed"], false);
    EXPECT_EQ(report["path"]["on_path"], false);
    if (!kWindows) {
        EXPECT_EQ(report["path"]["shell_file"], "~/.zshrc");
        EXPECT_EQ(report["path"]["line"], "export PATH=\"$HOME/bin:$PATH\"");
        EXPECT_FALSE(stdfs::exists(scratch.path / ".zshrc"));  // never edited unasked
    }

    // Again: nothing to copy; the folder holds nothing but the executable.
    auto second = run_copy(
        AITK_ENV_EXE,
        {"self", "install", "--dir", aitk::util::utf8_of(dir), "--no-modify-path", "--json"},
        scratch.path);
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_EQ(json::parse(second.out)["copied"], false);
    EXPECT_EQ(names_in(dir), std::vector<std::string>{kExeName});

    auto gone = run_copy(
        AITK_ENV_EXE,
        {"self", "uninstall", "--dir", aitk::util::utf8_of(dir), "--no-modify-path", "--json"},
        scratch.path);
    ASSERT_EQ(gone.exit_code, 0) << gone.err;
    EXPECT_EQ(json::parse(gone.out)["removed"], true);
    EXPECT_FALSE(stdfs::exists(dir / kExeName));
}

TEST(SelfCli, UpdateInstallsTheNewerReleaseItsSumsNameAndCheckOnlyReports) {
    Installed installed;
    const std::string new_bytes = read_file(AITK_ENV_EXE) + std::string(64, 'N');
    ReleaseFolder release("99.0.0", new_bytes);
    const std::string before = read_file(installed.exe);

    auto check = run_copy(installed.exe, {"self", "update", "--check", "--json"}, installed.home,
                          {{"AITK_ENV_RELEASE_URL", release.url()}});
    ASSERT_EQ(check.exit_code, 0) << check.err;
    auto report = json::parse(check.out);
    EXPECT_EQ(report["update_available"], true);
    EXPECT_EQ(report["latest"], "99.0.0");
    EXPECT_EQ(report["target"], kTarget);
    EXPECT_EQ(report["updated"], false);
    EXPECT_EQ(read_file(installed.exe), before);

    auto update =
        run_copy(installed.exe, {"self", "update", "--base-url", release.url() + "/", "--json"},
                 installed.home);
    ASSERT_EQ(update.exit_code, 0) << update.err << update.out;
    report = json::parse(update.out);
    EXPECT_EQ(report["updated"], true);
    EXPECT_EQ(report["sha256"], release.archive_sha256);
    EXPECT_EQ(read_file(installed.exe), new_bytes);
    if (!kWindows) {  // still a program the shell runs
        const auto perms = stdfs::status(installed.exe).permissions();
        EXPECT_NE(perms & stdfs::perms::owner_exec, stdfs::perms::none);
        EXPECT_NE(perms & stdfs::perms::others_exec, stdfs::perms::none);
    }
    // Nothing beside it: no download folder, no moved-aside copy (or only one Windows still
    // holds open, which the next run removes).
    for (const auto& entry : stdfs::directory_iterator(installed.dir)) {
        const std::string name = aitk::util::utf8_of(entry.path().filename());
        if (name == kExeName) continue;
        EXPECT_TRUE(kWindows && name.rfind(".aitk-env-old.", 0) == 0) << name;
    }
}

TEST(SelfCli, AHashMismatchOrAMissingTargetLeavesTheExecutableAsItWas) {
    Installed installed;
    const std::string before = read_file(installed.exe);
    ReleaseFolder tampered("99.1.0", "not aitk-env", std::string(64, 'e'));
    auto mismatch =
        run_copy(installed.exe, {"self", "update", "--base-url", tampered.url()}, installed.home);
    EXPECT_EQ(mismatch.exit_code, 1) << mismatch.out;
    EXPECT_NE(mismatch.err.find("does not match SHA256SUMS"), std::string::npos) << mismatch.err;
    EXPECT_NE(mismatch.err.find("nothing was changed"), std::string::npos) << mismatch.err;
    EXPECT_EQ(read_file(installed.exe), before);

    ReleaseFolder elsewhere("99.2.0", "other", std::nullopt, "macos-arm64");
    auto missing =
        run_copy(installed.exe, {"self", "update", "--base-url", elsewhere.url()}, installed.home);
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find(std::string("lists no archive for ") + kTarget), std::string::npos)
        << missing.err;
    EXPECT_EQ(read_file(installed.exe), before);

    aitk::test::HttpServer empty;
    auto unreachable = run_copy(installed.exe, {"self", "update", "--base-url", empty.url("/none")},
                                installed.home);
    EXPECT_EQ(unreachable.exit_code, 1);
    EXPECT_NE(unreachable.err.find("cannot read the release list"), std::string::npos)
        << unreachable.err;
    // A server that is not there at all: the advice is about release folders, not indexes.
    empty.stop();
    auto refused = run_copy(installed.exe, {"self", "update", "--base-url", empty.url("/none")},
                            installed.home);
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("AITK_ENV_RELEASE_URL"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.err.find("--index-url"), std::string::npos) << refused.err;
    EXPECT_EQ(read_file(installed.exe), before);
    EXPECT_EQ(names_in(installed.dir), std::vector<std::string>{kExeName});
}

TEST(SelfCli, AnOlderReleaseIsNeverInstalledUnlessAskedForByVersion) {
    Installed installed;
    const std::string before = read_file(installed.exe);
    ReleaseFolder older("0.0.1", "old bytes");
    auto update = run_copy(installed.exe, {"--json", "self", "update", "--base-url", older.url()},
                           installed.home);
    ASSERT_EQ(update.exit_code, 0) << update.err;
    EXPECT_EQ(json::parse(update.out)["update_available"], false);
    EXPECT_EQ(read_file(installed.exe), before);

    auto downgrade =
        run_copy(installed.exe, {"self", "update", "--base-url", older.url(), "--version", "0.0.1"},
                 installed.home);
    ASSERT_EQ(downgrade.exit_code, 0) << downgrade.err;
    EXPECT_NE(downgrade.out.find("to 0.0.1"), std::string::npos) << downgrade.out;
    EXPECT_EQ(read_file(installed.exe), "old bytes");
}

TEST(SelfCli, AFolderServesAsTheReleaseAddress) {
    Installed installed;
    ReleaseFolder release("99.3.0", "bytes of 99.3.0");
    release.write_to(installed.scratch.path / "release share");
    auto update = run_copy(installed.exe,
                           {"self", "update", "--base-url",
                            aitk::util::utf8_of(installed.scratch.path / "release share")},
                           installed.home);
    ASSERT_EQ(update.exit_code, 0) << update.err;
    EXPECT_EQ(read_file(installed.exe), "bytes of 99.3.0");
}

#ifdef _WIN32
// reg.exe's view of the user's Path value ("" when it has none).
std::string registry_user_path() {
    aitk::util::ProcessRequest request;
    request.argv = {"reg", "query", "HKCU\\Environment", "/v", "Path"};
    request.timeout = std::chrono::seconds(60);
    auto result = aitk::util::run_process(request);
    return result ? result->out : std::string();
}

// The one test that edits HKCU\Environment (the Wine prefix of the suite is its own): the
// folder goes in and comes out again, and what was there before stays.
TEST(SelfCli, InstallPutsTheFolderInTheUsersRegistryPathAndUninstallTakesItOut) {
    aitk::test::TempDir scratch("self-registry");
    const stdfs::path dir = scratch.path / "aitk bin";
    const std::string dir_text = aitk::util::utf8_of(dir);
    auto install =
        run_copy(AITK_ENV_EXE, {"--json", "self", "install", "--dir", dir_text}, scratch.path);
    ASSERT_EQ(install.exit_code, 0) << install.err;
    auto report = json::parse(install.out);
    EXPECT_EQ(report["path"]["changed"], true);
    EXPECT_EQ(report["path"]["store"], "HKCU\\Environment\\Path");
    EXPECT_NE(registry_user_path().find(dir_text), std::string::npos) << registry_user_path();

    auto again =
        run_copy(AITK_ENV_EXE, {"--json", "self", "install", "--dir", dir_text}, scratch.path);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(json::parse(again.out)["path"]["changed"], false);

    auto uninstall =
        run_copy(AITK_ENV_EXE, {"--json", "self", "uninstall", "--dir", dir_text}, scratch.path);
    ASSERT_EQ(uninstall.exit_code, 0) << uninstall.err;
    EXPECT_EQ(json::parse(uninstall.out)["path"]["changed"], true);
    EXPECT_EQ(registry_user_path().find(dir_text), std::string::npos) << registry_user_path();
    EXPECT_FALSE(stdfs::exists(dir));
}
#endif

}  // namespace AITK_FILE_LOCAL
