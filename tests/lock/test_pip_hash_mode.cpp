// The `pip:` list of a lockfile, handed to real pip (23.2) in hash-checking mode the way conda
// does (the items become a requirements file), must make pip pick exactly the locked files:
// from two indexes, with a bait of the same version and file name on the other index, a newer
// build of the same version, newer versions, a find-links file and a direct reference.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/subprocess.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "wheel_builder.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

constexpr const char* pip_python = "/root/.pyenv/versions/3.12.1/bin/python";

test::WheelSpec wheel(std::string name, std::string version,
                      std::vector<std::string> requires_dist = {}, std::string summary = {}) {
    test::WheelSpec spec;
    spec.name = std::move(name);
    spec.version = std::move(version);
    spec.requires_dist = std::move(requires_dist);
    spec.summary = std::move(summary);
    return spec;
}

LockedPackage locked(const std::string& name, const std::string& version, const std::string& index,
                     const std::string& url, const test::BuiltArtifact& file) {
    LockedPackage p;
    p.name = name;
    p.version = version;
    p.index = index;
    p.wheel = LockedFile{file.filename, url, file.sha256, file.size};
    return p;
}

struct PipRun {
    util::ProcessResult result;
    nlohmann::json report;
};

PipRun pip_dry_run(const stdfs::path& requirements) {
    util::ProcessRequest request;
    request.argv = {pip_python,
                    "-m",
                    "pip",
                    "install",
                    "--dry-run",
                    "--ignore-installed",
                    "--report",
                    "-",
                    "-q",
                    "--require-hashes",
                    "--only-binary=:all:",
                    "--no-cache-dir",
                    "--isolated",
                    "--disable-pip-version-check",
                    "--no-input",
                    "-r",
                    requirements.string()};
    for (const char* proxy :
         {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"}) {
        request.environment_changes[proxy] = std::nullopt;
    }
    request.timeout = std::chrono::seconds(120);
    auto result = util::run_process(request);
    if (!result) throw std::runtime_error(result.error().message);
    PipRun run{std::move(*result), nullptr};
    if (run.result.succeeded()) run.report = nlohmann::json::parse(run.result.out);
    return run;
}

class PipHashMode : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(pip_python)) GTEST_SKIP() << "no " << pip_python;
        const stdfs::path root = tmp_.path() / "mirror";
        test::MirrorBuilder mirror(root);
        mirror.add_index("simple");
        mirror.add_index("whl/cu130", test::IndexOptions::pytorch());
        const auto filelock_old = mirror.add_wheel("simple", wheel("filelock", "3.0.0"));
        mirror.add_wheel("simple", wheel("filelock", "3.1.0"));
        const auto app = mirror.add_wheel(
            "simple", wheel("app", "1.0", {"filelock>=3.0", "torch", "flatpkg", "directpkg"}));
        // The same file name and version on the main index, with other bytes.
        mirror.add_wheel("simple", wheel("torch", "2.9.0+cu130", {"filelock"}, "bait"));
        const auto torch =
            mirror.add_wheel("whl/cu130", wheel("torch", "2.9.0+cu130", {"filelock"}));
        auto newer_build = wheel("torch", "2.9.0+cu130", {"filelock"});
        newer_build.build_tag = "1";  // pip prefers it when hashes do not decide
        mirror.add_wheel("whl/cu130", newer_build);
        mirror.add_wheel("whl/cu130", wheel("torch", "2.10.0+cu130", {"filelock"}));
        mirror.write();
        const auto flat = test::build_wheel(wheel("flatpkg", "1.0"), root / "flat");
        test::build_wheel(wheel("flatpkg", "2.0"), root / "flat");
        const auto direct = test::build_wheel(wheel("directpkg", "0.1"), root / "direct");
        server_.serve_directory(root, "/");

        lock_.name = "pip-check";
        lock_.generator = "aitk-env test";
        lock_.input_hash = "sha256:" + std::string(64, '0');
        lock_.indexes = {{"primary", server_.url("/simple/"), IndexKind::simple},
                         {"torch cu130", server_.url("/whl/cu130/"), IndexKind::torch_backend},
                         {"find-links", server_.url("/flat/"), IndexKind::find_links}};
        lock_.default_target = "linux-x86_64-cu130";
        LockedTarget target;
        target.id = "linux-x86_64-cu130";
        target.os = "linux";
        target.arch = "x86_64";
        target.backend = "cu130";
        target.python = "3.12.1";
        auto app_package = locked("app", "1.0", "primary", server_.url(app.url_path), app.artifact);
        app_package.requested = true;
        app_package.dependencies = {"directpkg", "filelock", "flatpkg", "torch"};
        target.packages = {
            app_package,
            locked("directpkg", "0.1", "", server_.url("/direct/" + direct.filename), direct),
            locked("filelock", "3.0.0", "primary", server_.url(filelock_old.url_path),
                   filelock_old.artifact),
            locked("flatpkg", "1.0", "find-links", server_.url("/flat/" + flat.filename), flat),
            locked("torch", "2.9.0+cu130", "torch cu130", server_.url(torch.href), torch.artifact)};
        target.packages.back().dependencies = {"filelock"};
        lock_.targets = {target};
    }

    // The `pip:` items of the written lockfile, as a requirements file.
    stdfs::path requirements_file(const Lockfile& lock) {
        const YAML::Node doc = YAML::Load(write_lockfile(lock));
        const YAML::Node pip = doc["dependencies"][2]["pip"];
        std::vector<std::string> items;
        for (const auto& item : pip)
            items.push_back(item.as<std::string>());
        EXPECT_EQ(items, pip_section(lock, lock.targets[0]).lines);
        const stdfs::path path = tmp_.path() / "requirements.txt";
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        for (const auto& item : items)
            out << item << '\n';
        return path;
    }

    fs::TempDir tmp_ = fs::TempDir::create("aitk-lock-pip");
    test::HttpServer server_;
    Lockfile lock_;
};

TEST_F(PipHashMode, PipSelectsExactlyTheLockedFiles) {
    const PipRun run = pip_dry_run(requirements_file(lock_));
    ASSERT_TRUE(run.result.succeeded()) << run.result.describe() << "\n" << run.result.err;

    std::map<std::string, std::pair<std::string, std::string>> chosen;  // name -> url, sha256
    for (const auto& item : run.report.at("install")) {
        chosen[item.at("metadata").at("name").get<std::string>()] = {
            item.at("download_info").at("url").get<std::string>(), item.at("download_info")
                                                                       .at("archive_info")
                                                                       .at("hashes")
                                                                       .at("sha256")
                                                                       .get<std::string>()};
    }
    std::map<std::string, std::pair<std::string, std::string>> expected;
    for (const auto& package : lock_.targets[0].packages) {
        expected[package.name] = {package.wheel->url, package.wheel->sha256};
    }
    EXPECT_EQ(chosen, expected);
}

TEST_F(PipHashMode, PipRefusesAFileWhoseHashIsNotLocked) {
    Lockfile tampered = lock_;
    tampered.targets[0].packages.back().wheel->sha256 = std::string(64, 'e');  // torch
    const PipRun run = pip_dry_run(requirements_file(tampered));
    EXPECT_FALSE(run.result.succeeded());
    EXPECT_NE(run.result.err.find("DO NOT MATCH THE HASHES"), std::string::npos) << run.result.err;
}

TEST_F(PipHashMode, PipRefusesWhenADependencyIsMissingFromTheList) {
    Lockfile partial = lock_;
    auto& packages = partial.targets[0].packages;
    packages.erase(packages.begin() + 2);  // filelock, which app and torch need
    const PipRun run = pip_dry_run(requirements_file(partial));
    EXPECT_FALSE(run.result.succeeded());
    EXPECT_NE(run.result.err.find("In --require-hashes mode, all requirements must have their "
                                  "versions pinned with =="),
              std::string::npos)
        << run.result.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
