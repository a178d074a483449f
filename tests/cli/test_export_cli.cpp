// `aitk-env export` through the real binary. The round trips use the real consumers: a lock made
// on a local mirror is exported as requirements.txt and real pip 23.2 installs it with
// --require-hashes into a fresh venv, getting exactly the locked set; pylock.toml is read with
// Python's tomllib and its files compared with the lock's. Then the exit codes of the contract.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "aitk/app/prefix.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/lock/exporters.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string python311 = "/root/.pyenv/versions/3.11.7/bin/python";
const std::vector<std::string> no_proxy = {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY",
                                           "-u ALL_PROXY", "-u all_proxy"};

// A real Python, without this machine's pip settings or proxies.
util::ProcessResult python(std::vector<std::string> args, const std::string& stdin_data = {}) {
    util::ProcessRequest request;
    request.argv = {python311};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.stdin_data = stdin_data;
    for (const auto& [name, value] : util::current_environment()) {
        if (name.starts_with("PIP_") || util::iequals(name, "http_proxy") ||
            util::iequals(name, "https_proxy") || util::iequals(name, "all_proxy")) {
            request.environment_changes[name] = std::nullopt;
        }
    }
    request.environment_changes["PIP_CONFIG_FILE"] = "/dev/null";
    request.environment_changes["PYTHONDONTWRITEBYTECODE"] = "1";
    request.timeout = std::chrono::seconds(180);
    auto result = util::run_process(request);
    if (!result) throw std::runtime_error(result.error().message);
    return *result;
}

std::map<std::string, std::string> locked_versions(const lock::LockedTarget& target) {
    std::map<std::string, std::string> out;
    for (const auto& package : target.packages)
        out[package.name] = package.version;
    return out;
}

// A few pure-Python projects on one index: alpha needs beta (two versions published), gamma
// has an extra the request activates.
class ExportCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror_dir = new fs::TempDir(fs::TempDir::create("aitk-export-mirror"));
        build_mirror(mirror_dir->path(), nlohmann::json::parse(R"({
            "indexes": {"simple": {}},
            "wheels": [
              {"index": "simple", "name": "alpha", "version": "1.0",
               "requires_dist": ["beta>=1.0"]},
              {"index": "simple", "name": "beta", "version": "1.0"},
              {"index": "simple", "name": "beta", "version": "2.0"},
              {"index": "simple", "name": "Gamma_Pkg", "version": "3.1",
               "provides_extra": ["fast"], "requires_dist": ["delta; extra == \"fast\""]},
              {"index": "simple", "name": "delta", "version": "0.5"}
            ]})"));
    }
    static void TearDownTestSuite() { delete mirror_dir; }

    void SetUp() override {
        server.serve_directory(mirror_dir->path());
        work = std::make_unique<fs::TempDir>(fs::TempDir::create("aitk-export-cli"));
    }

    std::string path(const std::string& name) const { return (work->path() / name).string(); }

    // Locks the mirror for linux-x86_64-cpu and Python 3.11.7 into lockfiles/demo.lock.yml.
    lock::Lockfile lock_mirror() {
        stdfs::create_directories(work->path() / "lockfiles");
        fs::write_file_atomic(work->path() / "requirements.txt", "alpha\ngamma-pkg[fast]\n");
        auto result =
            run_cli({"lock", "-r", path("requirements.txt"), "-o", path("lockfiles/demo.lock.yml"),
                     "--python", "3.11.7", "--target", "linux-x86_64-cpu", "--index-url",
                     server.url("/simple/"), "--torch-index-url", server.url("/whl"), "--cache-dir",
                     path("cache"), "--no-progress", "-q"},
                    "", no_proxy);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        auto parsed = lock::parse_lockfile(fs::read_file(path("lockfiles/demo.lock.yml")), "lock");
        if (!parsed) throw std::runtime_error(parsed.error().describe());
        return *parsed;
    }

    CliResult export_cli(std::vector<std::string> args) {
        args.insert(args.begin(), "export");
        return run_cli(args, "", no_proxy);
    }

    static inline fs::TempDir* mirror_dir = nullptr;
    HttpServer server;
    std::unique_ptr<fs::TempDir> work;
};

TEST_F(ExportCli, RequirementsInstallExactlyTheLockedSetWithRealPip) {
    const auto lock = lock_mirror();
    const auto& target = lock.targets.at(0);
    EXPECT_EQ(locked_versions(target),
              (std::map<std::string, std::string>{
                  {"alpha", "1.0"}, {"beta", "2.0"}, {"delta", "0.5"}, {"gamma-pkg", "3.1"}}));

    auto exported = export_cli({"-l", path("lockfiles/demo.lock.yml"), "--format", "requirements",
                                "-o", path("out/requirements.txt")});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    EXPECT_EQ(exported.out, "");
    EXPECT_NE(exported.err.find("wrote " + path("out/requirements.txt")), std::string::npos);
    const std::string text = fs::read_file(path("out/requirements.txt"));
    EXPECT_NE(text.find("--index-url " + server.url("/simple/") + "\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\ngamma-pkg[fast]==3.1 --hash=sha256:"), std::string::npos) << text;

    // A venv with nothing in it; the interpreter's own pip installs into it (--python).
    auto venv = python({"-m", "venv", "--without-pip", path("venv")});
    ASSERT_TRUE(venv.succeeded()) << venv.err;
    const std::string venv_python = path("venv/bin/python");
    auto install = python({"-m", "pip", "--python", venv_python, "install", "--require-hashes",
                           "--no-cache-dir", "--disable-pip-version-check", "--no-input", "--quiet",
                           "-r", path("out/requirements.txt")});
    ASSERT_TRUE(install.succeeded()) << install.out << install.err;
    auto list = python({"-m", "pip", "--python", venv_python, "list", "--format=json",
                        "--disable-pip-version-check"});
    ASSERT_TRUE(list.succeeded()) << list.err;
    std::map<std::string, std::string> installed;
    for (const auto& item : nlohmann::json::parse(list.out)) {
        std::string name = item.at("name").get<std::string>();
        for (auto& c : name)
            c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        installed[name] = item.at("version").get<std::string>();
    }
    EXPECT_EQ(installed, locked_versions(target));

    // A tampered hash: pip refuses, so the hashes really are checked.
    std::string tampered = text;
    const auto at = tampered.find("beta==2.0 --hash=sha256:") + 24;
    tampered[at] = tampered[at] == '0' ? '1' : '0';
    fs::write_file_atomic(path("out/tampered.txt"), tampered);
    auto refused = python({"-m", "pip", "--python", venv_python, "install", "--require-hashes",
                           "--no-cache-dir", "--disable-pip-version-check", "--no-input",
                           "--force-reinstall", "-r", path("out/tampered.txt")});
    EXPECT_FALSE(refused.succeeded());
    EXPECT_NE(refused.err.find("HASHES"), std::string::npos) << refused.err;
}

TEST_F(ExportCli, PylockReadsBackWithTomllibAndNamesTheLockedFiles) {
    const auto lock = lock_mirror();
    const auto& target = lock.targets.at(0);
    auto exported = export_cli({"-l", path("lockfiles/demo.lock.yml"), "--format", "pylock"});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    auto read = python({"-c", R"(
import json, sys, tomllib
doc = tomllib.loads(sys.stdin.read())
out = {k: doc[k] for k in ("lock-version", "created-by", "requires-python", "environments")}
out["packages"] = {p["name"]: {"version": p["version"], "index": p.get("index"),
                               "wheels": [[w["name"], w["url"], w.get("size"), w["hashes"]["sha256"]]
                                          for w in p["wheels"]]}
                   for p in doc["packages"]}
out["tool"] = doc["tool"]["aitk-env"]
print(json.dumps(out))
)"},
                       exported.out);
    ASSERT_TRUE(read.succeeded()) << read.err << exported.out;
    const auto doc = nlohmann::json::parse(read.out);
    EXPECT_EQ(doc["lock-version"], "1.0");
    EXPECT_EQ(doc["created-by"], "aitk-env");
    EXPECT_EQ(doc["requires-python"], "==3.11.*");
    EXPECT_EQ(doc["environments"],
              nlohmann::json({"sys_platform == 'linux' and platform_machine == 'x86_64'"}));
    EXPECT_EQ(doc["tool"]["target"], "linux-x86_64-cpu");
    ASSERT_EQ(doc["packages"].size(), target.packages.size());
    for (const auto& package : target.packages) {
        SCOPED_TRACE(package.name);
        const auto& entry = doc["packages"][package.name];
        ASSERT_TRUE(package.wheel.has_value());
        EXPECT_EQ(entry["version"], package.version);
        EXPECT_EQ(entry["index"], server.url("/simple/"));
        // A size only where the lock knows one (PEP 751 makes it optional).
        const auto size =
            package.wheel->size ? nlohmann::json(*package.wheel->size) : nlohmann::json(nullptr);
        EXPECT_EQ(
            entry["wheels"],
            nlohmann::json::array({nlohmann::json::array(
                {package.wheel->filename, package.wheel->url, size, package.wheel->sha256})}));
    }
}

TEST_F(ExportCli, EnvYmlIsTheLocksEnvironmentPartWithoutTheExtensionKey) {
    const auto lock = lock_mirror();
    auto exported =
        export_cli({"-l", path("lockfiles/demo.lock.yml"), "--format", "env-yml", "--json"});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    const auto json = nlohmann::json::parse(exported.out);
    EXPECT_EQ(json["format"], "env-yml");
    EXPECT_EQ(json["target"], "linux-x86_64-cpu");
    const std::string text = json["text"].get<std::string>();
    EXPECT_EQ(text, lock::export_env_yml(lock, lock.targets.at(0),
                                         lock::ExportSource{path("lockfiles/demo.lock.yml")}));
    EXPECT_EQ(text.find("x-aitk-env"), std::string::npos);
    EXPECT_NE(text.find("\n  - python=3.11.7\n"), std::string::npos);
    // The lockfile's own environment part says the same pip lines.
    const std::string lock_text = fs::read_file(path("lockfiles/demo.lock.yml"));
    const auto pip = text.substr(text.find("  - pip:\n"));
    EXPECT_NE(lock_text.find(pip), std::string::npos) << pip;
}

TEST_F(ExportCli, DockerfileCopiesTheLockAndSetsUpBeforeTheApplication) {
    lock_mirror();
    auto exported = export_cli({"-l", path("lockfiles/demo.lock.yml"), "--format", "dockerfile",
                                "-o", path("Dockerfile")});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    const std::string text = fs::read_file(path("Dockerfile"));
    EXPECT_FALSE(std::regex_search(text, std::regex("@[A-Z_]+@"))) << text;
    EXPECT_NE(text.find("\nFROM --platform=linux/amd64 ubuntu:24.04 AS aitk-env-builder\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\nFROM --platform=linux/amd64 ubuntu:24.04\n"), std::string::npos);
    const auto copy_lock =
        text.find("\nCOPY lockfiles/demo.lock.yml /opt/aitk-env/demo.lock.yml\n");
    const auto setup = text.find(
        "\nRUN aitk-env setup -l /opt/aitk-env/demo.lock.yml -p /opt/venv --backend cpu ");
    const auto copy_app = text.find("\nCOPY . /app\n");
    const auto entrypoint = text.find("\nENTRYPOINT [\"/opt/venv/bin/aitk-run\"]\n");
    ASSERT_NE(copy_lock, std::string::npos) << text;
    ASSERT_NE(setup, std::string::npos) << text;
    ASSERT_NE(copy_app, std::string::npos) << text;
    ASSERT_NE(entrypoint, std::string::npos) << text;
    EXPECT_LT(copy_lock, setup);
    EXPECT_LT(setup, copy_app);
    EXPECT_LT(copy_app, entrypoint);
    const std::string ignore = fs::read_file(path(".dockerignore"));
    EXPECT_NE(ignore.find("\n.venv\n"), std::string::npos) << ignore;
    EXPECT_EQ(ignore.find("lockfiles"), std::string::npos) << ignore;
}

// A lock with two CUDA targets, made by hand (no torch mirror needed for a Dockerfile).
lock::Lockfile two_target_lock() {
    lock::Lockfile lock;
    lock.name = "trainer";
    lock.generator = "aitk-env 0.1.0";
    lock.input_hash = "sha256:" + std::string(64, '1');
    lock.indexes = {{"primary", "https://pypi.org/simple", lock::IndexKind::simple}};
    lock.default_target = "linux-x86_64-cu128";
    for (const std::string backend : {"cu126", "cu128"}) {
        lock::LockedTarget t;
        t.id = "linux-x86_64-" + backend;
        t.os = "linux";
        t.arch = "x86_64";
        t.backend = backend;
        t.python = "3.12.1";
        lock::LockedPackage six;
        six.name = "six";
        six.version = "1.16.0";
        six.index = "primary";
        six.requested = true;
        six.wheel = lock::LockedFile{"six-1.16.0-py2.py3-none-any.whl",
                                     "https://files.example/six-1.16.0-py2.py3-none-any.whl",
                                     std::string(64, 'a'), 11053};
        t.packages = {six};
        lock.targets.push_back(t);
    }
    return lock;
}

TEST_F(ExportCli, TheBaseImageFollowsTheChosenTargetsBackend) {
    fs::write_file_atomic(path("trainer.lock.yml"), lock::write_lockfile(two_target_lock()));
    auto default_target = export_cli({"-l", path("trainer.lock.yml"), "--format", "dockerfile"});
    ASSERT_EQ(default_target.exit_code, 0) << default_target.err;
    EXPECT_NE(default_target.out.find("\nFROM --platform=linux/amd64 "
                                      "nvidia/cuda:12.8.1-runtime-ubuntu24.04\n"),
              std::string::npos)
        << default_target.out;
    EXPECT_NE(default_target.out.find("--backend cu128 "), std::string::npos);
    EXPECT_NE(default_target.out.find("docker run --rm -it --gpus all trainer"), std::string::npos);

    auto other = export_cli({"-l", path("trainer.lock.yml"), "--format", "dockerfile", "--target",
                             "linux-x86_64-cu126"});
    ASSERT_EQ(other.exit_code, 0) << other.err;
    EXPECT_NE(
        other.out.find("\nFROM --platform=linux/amd64 nvidia/cuda:12.6.3-runtime-ubuntu24.04\n"),
        std::string::npos);
}

TEST_F(ExportCli, APrefixExportsItsOwnLockCopyForItsOwnTarget) {
    auto venv = python({"-m", "venv", "--without-pip", path("prefix")});
    ASSERT_TRUE(venv.succeeded()) << venv.err;
    auto no_copy = export_cli({"-p", path("prefix"), "--format", "requirements"});
    EXPECT_EQ(no_copy.exit_code, 2);
    EXPECT_NE(no_copy.err.find("keeps no lockfile"), std::string::npos) << no_copy.err;
    EXPECT_NE(no_copy.err.find("hint: give the prefix one with `aitk-env setup -p "),
              std::string::npos)
        << no_copy.err;

    const auto lock = two_target_lock();
    auto layout = install::PrefixLayout::read(path("prefix"), false);
    ASSERT_TRUE(layout.has_value());
    app::write_prefix_lock(*layout, lock, "linux-x86_64-cu126");
    auto exported = export_cli({"-p", path("prefix"), "--format", "env-yml"});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    EXPECT_EQ(exported.out,
              lock::export_env_yml(lock, lock.targets[0],
                                   lock::ExportSource{path("prefix") + "/.aitk-env/lock.yml"}));

    // The Dockerfile copies the lock copy, which the .dockerignore lets through.
    auto docker =
        export_cli({"-p", path("prefix"), "--format", "dockerfile", "-o", path("Dockerfile")});
    ASSERT_EQ(docker.exit_code, 0) << docker.err;
    EXPECT_NE(fs::read_file(path("Dockerfile"))
                  .find("\nCOPY prefix/.aitk-env/lock.yml /opt/aitk-env/lock.yml\n"),
              std::string::npos);
    const std::string ignore = fs::read_file(path(".dockerignore"));
    EXPECT_NE(ignore.find("\nprefix\n!prefix/.aitk-env/lock.yml\n"), std::string::npos) << ignore;
}

TEST_F(ExportCli, BadInputIsExitTwoAndSaysWhatIsAllowed) {
    fs::write_file_atomic(path("trainer.lock.yml"), lock::write_lockfile(two_target_lock()));
    auto format = export_cli({"-l", path("trainer.lock.yml"), "--format", "conda"});
    EXPECT_EQ(format.exit_code, 2);
    EXPECT_NE(format.err.find("unknown export format 'conda'"), std::string::npos) << format.err;
    EXPECT_NE(format.err.find("env-yml, requirements, pylock, dockerfile"), std::string::npos);

    auto target = export_cli(
        {"-l", path("trainer.lock.yml"), "--format", "pylock", "--target", "linux-x86_64-cu130"});
    EXPECT_EQ(target.exit_code, 2);
    EXPECT_NE(target.err.find("has no target 'linux-x86_64-cu130' (its targets: "
                              "linux-x86_64-cu126, linux-x86_64-cu128)"),
              std::string::npos)
        << target.err;

    auto neither = export_cli({"--format", "pylock"});
    EXPECT_EQ(neither.exit_code, 2);
    auto both = export_cli({"-l", path("trainer.lock.yml"), "-p", path("x"), "--format", "pylock"});
    EXPECT_EQ(both.exit_code, 2);
    auto missing = export_cli({"-l", path("nope.lock.yml"), "--format", "pylock"});
    EXPECT_EQ(missing.exit_code, 2);
    auto no_format = export_cli({"-l", path("trainer.lock.yml")});
    EXPECT_EQ(no_format.exit_code, 2);

    fs::write_file_atomic(path("bad.lock.yml"), "name: x\nx-aitk-env: [\n");
    auto bad = export_cli({"-l", path("bad.lock.yml"), "--format", "pylock"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("bad.lock.yml:"), std::string::npos) << bad.err;
    EXPECT_FALSE(stdfs::exists(path("out.toml")));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
