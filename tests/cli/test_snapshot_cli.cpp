// `aitk-env snapshot` through the real binary, on prefixes made by real pip (CPython 3.11.7's
// `python -m venv`, then `pip install` from a mirror served on 127.0.0.1) and by aitk-env setup.
// The round trip: snapshot of a pip prefix → `setup -l` into a fresh prefix → the same
// distributions with the same files. Differences allowed (and skipped by the comparison):
// bytecode (pip compiles .pyc, setup does not by default), INSTALLER ("pip" / "aitk-env"),
// REQUESTED and direct_url.json (pip's records of how it was asked), RECORD itself, and pip
// and setuptools (venv seeds them; snapshot leaves them out as `pip freeze` does).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/subprocess.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const stdfs::path python311 = "/root/.pyenv/versions/3.11.7/bin/python";

std::string file_url(const stdfs::path& p) {
    return "file://" + p.string();
}

WheelSpec spec(const std::string& name, const std::string& version,
               const std::function<void(WheelSpec&)>& more = {}) {
    WheelSpec s;
    s.name = name;
    s.version = version;
    if (more) more(s);
    return s;
}

class SnapshotCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!stdfs::exists(python311)) return;
        mirror_dir = new fs::TempDir(fs::TempDir::create("aitk-snapshot-mirror"));
        auto& m = *(mirror = new MirrorBuilder(mirror_dir->path()));
        m.add_wheel(
            "simple", spec("alpha", "1.0", [](WheelSpec& w) {
                w.requires_dist = {"beta>=1", "gamma; extra == 'fast'", "epsilon; extra == 'slow'"};
                w.provides_extra = {"fast", "slow"};
            }));
        m.add_wheel("simple", spec("beta", "1.0"));
        m.add_wheel("simple", spec("beta", "2.0"));
        // Two files of one version: only the build tag tells them apart.
        m.add_wheel("simple", spec("gamma", "1.0"));
        m.add_wheel("simple", spec("gamma", "1.0", [](WheelSpec& w) { w.build_tag = "1"; }));
        m.add_wheel("simple", spec("delta", "1.0", [](WheelSpec& w) {
                        w.tag = "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64";
                        w.native_libraries = {"delta/_native.so"};
                    }));
        m.add_wheel("simple", spec("delta", "1.0"));
        m.add_wheel("simple", spec("epsilon", "1.0"));
        m.add_index("other");
        m.add_wheel("other", spec("zeta", "1.0"));
        m.write();
        // A wheel on no index: installed by pip from its path.
        local_wheel = new BuiltArtifact(
            build_wheel(spec("localpkg", "0.3", [](WheelSpec& w) { w.requires_dist = {"beta"}; }),
                        mirror_dir->path() / "local"));
    }
    static void TearDownTestSuite() {
        delete local_wheel;
        delete mirror;
        delete mirror_dir;
    }

    void SetUp() override {
        if (!stdfs::exists(python311)) GTEST_SKIP() << "no CPython 3.11.7";
        server.serve_directory(mirror_dir->path());
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }
    std::string index(const std::string& name = "simple") const {
        return server.url("/" + name + "/");
    }

    CliResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {"--cache-dir", path("cache"), "--no-progress"});
        return run_cli(
            args, "",
            {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY", "-u AITK_ENV_TORCH_BACKEND",
             "-u AITK_ENV_INDEX_URL", "-u AITK_ENV_EXTRA_INDEX_URL", "-u AITK_ENV_FIND_LINKS",
             "PATH=/root/.pyenv/versions/3.11.7/bin:/usr/bin:/bin", "PYENV_ROOT=/nonexistent",
             "AITK_ENV_NO_GPU=1", "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
             "AITK_ENV_NVIDIA_SMI=/nonexistent"});
    }

    // `python -m venv NAME; NAME/bin/pip install ARGS…` without this machine's pip settings.
    // Unseeded: a venv without pip and setuptools (faster), that the base interpreter's pip
    // installs into (`pip --python`).
    void pip_prefix(const std::string& name, std::vector<std::string> args, bool seeded = true) {
        util::ProcessRequest venv;
        venv.argv = {python311.string(), "-m", "venv", path(name)};
        if (!seeded) venv.argv.push_back("--without-pip");
        auto made = util::run_process(venv);
        ASSERT_TRUE(made && made->succeeded()) << (made ? made->err : "cannot start python");
        util::ProcessRequest pip;
        if (seeded) {
            pip.argv = {path(name) + "/bin/python", "-m", "pip"};
        } else {
            pip.argv = {python311.string(), "-m", "pip", "--python", path(name) + "/bin/python"};
        }
        pip.argv.insert(pip.argv.end(),
                        {"install", "--no-cache-dir", "--disable-pip-version-check", "--no-input"});
        pip.argv.insert(pip.argv.end(), args.begin(), args.end());
        pip.environment = util::Environment{
            {"PATH", "/usr/bin:/bin"}, {"HOME", path("home")}, {"PIP_CONFIG_FILE", "/dev/null"}};
        pip.timeout = std::chrono::seconds(120);
        auto installed = util::run_process(pip);
        ASSERT_TRUE(installed && installed->succeeded())
            << (installed ? installed->out + installed->err : "cannot start pip");
    }

    lock::Lockfile read_lock(const std::string& name) {
        auto parsed = lock::parse_lockfile(fs::read_file(path(name)), path(name));
        EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().to_error().what());
        return parsed ? *parsed : lock::Lockfile{};
    }

    const PublishedFile& published(const std::string& filename) const {
        for (const auto& f : mirror->files()) {
            if (f.artifact.filename == filename) return f;
        }
        throw std::runtime_error("not published: " + filename);
    }

    static inline fs::TempDir* mirror_dir = nullptr;
    static inline MirrorBuilder* mirror = nullptr;
    static inline BuiltArtifact* local_wheel = nullptr;
    HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-snapshot-cli");
};

// name → (version, {path → hash}) without what installers legitimately write differently.
using Contents = std::map<std::string, std::pair<std::string, std::map<std::string, std::string>>>;

Contents contents(const stdfs::path& prefix) {
    auto layout = install::PrefixLayout::read(prefix, false);
    EXPECT_TRUE(layout.has_value()) << prefix;
    Contents out;
    if (!layout) return out;
    for (const auto& d : install::installed_distributions(*layout)) {
        if (d.name == "pip" || d.name == "setuptools") continue;
        auto& [version, files] = out[d.name];
        version = d.version;
        for (const auto& f : d.record) {
            if (f.path.ends_with(".pyc") || f.path.find("__pycache__/") != std::string::npos) {
                continue;
            }
            bool meta = f.path.find(".dist-info/") != std::string::npos;
            if (meta && (f.path.ends_with("/INSTALLER") || f.path.ends_with("/REQUESTED") ||
                         f.path.ends_with("/direct_url.json") || f.path.ends_with("/RECORD"))) {
                continue;
            }
            files[f.path] = f.hash;
        }
    }
    return out;
}

TEST_F(SnapshotCli, PipPrefixRoundTripsThroughSetup) {
    pip_prefix("p", {"--index-url", index(), "alpha[fast]", "delta"});
    auto snap =
        run({"--index-url", index(), "snapshot", "-p", path("p"), "-o", path("p.lock.yml")});
    ASSERT_EQ(snap.exit_code, 0) << snap.err;
    EXPECT_EQ(snap.out, "");

    auto lockfile = read_lock("p.lock.yml");
    ASSERT_EQ(lockfile.targets.size(), 1u);
    const auto& target = lockfile.targets.front();
    EXPECT_EQ(target.id, "linux-x86_64-cpu");
    EXPECT_EQ(target.python, "3.11.7");
    EXPECT_EQ(target.marker_environment.at("python_full_version"), "3.11.7");
    ASSERT_EQ(lockfile.indexes.size(), 1u);
    EXPECT_EQ(lockfile.indexes[0],
              (lock::LockedIndex{"primary", index(), lock::IndexKind::simple}));

    std::vector<std::string> names;
    for (const auto& p : target.packages)
        names.push_back(p.name);
    // pip and setuptools (seeded by venv) are left out, as pip freeze does.
    EXPECT_EQ(names, (std::vector<std::string>{"alpha", "beta", "delta", "gamma"}));
    const auto* alpha = target.find("alpha");
    EXPECT_TRUE(alpha->requested);
    EXPECT_EQ(alpha->extras, std::vector<std::string>{"fast"});
    EXPECT_EQ(alpha->dependencies, (std::vector<std::string>{"beta", "gamma"}));
    EXPECT_EQ(alpha->index, "primary");
    EXPECT_FALSE(target.find("beta")->requested);
    EXPECT_EQ(target.find("beta")->version, "2.0");
    // Exactly the files pip took: the build-tagged gamma, the platform wheel of delta.
    for (const auto& [name, filename] : std::vector<std::pair<std::string, std::string>>{
             {"gamma", "gamma-1.0-1-py3-none-any.whl"},
             {"delta", "delta-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"},
             {"beta", "beta-2.0-py3-none-any.whl"}}) {
        const auto& wheel = target.find(name)->wheel;
        ASSERT_TRUE(wheel) << name;
        const auto& file = published(filename);
        EXPECT_EQ(wheel->filename, filename);
        EXPECT_EQ(wheel->url, server.url(file.url_path));
        EXPECT_EQ(wheel->sha256, file.artifact.sha256);
        EXPECT_EQ(wheel->size, file.artifact.size);
    }
    EXPECT_NE(snap.err.find("gamma 1.0: index (" +
                            server.url(published("gamma-1.0-1-py3-none-any.whl").url_path) + ")\n"),
              std::string::npos)
        << snap.err;
    EXPECT_NE(snap.err.find("left out: pip 23.2.1 (installer tooling, as pip freeze leaves out; "
                            "--all keeps it)\n"),
              std::string::npos)
        << snap.err;

    auto setup =
        run({"setup", "-l", path("p.lock.yml"), "-p", path("q"), "--python", python311.string()});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    auto original = contents(path("p"));
    auto restored = contents(path("q"));
    EXPECT_EQ(original.size(), 4u);
    EXPECT_EQ(restored, original);
}

TEST_F(SnapshotCli, StdoutGetsTheLockWithoutOutputAndAllKeepsInstallerTools) {
    pip_prefix("p", {"--index-url", index(), "beta==1.0"});
    auto snap = run({"--index-url", index(), "snapshot", "-p", path("p")});
    // setuptools and pip are on no index of the test mirror, so --all makes them unlockable.
    ASSERT_EQ(snap.exit_code, 0) << snap.err;
    auto parsed = lock::parse_lockfile(snap.out, "stdout");
    ASSERT_TRUE(parsed);
    ASSERT_EQ(parsed->targets.front().packages.size(), 1u);
    EXPECT_EQ(parsed->targets.front().packages[0].version, "1.0");

    auto all = run({"--index-url", index(), "snapshot", "-p", path("p"), "--all"});
    EXPECT_EQ(all.exit_code, 1);
    EXPECT_NE(all.err.find("  pip 23.2.1 (tags: py3-none-any): no such file on " + index() +
                           " nor in the cache"),
              std::string::npos)
        << all.err;
}

TEST_F(SnapshotCli, SetupPrefixSnapshotEqualsItsLock) {
    fs::write_file_atomic(work.path() / "reqs.txt", "alpha[slow]\ngamma==1.0\n");
    auto locked = run({"--index-url", index(), "lock", "-r", path("reqs.txt"), "-o",
                       path("env.lock.yml"), "--python", "3.11.7"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto setup =
        run({"setup", "-l", path("env.lock.yml"), "-p", path("s"), "--python", python311.string()});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;

    // No index given and none reachable: everything comes from the receipt and lock copy.
    auto snap = run({"--index-url", "http://127.0.0.1:9/simple/", "snapshot", "-p", path("s"), "-o",
                     path("snap.lock.yml")});
    ASSERT_EQ(snap.exit_code, 0) << snap.err;
    auto original = read_lock("env.lock.yml");
    auto snapshot = read_lock("snap.lock.yml");
    ASSERT_EQ(snapshot.targets.size(), 1u);
    const auto* own = original.find_target(snapshot.targets[0].id);
    ASSERT_NE(own, nullptr) << snapshot.targets[0].id;
    EXPECT_EQ(snapshot.targets[0].packages, own->packages);
    EXPECT_EQ(snapshot.targets[0].python, own->python);
    EXPECT_EQ(snapshot.targets[0].marker_environment, own->marker_environment);
    EXPECT_EQ(snapshot.indexes, original.indexes);
    EXPECT_EQ(snapshot.name, original.name);
    EXPECT_NE(snap.err.find("alpha 1.0: receipt ("), std::string::npos) << snap.err;
}

TEST_F(SnapshotCli, LocalWheelStaysAUrlWithPipsHash) {
    pip_prefix("p", {"--index-url", index(), local_wheel->path.string()}, false);
    auto snap = run({"--index-url", index(), "snapshot", "-p", path("p"), "-o", path("l.yml")});
    ASSERT_EQ(snap.exit_code, 0) << snap.err;
    auto lockfile = read_lock("l.yml");
    const auto* local = lockfile.targets.front().find("localpkg");
    ASSERT_NE(local, nullptr);
    ASSERT_TRUE(local->wheel);
    EXPECT_EQ(local->wheel->url, file_url(local_wheel->path));
    EXPECT_EQ(local->wheel->sha256, local_wheel->sha256);
    EXPECT_EQ(local->wheel->size, local_wheel->size);
    EXPECT_EQ(local->index, "");
    EXPECT_EQ(local->dependencies, std::vector<std::string>{"beta"});
    EXPECT_NE(snap.err.find("localpkg 0.3: direct_url (" + file_url(local_wheel->path) + ")\n"),
              std::string::npos)
        << snap.err;

    EXPECT_NE(snap.err.find("note: localpkg 0.3: " + file_url(local_wheel->path) +
                            " is on this machine only; `aitk-env bundle -l LOCK` carries it "
                            "elsewhere\n"),
              std::string::npos)
        << snap.err;

    // And setup installs it from there, once its folder is passed: a lock reads files on this
    // machine only under its own folder or one the user vouches for.
    auto setup = run({"--find-links", local_wheel->path.parent_path().string(), "setup", "-l",
                      path("l.yml"), "-p", path("q"), "--python", python311.string()});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_EQ(contents(path("q")), contents(path("p")));
}

TEST_F(SnapshotCli, FileOnNoIndexIsAnErrorNamingIt) {
    pip_prefix("p", {"--index-url", index("other"), "--extra-index-url", index(), "zeta", "beta"},
               false);
    auto snap = run({"--index-url", index(), "snapshot", "-p", path("p"), "-o", path("l.yml")});
    EXPECT_EQ(snap.exit_code, 1);
    EXPECT_NE(snap.err.find("cannot lock what the prefix holds:\n  zeta 1.0 (tags: "
                            "py3-none-any): no such file on " +
                            index() + " nor in the cache\n"),
              std::string::npos)
        << snap.err;
    EXPECT_NE(snap.err.find("pass --index-url / --extra-index-url / --find-links of the index "
                            "these came from, or --allow-unlocked"),
              std::string::npos)
        << snap.err;
    EXPECT_FALSE(stdfs::exists(path("l.yml")));

    auto lenient = run({"--index-url", index(), "snapshot", "-p", path("p"), "-o", path("l.yml"),
                        "--allow-unlocked"});
    ASSERT_EQ(lenient.exit_code, 0) << lenient.err;
    EXPECT_EQ(read_lock("l.yml").targets.front().packages.size(), 1u);
    EXPECT_NE(lenient.err.find("left out: zeta 1.0 (tags: py3-none-any): no such file on " +
                               index() + " nor in the cache (--allow-unlocked)\n"),
              std::string::npos)
        << lenient.err;

    // The index it came from, as an extra index, finds it.
    auto both = run({"--index-url", index(), "--extra-index-url", index("other"), "snapshot", "-p",
                     path("p"), "-o", path("l.yml")});
    ASSERT_EQ(both.exit_code, 0) << both.err;
    auto lockfile = read_lock("l.yml");
    EXPECT_EQ(lockfile.targets.front().find("zeta")->index, "extra-index 1");
}

TEST_F(SnapshotCli, CacheHoldsTheFileWhenNoIndexDoes) {
    pip_prefix("p", {"--index-url", index(), "beta==2.0"}, false);
    // setup puts the wheel into aitk-env's cache.
    ASSERT_EQ(
        run({"--index-url", index(), "snapshot", "-p", path("p"), "-o", path("l.yml")}).exit_code,
        0);
    ASSERT_EQ(run({"setup", "-l", path("l.yml"), "-p", path("q"), "--python", python311.string()})
                  .exit_code,
              0);

    auto snap = run({"--index-url", index("other"), "snapshot", "-p", path("p"), "--json"});
    ASSERT_EQ(snap.exit_code, 0) << snap.err;
    auto json = nlohmann::json::parse(snap.out);
    const auto& file = published("beta-2.0-py3-none-any.whl").artifact;
    const auto cached = path("cache") + "/v1/artifacts/sha256/" + file.sha256.substr(0, 2) + "/" +
                        file.sha256.substr(2) + "/beta-2.0-py3-none-any.whl";
    EXPECT_EQ(json["target"], "linux-x86_64-cpu");
    EXPECT_EQ(json["lockfile"], nullptr);
    EXPECT_EQ(json["packages"],
              nlohmann::json::parse(R"([{"name": "beta", "version": "2.0", "origin": "cache",
                                         "location": ")" +
                                    file_url(cached) + R"("}])"));
    EXPECT_EQ(
        json["notes"],
        nlohmann::json::parse(
            R"(["beta 2.0: only this machine's cache holds its wheel; `aitk-env bundle -l LOCK` carries it elsewhere"])"));
    auto parsed = lock::parse_lockfile(json["text"].get<std::string>(), "json");
    ASSERT_TRUE(parsed);
    const auto& wheel = *parsed->targets.front().find("beta")->wheel;
    EXPECT_EQ(wheel.sha256, file.sha256);
    EXPECT_EQ(wheel.size, file.size);
}

TEST_F(SnapshotCli, NotAPrefixIsBadInput) {
    auto snap = run({"snapshot", "-p", path("nothing")});
    EXPECT_EQ(snap.exit_code, 2);
    EXPECT_NE(snap.err.find("is not a prefix"), std::string::npos) << snap.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
