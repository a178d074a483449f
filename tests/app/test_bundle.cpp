// Offline bundles end to end: a lock of the torch-like mirror on 127.0.0.1 (Linux and Windows
// targets), bundled with interpreter archives the test makes and serves, then installed with
// the server stopped into a fresh prefix from a fresh cache with a real CPython 3.12. Damaged,
// truncated and inconsistent bundles are refused before anything is installed or cached.
#include "aitk/app/bundle.hpp"
#include "app_calls.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "../index/index_test_support.hpp"
#include "aitk/app/prefix.hpp"
#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/python/standalone_install.hpp"
#include "aitk/resolve/resolver.hpp"
#include "test_machine.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using archive::WriteEntry;

const stdfs::path python312 = "/root/.pyenv/versions/3.12.1/bin/python3.12";

// A python-build-standalone-shaped archive: python/bin/python3 runs this machine's 3.12.1.
std::string interpreter_archive(const std::string& os) {
    const std::string exe = os == "windows" ? "python/python.exe" : "python/bin/python3";
    return archive::write_archive_to_memory(
        archive::Format::tar_gz,
        {WriteEntry::file(exe, "#!/bin/sh\nexec " + python312.string() + " \"$@\"\n", 0755)});
}

nlohmann::json manifest_of(const stdfs::path& bundle) {
    auto text = archive::read_member(bundle, "manifest.json");
    if (!text) return nullptr;
    return nlohmann::json::parse(*text);
}

// Every member of `bundle` (in order), edited by `edit`, written to `out` in that order.
void rewrite_bundle(const stdfs::path& bundle, const stdfs::path& out,
                    const std::function<void(std::vector<WriteEntry>&)>& edit) {
    std::vector<WriteEntry> entries;
    auto reader = archive::Reader::open(bundle);
    while (const auto* e = reader.next()) {
        std::string path = e->path;
        entries.push_back(WriteEntry::file(path, reader.read_all(1ull << 30)));
    }
    edit(entries);
    archive::WriteOptions options;
    options.sort = false;
    archive::write_archive(out, archive::Format::tar_zst, std::move(entries), options);
}

WriteEntry& entry_named(std::vector<WriteEntry>& entries, const std::string& needle) {
    for (auto& e : entries)
        if (e.path.find(needle) != std::string::npos) return e;
    throw std::runtime_error("no member " + needle);
}

class BundleTest : public test::TorchMirrorTest {
  protected:
    void SetUp() override {
        if (!stdfs::exists(python312)) GTEST_SKIP() << "no " << python312;
        TorchMirrorTest::SetUp();
        for (const std::string os : {"linux", "windows"}) {
            std::string bytes = interpreter_archive(os);
            std::string file = "cpython-3.12.14+20260814-x86_64-" + os + "-install_only.tar.gz";
            server.add_file("/python/" + file, bytes);  // the server sees decoded paths
            builds.push_back({"cpython", "3.12.14", "20260814", os, "x86_64",
                              os == "linux" ? "gnu" : "none",
                              server.url("/python/cpython-3.12.14%2B20260814-x86_64-" + os +
                                         "-install_only.tar.gz"),
                              fs::sha256_hex(bytes)});
        }
        fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\n");
        test::LockCall lock;
        lock.input.requirements = "requirements.txt";
        lock.targets = {"linux-x86_64-cpu", "linux-x86_64-cu130", "windows-x86_64-cu130"};
        lock.python = "3.12.1";
        lock.output = work.path() / "env.lock.yml";
        lock.indexes.index_url = server.url("/simple/");
        lock.indexes.torch_index_url = server.url("/whl");
        lock.cache_root = work.path() / "lock-cache";
        lock.cwd = work.path();
        lockfile = run_lock(lock).path;
    }

    test::BundleCall bundle_request(const std::string& out, const std::string& cache) {
        test::BundleCall r;
        r.lockfile = lockfile;
        r.output = work.path() / out;
        r.python_builds = &builds;
        r.cache_root = work.path() / cache;
        r.cwd = work.path();
        return r;
    }

    test::SetupCall setup_request(const std::string& bundle, const std::string& cache) {
        test::SetupCall r;
        r.bundle = work.path() / bundle;
        r.prefix = work.path() / "prefix";
        r.cache_root = work.path() / cache;
        r.cwd = work.path();
        r.environment = {{"PATH", python312.parent_path().string() + ":/usr/bin:/bin"},
                         {"HOME", work.path().string()},
                         {"PYENV_ROOT", "/nonexistent"}};
        r.machine = test::cpu_machine();
        return r;
    }

    // The util::Error message of `setup --bundle`, which must fail.
    std::string refusal(const std::string& bundle) {
        try {
            run_setup(setup_request(bundle, "fresh-cache"));
        } catch (const util::Error& e) {
            EXPECT_EQ(e.code(), util::ExitCode::failure) << e.what();
            return e.what();
        }
        ADD_FAILURE() << "setup --bundle " << bundle << " was not refused";
        return {};
    }

    // Nothing of a refused bundle reached the prefix or the cache.
    void expect_untouched() {
        EXPECT_FALSE(stdfs::exists(work.path() / "prefix"));
        cache::Cache cache(work.path() / "fresh-cache");
        EXPECT_FALSE(stdfs::exists(cache.base() / "artifacts"));
    }

    test::ClearProxyEnvironment no_proxy;
    fs::TempDir work = fs::TempDir::create("aitk-bundle");
    std::vector<python::StandaloneBuild> builds;
    stdfs::path lockfile;
};

TEST_F(BundleTest, ABundleInstallsWithTheServerStoppedIntoAFreshCache) {
    auto bundled = write_bundle(bundle_request("env.tar.zst", "cache"));
    EXPECT_EQ(bundled.targets, (std::vector<std::string>{"linux-x86_64-cpu", "linux-x86_64-cu130",
                                                         "windows-x86_64-cu130"}));
    EXPECT_GT(bundled.downloaded, 0u);
    EXPECT_TRUE(bundled.notes.empty()) << bundled.notes.front();

    auto manifest = manifest_of(work.path() / "env.tar.zst");
    ASSERT_TRUE(manifest.is_object());
    EXPECT_EQ(manifest["format"], "aitk-env-bundle");
    EXPECT_EQ(manifest["members"][0]["path"], "lock.yml");
    EXPECT_EQ(manifest["members"][0]["sha256"], fs::sha256_file_hex(lockfile));
    std::size_t pythons = 0;
    for (const auto& m : manifest["members"]) {
        if (m["kind"] == "python") ++pythons;
        if (m["kind"] == "wheel") {
            EXPECT_EQ(m["path"], "artifacts/" + m["sha256"].get<std::string>() + "/" +
                                     stdfs::path(m["path"].get<std::string>()).filename().string());
        }
    }
    EXPECT_EQ(pythons, 2u);  // one per OS: both Linux targets share one archive
    for (const auto& t : manifest["targets"])
        EXPECT_TRUE(t["interpreter"].is_string()) << t;

    server.stop();
    auto outcome = run_setup(setup_request("env.tar.zst", "fresh-cache"));
    EXPECT_EQ(outcome.target, "linux-x86_64-cpu");
    EXPECT_EQ(outcome.smoke, "torch 2.9.0+cpu None None");
    EXPECT_EQ(outcome.sync.downloaded, 0u);
    EXPECT_EQ(outcome.lockfile, work.path() / "env.tar.zst");
    auto layout = open_prefix(outcome.prefix, false);
    auto report = verify_prefix(layout, std::nullopt);
    EXPECT_TRUE(report.clean()) << report.text();

    // The interpreter archive is in the new cache: a machine without Python 3.12 installs it
    // from there, offline.
    cache::Cache cache(work.path() / "fresh-cache");
    python::StandaloneInstallRequest install;
    install.version = "3.12";
    install.platform = {"linux", "x86_64", "gnu"};
    install.offline = true;
    install.probe = false;
    net::Downloader downloader;
    auto installed = python::install_standalone(install, builds, cache, downloader);
    EXPECT_TRUE(stdfs::exists(installed.interpreter.executable));
    EXPECT_FALSE(installed.downloaded);

    // Installing the same bundle again changes nothing.
    auto again = run_setup(setup_request("env.tar.zst", "fresh-cache"));
    EXPECT_TRUE(again.sync.plan.empty());
}

TEST_F(BundleTest, TheSameLockGivesTheSameBytesFromAWarmOrAColdCache) {
    auto first = write_bundle(bundle_request("a.tar.zst", "cache"));
    auto warm = write_bundle(bundle_request("b.tar.zst", "cache"));
    EXPECT_EQ(warm.downloaded, 0u);
    auto cold = write_bundle(bundle_request("c.tar.zst", "cold-cache"));
    EXPECT_GT(cold.downloaded, 0u);
    EXPECT_EQ(first.sha256, warm.sha256);
    EXPECT_EQ(first.sha256, cold.sha256);
    EXPECT_EQ(fs::read_file(work.path() / "a.tar.zst"), fs::read_file(work.path() / "c.tar.zst"));
    EXPECT_EQ(first.sha256, fs::sha256_file_hex(work.path() / "a.tar.zst"));
    // Nothing in the manifest depends on when or where it was made.
    auto manifest = manifest_of(work.path() / "a.tar.zst");
    std::vector<std::string> keys;
    for (const auto& [key, value] : manifest.items())
        keys.push_back(key);
    EXPECT_EQ(keys,
              (std::vector<std::string>{"format", "format_version", "lock", "members", "targets"}));
    EXPECT_EQ(manifest["members"][1].size(), 5u) << manifest["members"][1];
}

TEST_F(BundleTest, AChangedMemberIsRefusedNamingItAndBothDigests) {
    write_bundle(bundle_request("env.tar.zst", "cache"));
    std::string path;
    std::string expected;
    rewrite_bundle(work.path() / "env.tar.zst", work.path() / "bad.tar.zst", [&](auto& entries) {
        auto& wheel = entry_named(entries, "requests-");
        path = wheel.path;
        expected = fs::sha256_hex(wheel.content);
        wheel.content[wheel.content.size() / 2] ^= 0x20;
    });
    auto message = refusal("bad.tar.zst");
    EXPECT_NE(message.find("member " + path + " is damaged"), std::string::npos) << message;
    EXPECT_NE(message.find("expected " + expected), std::string::npos) << message;
    expect_untouched();
}

TEST_F(BundleTest, MembersTheManifestDoesNotListOrLacksAreRefused) {
    write_bundle(bundle_request("env.tar.zst", "cache"));
    rewrite_bundle(work.path() / "env.tar.zst", work.path() / "extra.tar.zst", [](auto& entries) {
        entries.push_back(WriteEntry::file("artifacts/evil.pth", "import os\n"));
    });
    auto extra = refusal("extra.tar.zst");
    EXPECT_NE(extra.find("it holds artifacts/evil.pth, which manifest.json does not list"),
              std::string::npos)
        << extra;

    std::string dropped;
    rewrite_bundle(work.path() / "env.tar.zst", work.path() / "short.tar.zst", [&](auto& entries) {
        auto& wheel = entry_named(entries, "idna-");
        dropped = wheel.path;
        entries.erase(entries.begin() + (&wheel - entries.data()));
    });
    auto missing = refusal("short.tar.zst");
    EXPECT_NE(missing.find("manifest.json lists " + dropped + ", but the bundle does not hold it"),
              std::string::npos)
        << missing;

    // A member swapped together with its manifest entry still has to be what the lock lists.
    rewrite_bundle(work.path() / "env.tar.zst", work.path() / "swapped.tar.zst", [](auto& entries) {
        auto& wheel = entry_named(entries, "requests-");
        std::string old_sha = fs::sha256_hex(wheel.content);
        wheel.content += "trailing";
        std::string new_sha = fs::sha256_hex(wheel.content);
        auto replace_all = [](std::string& s, const std::string& a, const std::string& b) {
            for (auto at = s.find(a); at != std::string::npos; at = s.find(a, at + b.size()))
                s.replace(at, a.size(), b);
        };
        replace_all(wheel.path, old_sha, new_sha);
        auto& manifest = entry_named(entries, "manifest.json");
        auto json = nlohmann::json::parse(manifest.content);
        for (auto& m : json["members"]) {
            if (m["sha256"] == old_sha) {
                m["sha256"] = new_sha;
                m["path"] = wheel.path;
                m["size"] = wheel.content.size();
            }
        }
        manifest.content = json.dump(1);
    });
    auto swapped = refusal("swapped.tar.zst");
    EXPECT_NE(swapped.find("is not a file lock.yml lists"), std::string::npos) << swapped;
    expect_untouched();
}

TEST_F(BundleTest, ATruncatedBundleIsAClearError) {
    write_bundle(bundle_request("env.tar.zst", "cache"));
    std::string bytes = fs::read_file(work.path() / "env.tar.zst");
    fs::write_file_atomic(work.path() / "cut.tar.zst", bytes.substr(0, bytes.size() * 2 / 3));
    auto message = refusal("cut.tar.zst");
    EXPECT_NE(message.find("bundle " + (work.path() / "cut.tar.zst").string() +
                           ": it is damaged or truncated"),
              std::string::npos)
        << message;
    expect_untouched();

    fs::write_file_atomic(work.path() / "not-a-bundle.tar.zst", "hello");
    EXPECT_NE(refusal("not-a-bundle.tar.zst").find("damaged or truncated"), std::string::npos);
}

TEST_F(BundleTest, ATargetSubsetCarriesOnlyThatTargetEvenForWindowsOnLinux) {
    auto request = bundle_request("win.tar.zst", "cache");
    request.targets = {"windows-x86_64-cu130"};
    write_bundle(request);
    auto manifest = manifest_of(work.path() / "win.tar.zst");
    ASSERT_EQ(manifest["targets"].size(), 1u);
    EXPECT_EQ(manifest["targets"][0]["id"], "windows-x86_64-cu130");
    bool windows_torch = false;
    for (const auto& m : manifest["members"]) {
        if (m["kind"] == "lock") continue;
        EXPECT_EQ(m["targets"], nlohmann::json::array({"windows-x86_64-cu130"})) << m;
        EXPECT_EQ(m["path"].get<std::string>().find("manylinux"), std::string::npos) << m;
        windows_torch |=
            m["path"].get<std::string>().find("torch-2.9.0+cu130") != std::string::npos &&
            m["path"].get<std::string>().find("win_amd64") != std::string::npos;
    }
    EXPECT_TRUE(windows_torch) << manifest.dump(1);

    // This Linux machine finds no target of its own in it (exit 3), and installs nothing.
    server.stop();
    EXPECT_THROW(run_setup(setup_request("win.tar.zst", "fresh-cache")), resolve::Unsatisfiable);
    EXPECT_FALSE(stdfs::exists(work.path() / "prefix"));

    request.targets = {"macos-arm64-mps"};
    EXPECT_THROW(write_bundle(request), util::InputError);
}

TEST_F(BundleTest, WithoutPythonTheManifestSaysSo) {
    auto request = bundle_request("nopy.tar.zst", "cache");
    request.include_python = false;
    auto bundled = write_bundle(request);
    ASSERT_EQ(bundled.notes.size(), 3u);
    EXPECT_NE(bundled.notes[0].find("no CPython in the bundle (left out (--no-python))"),
              std::string::npos)
        << bundled.notes[0];
    auto manifest = manifest_of(work.path() / "nopy.tar.zst");
    for (const auto& t : manifest["targets"]) {
        EXPECT_TRUE(t["interpreter"].is_null());
        EXPECT_EQ(t["interpreter_note"], "left out (--no-python)");
    }
    for (const auto& m : manifest["members"])
        EXPECT_NE(m["kind"], "python");

    // An OS the table has no build for is named in the manifest as well.
    builds.erase(std::remove_if(builds.begin(), builds.end(),
                                [](const auto& b) { return b.os == "windows"; }),
                 builds.end());
    auto partial = write_bundle(bundle_request("partial.tar.zst", "cache"));
    auto json = manifest_of(work.path() / "partial.tar.zst");
    EXPECT_TRUE(json["targets"][0]["interpreter"].is_string());
    EXPECT_TRUE(json["targets"][2]["interpreter"].is_null());
    EXPECT_NE(json["targets"][2]["interpreter_note"].get<std::string>().find(
                  "no standalone CPython build is known for windows-x86_64"),
              std::string::npos)
        << json["targets"][2];
}

TEST(BundleMemberKinds, EveryKindRoundTripsThroughItsWord) {
    for (auto kind : {BundleMemberKind::lock, BundleMemberKind::wheel, BundleMemberKind::source,
                      BundleMemberKind::python}) {
        EXPECT_EQ(parse_bundle_member_kind(to_string(kind)), kind);
    }
    EXPECT_EQ(to_string(BundleMemberKind::source), "source");
    EXPECT_FALSE(parse_bundle_member_kind("sdist"));
    EXPECT_FALSE(parse_bundle_member_kind("Wheel"));
    EXPECT_FALSE(parse_bundle_member_kind(""));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
