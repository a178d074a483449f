// PEP 751 pylock.toml as an input of the real binary, on a local index: `setup -l pylock.toml`
// installs what the file selects for this machine (its backend extra chosen by the hardware,
// here a machine without a GPU), `lock --from` converts it, our own `export --format pylock`
// round-trips to the same prefix, and bad files are refused with their place, changing nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using testing::HasSubstr;

class PylockCli : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(hostile_python)) GTEST_SKIP() << hostile_python << " is missing";
        for (const char* dir : {"xdg", "etc"})
            stdfs::create_directories(path(dir));
        MirrorBuilder mirror(path("mirror"));
        mirror.add_index("simple");
        mirror.add_index("whl/cpu", IndexOptions::pytorch());
        mirror.add_index("whl/cu128", IndexOptions::pytorch());
        mirror.add_index("whl/cu126", IndexOptions::pytorch());
        auto wheel = [&](const std::string& index, const std::string& name,
                         const std::string& version, std::vector<std::string> requires_dist = {}) {
            WheelSpec spec;
            spec.name = name;
            spec.version = version;
            spec.requires_dist = std::move(requires_dist);
            spec.console_scripts = name == "alpha"
                                       ? std::vector<std::string>{"alpha-cli = alpha:main"}
                                       : std::vector<std::string>{};
            files[name + " " + version] = mirror.add_wheel(index, spec);
        };
        wheel("simple", "alpha", "1.0", {"beta>=1.0"});
        wheel("simple", "beta", "1.0");
        wheel("simple", "gamma", "2.0");
        wheel("simple", "devtool", "0.1");
        wheel("simple", "torch", "2.8.0");  // as PyPI publishes it: no local label
        wheel("simple", "nvidia-cuda-runtime-cu12", "12.8.90");
        wheel("whl/cpu", "torch", "2.7.0+cpu");
        wheel("whl/cu128", "torch", "2.7.0+cu128");
        for (const std::string backend : {"cpu", "cu126", "cu128"})
            wheel("whl/" + backend, "torch", "2.8.0+" + backend);
        mirror.write();
        server.serve_directory(path("mirror"), "/");
    }

    stdfs::path path(const std::string& name) const { return work.path() / name; }
    std::string p(const std::string& name) const { return path(name).string(); }

    CliResult cli(std::vector<std::string> args, bool with_index = false,
                  const std::vector<std::string>& machine = {}) const {
        std::vector<std::string> global = {"--no-progress", "--cache-dir", p("cache")};
        if (with_index) {
            global.push_back("--index-url");
            global.push_back(server.url("/simple/"));
            global.push_back("--torch-index-url");
            global.push_back(server.url("/whl"));
        }
        args.insert(args.begin(), global.begin(), global.end());
        auto environment = isolated_environment(work.path(), hostile_python_bin);
        environment.insert(environment.end(), machine.begin(), machine.end());
        return run_cli(args, "", environment);
    }

    // `{url = …, size = …, hashes = {sha256 = …}}` of a published wheel.
    std::string wheel_entry(const std::string& key) const {
        const auto& f = files.at(key);
        return "{name = \"" + f.artifact.filename + "\", url = \"" + server.url(f.url_path) +
               "\", size = " + std::to_string(f.artifact.size) + ", hashes = {sha256 = \"" +
               f.artifact.sha256 + "\"}}";
    }

    std::string package(const std::string& name, const std::string& version,
                        const std::string& extra_lines = {}) const {
        return "\n[[packages]]\nname = \"" + name + "\"\nversion = \"" + version + "\"\n" +
               extra_lines + "wheels = [" + wheel_entry(name + " " + version) + "]\n";
    }

    // A project's pylock.toml: alpha needs beta; torch per backend extra; a dev group.
    std::string project_pylock() const {
        return "lock-version = \"1.0\"\ncreated-by = \"hand\"\nextras = [\"cpu\", \"cu128\"]\n"
               "dependency-groups = [\"dev\"]\n" +
               package("alpha", "1.0", "dependencies = [{name = \"beta\"}]\n") +
               package("beta", "1.0") +
               package(
                   "torch", "2.7.0+cpu",
                   "marker = \"'cpu' in extras\"\nindex = \"" + server.url("/whl/cpu") + "\"\n") +
               package("torch", "2.7.0+cu128",
                       "marker = \"'cu128' in extras\"\nindex = \"" + server.url("/whl/cu128") +
                           "\"\n") +
               package("devtool", "0.1", "marker = \"'dev' in dependency_groups\"\n");
    }

    // A file whose torch (2.8.0, whose stable CUDA builds are cu126 and cu128) build is chosen
    // by an extra per backend, as uv writes for a project with such extras in `conflicts`.
    std::string backend_pylock(const std::vector<std::string>& backends) const {
        std::string extras;
        for (const auto& backend : backends)
            extras += (extras.empty() ? "\"" : ", \"") + backend + "\"";
        std::string out = "lock-version = \"1.0\"\ncreated-by = \"hand\"\nextras = [" + extras +
                          "]\n" + package("alpha", "1.0", "dependencies = [{name = \"beta\"}]\n") +
                          package("beta", "1.0");
        for (const auto& backend : backends) {
            out += package("torch", "2.8.0+" + backend,
                           "marker = \"'" + backend + "' in extras\"\nindex = \"" +
                               server.url("/whl/" + backend) + "\"\n");
        }
        return out;
    }

    // A machine with an NVIDIA GPU, as detection's overrides describe it.
    static std::vector<std::string> gpu_machine(const std::string& driver,
                                                const std::string& compute_capability) {
        return {"-u AITK_ENV_NO_GPU", "AITK_ENV_CUDA_DRIVER_VERSION=" + driver,
                "AITK_ENV_GPU_COMPUTE_CAPABILITY=" + compute_capability};
    }

    // name → version of what a prefix holds, by its dist-info folders.
    std::map<std::string, std::string> installed(const std::string& prefix) const {
        auto listed = cli({"--json", "list", "-p", p(prefix)});
        EXPECT_EQ(listed.exit_code, 0) << listed.err;
        std::map<std::string, std::string> out;
        for (const auto& item : nlohmann::json::parse(listed.out)) {
            out[item.at("name").get<std::string>()] = item.at("version").get<std::string>();
        }
        return out;
    }

    // The site-packages folder of a prefix (every file, its bytes: RECORD, INSTALLER and
    // REQUESTED included), and the console scripts.
    TreeState installed_files(const std::string& prefix) const {
        TreeState out;
        for (const auto& entry : stdfs::recursive_directory_iterator(path(prefix))) {
            const std::string rel = entry.path().lexically_relative(path(prefix)).generic_string();
            if (rel.find("site-packages") == std::string::npos) continue;
            if (rel.find("__pycache__") != std::string::npos) continue;
            out[rel.substr(rel.find("site-packages"))] =
                entry.is_regular_file() ? fs::sha256_file_hex(entry.path()) : "dir";
        }
        return out;
    }

    fs::TempDir work = fs::TempDir::create("aitk-pylock-cli");
    HttpServer server;
    std::map<std::string, PublishedFile> files;
};

TEST_F(PylockCli, SetupInstallsWhatTheFileSelectsWithTheBackendThisMachineRuns) {
    fs::write_file_atomic(path("pylock.toml"), project_pylock());
    auto setup = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python",
                      hostile_python, "--no-smoke-test"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_THAT(setup.err, HasSubstr("target   " + hostile_target));
    EXPECT_THAT(setup.err, HasSubstr("backend cpu: extra 'cpu' of pylock.toml"));
    EXPECT_EQ(installed("prefix"), (std::map<std::string, std::string>{
                                       {"alpha", "1.0"}, {"beta", "1.0"}, {"torch", "2.7.0+cpu"}}));
    EXPECT_EQ(cli({"verify", "-p", p("prefix")}).exit_code, 0);

    // A group joins; sync keeps the prefix's target and installs what the group adds.
    auto sync = cli({"sync", "-l", p("pylock.toml"), "-p", p("prefix"), "--group", "dev"});
    ASSERT_EQ(sync.exit_code, 0) << sync.err;
    EXPECT_EQ(installed("prefix").count("devtool"), 1u);
    EXPECT_EQ(cli({"verify", "-p", p("prefix")}).exit_code, 0);
}

// The same file on three GPU machines (the machine without one is the test above): the extra of
// the build the GPU runs, and when none runs, exit 3 with the fix and no silent CPU build.
TEST_F(PylockCli, TheBackendExtraFollowsTheGpu) {
    auto setup_on = [&](const std::string& prefix, const std::vector<std::string>& machine) {
        return cli({"setup", "-l", p("pylock.toml"), "-p", p(prefix), "--python", hostile_python,
                    "--no-smoke-test"},
                   false, machine);
    };
    // Driver 570 and an sm_89 GPU run both CUDA builds: the newest, cu128.
    fs::write_file_atomic(path("pylock.toml"), backend_pylock({"cpu", "cu126", "cu128"}));
    auto ada = setup_on("ada", gpu_machine("570.86.10", "8.9"));
    ASSERT_EQ(ada.exit_code, 0) << ada.err;
    EXPECT_THAT(ada.err, HasSubstr("backend cu128: extra 'cu128' of pylock.toml"));
    EXPECT_EQ(installed("ada").at("torch"), "2.8.0+cu128");
    EXPECT_EQ(cli({"verify", "-p", p("ada")}, false, gpu_machine("570.86.10", "8.9")).exit_code, 0);

    // A file with cpu and cu126 on driver 535 and an sm_86 GPU: cu126, not the CPU build.
    fs::write_file_atomic(path("pylock.toml"), backend_pylock({"cpu", "cu126"}));
    auto ampere = setup_on("ampere", gpu_machine("535.183.01", "8.6"));
    ASSERT_EQ(ampere.exit_code, 0) << ampere.err;
    EXPECT_THAT(ampere.err, HasSubstr("backend cu126: extra 'cu126' of pylock.toml"));
    EXPECT_EQ(installed("ampere").at("torch"), "2.8.0+cu126");

    // The same file on an RTX 5090 (sm_120), which cu126 has no kernels for: exit 3 with what
    // each build lacks and the fix, and no silent CPU build.
    auto blackwell = setup_on("blackwell", gpu_machine("560.35.03", "12.0"));
    EXPECT_EQ(blackwell.exit_code, 3) << blackwell.err;
    EXPECT_THAT(blackwell.err, HasSubstr("has no kernels for sm_120"));
    EXPECT_THAT(blackwell.err, HasSubstr("only with --backend cpu"));
    EXPECT_FALSE(stdfs::exists(path("blackwell")));
}

// uv's export of a project that takes torch from PyPI: torch 2.8.0 without a local label, and
// on Linux the CUDA runtime it depends on, whose version says the build (12.8 → cu128). On
// Windows PyPI's torch is the CPU build.
TEST_F(PylockCli, PypisTorchIsTheBuildOfItsCudaRuntime) {
    fs::write_file_atomic(
        path("pylock.toml"),
        "lock-version = \"1.0\"\ncreated-by = \"uv\"\n" +
            package("torch", "2.8.0", "index = \"" + server.url("/simple/") + "\"\n") +
            package("nvidia-cuda-runtime-cu12", "12.8.90",
                    "marker = \"platform_machine == 'x86_64' and sys_platform == 'linux'\"\n"));
    // This machine's platform, no --target: the build is read from the file.
    auto locked =
        cli({"lock", "--from", p("pylock.toml"), "-o", p("host.lock.yml"), "--python", "3.12"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto lock = lock::parse_lockfile(fs::read_file(path("host.lock.yml")), "host");
    ASSERT_TRUE(lock) << lock.error().describe();
    ASSERT_EQ(lock->targets.size(), 1u);
    const std::string platform = hostile_target.substr(0, hostile_target.rfind('-'));
    const bool linux_host = platform.starts_with("linux");
    EXPECT_EQ(lock->targets[0].id, platform + (linux_host ? "-cu128" : "-cpu"));
    EXPECT_EQ(lock->targets[0].find("nvidia-cuda-runtime-cu12") != nullptr, linux_host);

    // Windows: the file has no CUDA build there, and a target that names one is refused.
    auto windows = cli({"lock", "--from", p("pylock.toml"), "-o", p("windows.lock.yml"), "--python",
                        "3.12", "--target", "windows-x86_64-cu128"});
    EXPECT_EQ(windows.exit_code, 3) << windows.err;
    EXPECT_THAT(windows.err, HasSubstr("has no cu128 build for windows-x86_64; it has: cpu"));
    EXPECT_FALSE(stdfs::exists(path("windows.lock.yml")));
}

TEST_F(PylockCli, AnExtraTheUserNamesWinsAndIsChecked) {
    fs::write_file_atomic(path("pylock.toml"), project_pylock());
    // No GPU here: the CUDA build the user asks for cannot run, and nothing is made.
    auto refused = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python",
                        hostile_python, "--no-smoke-test", "--extra", "cu128"});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("cu128"));
    EXPECT_FALSE(stdfs::exists(path("prefix")));
    // An extra the file does not have.
    auto unknown = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python",
                        hostile_python, "--no-smoke-test", "--extra", "rocm"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
    EXPECT_THAT(unknown.err, HasSubstr("the lock file has no extra 'rocm' (its extras: cpu, "
                                       "cu128)"));
    EXPECT_FALSE(stdfs::exists(path("prefix")));
}

TEST_F(PylockCli, AFileForAnotherPlatformIsUnsatisfiableHere) {
    // A valid file this machine cannot install: exit 3, as a lock target that does not run.
    fs::write_file_atomic(path("pylock.toml"),
                          "lock-version = \"1.0\"\ncreated-by = \"hand\"\nenvironments = "
                          "[\"sys_platform == 'darwin'\"]\n" +
                              package("beta", "1.0"));
    auto refused = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python",
                        hostile_python, "--no-smoke-test"});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("pylock.toml:3:16: none of the lock file's environments "
                                       "('sys_platform == \"darwin\"') holds for"));
    EXPECT_FALSE(stdfs::exists(path("prefix")));
}

TEST_F(PylockCli, LockFromConvertsEveryBackendTheFileOffers) {
    fs::write_file_atomic(path("pylock.toml"), project_pylock());
    auto locked = cli({"lock", "--from", p("pylock.toml"), "-o", p("converted.lock.yml"),
                       "--python", hostile_python_version});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto lock = lock::parse_lockfile(fs::read_file(path("converted.lock.yml")), "converted");
    ASSERT_TRUE(lock) << lock.error().describe();
    std::vector<std::string> ids;
    for (const auto& t : lock->targets)
        ids.push_back(t.id);
    const std::string platform = hostile_target.substr(0, hostile_target.rfind('-'));
    EXPECT_EQ(ids, (std::vector<std::string>{platform + "-cpu", platform + "-cu128"}));
    EXPECT_EQ(lock->find_target(platform + "-cu128")->find("torch")->version, "2.7.0+cu128");
    // Again: the same bytes, nothing written.
    auto again = cli({"lock", "--from", p("pylock.toml"), "-o", p("converted.lock.yml"), "--python",
                      hostile_python_version});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_THAT(again.err, HasSubstr("unchanged: "));
    // --target picks the build.
    auto one = cli({"lock", "--from", p("pylock.toml"), "-o", p("cu128.lock.yml"), "--python",
                    hostile_python_version, "--target", platform + "-cu128"});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    auto cu128 = lock::parse_lockfile(fs::read_file(path("cu128.lock.yml")), "cu128");
    ASSERT_TRUE(cu128);
    ASSERT_EQ(cu128->targets.size(), 1u);
    EXPECT_EQ(cu128->targets[0].id, platform + "-cu128");
}

// lock → export --format pylock → setup from it into a second prefix: the same files. Both are
// made at the same path (the first moved aside after it is verified), so that console scripts,
// whose first line names the prefix, compare too.
TEST_F(PylockCli, OurExportRoundTripsToTheSamePrefix) {
    fs::write_file_atomic(path("requirements.txt"), "alpha\ngamma\n");
    auto locked = cli({"lock", "-r", p("requirements.txt"), "-o", p("env.lock.yml"), "--python",
                       hostile_python_version, "--target", hostile_target},
                      true);
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto first = cli({"setup", "-l", p("env.lock.yml"), "-p", p("prefix"), "--python",
                      hostile_python, "--no-smoke-test"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(cli({"verify", "-p", p("prefix"), "-l", p("env.lock.yml")}).exit_code, 0);
    const auto first_list = installed("prefix");
    const auto first_files = installed_files("prefix");
    stdfs::rename(path("prefix"), path("first"));

    auto exported =
        cli({"export", "-l", p("env.lock.yml"), "--format", "pylock", "-o", p("out/pylock.toml")});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    auto second = cli({"setup", "-l", p("out/pylock.toml"), "-p", p("prefix"), "--python",
                       hostile_python, "--no-smoke-test"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_EQ(cli({"verify", "-p", p("prefix")}).exit_code, 0);

    EXPECT_EQ(installed("prefix"), first_list);
    EXPECT_EQ(first_list.size(), 3u);  // alpha, beta, gamma
    const auto second_files = installed_files("prefix");
    EXPECT_GT(first_files.size(), 6u);
    EXPECT_EQ(tree_diff(first_files, second_files), "");
}

// Credentials in a file's URLs (a private index) reach neither a message nor a file written
// (issue 33): a refused file names the index without them, and an installed one stores its URLs
// without them.
TEST_F(PylockCli, CredentialsInTheFilesUrlsAreNeverShownOrStored) {
    const std::string secret = "s3cr3t-token";
    auto with_credentials = [&](std::string text) {
        for (std::size_t at = text.find("http://"); at != std::string::npos;
             at = text.find("http://", at + 1)) {
            text.insert(at + 7, "user:" + secret + "@");
        }
        return text;
    };
    // torch 2.7.0+cpu from the cu128 index: two builds named, the index in the message.
    fs::write_file_atomic(
        path("pylock.toml"),
        with_credentials(
            "lock-version = \"1.0\"\ncreated-by = \"hand\"\n" +
            package("torch", "2.7.0+cpu", "index = \"" + server.url("/whl/cu128") + "\"\n")));
    auto refused = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python",
                        hostile_python, "--no-smoke-test"});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("the torch family names two builds"));
    EXPECT_THAT(refused.err, HasSubstr("the index http://***@127.0.0.1:"));
    EXPECT_EQ(refused.err.find(secret), std::string::npos) << refused.err;
    // A file that installs: nothing under the work folder but the file itself holds the secret.
    fs::write_file_atomic(path("pylock.toml"), with_credentials(project_pylock()));
    auto setup = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python",
                      hostile_python, "--no-smoke-test"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_EQ(setup.err.find(secret), std::string::npos) << setup.err;
    auto locked = cli({"lock", "--from", p("pylock.toml"), "-o", p("converted.lock.yml")});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    EXPECT_EQ(locked.err.find(secret), std::string::npos) << locked.err;
    for (const auto& entry : stdfs::recursive_directory_iterator(work.path())) {
        if (!entry.is_regular_file() || entry.path() == path("pylock.toml")) continue;
        EXPECT_EQ(fs::read_file(entry.path()).find(secret), std::string::npos) << entry.path();
    }
}

// doctor judges the builds a pylock.toml offers as it judges a lockfile's targets; the commands
// that take only aitk-env's lockfile say how to convert one, instead of a YAML error at 1:1; and
// `lock -o` does not write aitk-env's YAML under a name PEP 751 reserves.
TEST_F(PylockCli, DoctorReadsItAndOtherCommandsSayHowToConvertIt) {
    fs::write_file_atomic(path("pylock.toml"), project_pylock());
    auto doctor = cli({"--json", "doctor", "-l", p("pylock.toml")});
    ASSERT_EQ(doctor.exit_code, 0) << doctor.err;
    const auto report = nlohmann::json::parse(doctor.out);
    const std::string platform = hostile_target.substr(0, hostile_target.rfind('-'));
    EXPECT_EQ(report["lock"]["chosen"], platform + "-cpu") << doctor.out;
    EXPECT_EQ(report["lock"]["targets"].size(), 2u) << doctor.out;

    auto made = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python", hostile_python,
                     "--no-smoke-test"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    fs::write_file_atomic(path("requirements.txt"), "alpha\n");
    const auto before = tree_state(work.path(), {"mirror", "cache"});
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"export", "-l", p("pylock.toml"), "--format", "requirements", "-o", p("r.txt")},
             {"bundle", "-l", p("pylock.toml"), "-o", p("b.tar.zst")},
             {"mirror", "-l", p("pylock.toml"), "-o", p("mirror-out")},
             {"verify", "-p", p("prefix"), "-l", p("pylock.toml")}}) {
        SCOPED_TRACE(args.front());
        auto refused = cli(args);
        EXPECT_EQ(refused.exit_code, 2) << refused.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(refused.err,
                                 {"pylock.toml is a PEP 751 lock file",
                                  "aitk-env lock --from " + p("pylock.toml") + " -o "},
                                 missing))
            << missing << "\n"
            << refused.err;
    }
    auto misnamed = cli({"lock", "-r", p("requirements.txt"), "-o", p("out/pylock.toml"),
                         "--python", hostile_python_version, "--target", hostile_target},
                        true);
    EXPECT_EQ(misnamed.exit_code, 2) << misnamed.err;
    EXPECT_THAT(misnamed.err, HasSubstr("export --format pylock"));
    auto converted = cli({"lock", "--from", p("pylock.toml"), "-o", p("out/pylock.other.toml")});
    EXPECT_EQ(converted.exit_code, 2) << converted.err;
    EXPECT_EQ(tree_diff(before, tree_state(work.path(), {"mirror", "cache"})), "");
}

TEST_F(PylockCli, BadFilesAreRefusedWithTheirPlaceAndNothingIsWritten) {
    const std::string good = project_pylock();
    struct Case {
        std::string name;
        std::string text;
        std::vector<std::string> parts;
    };
    std::string no_hash = good;
    const auto hashes = no_hash.find(", hashes = {sha256 = ");
    no_hash.erase(hashes, no_hash.find("}}", hashes) + 1 - hashes);
    std::string two_sources = good;
    two_sources.insert(two_sources.find("wheels = ["), "directory = {path = \"src\"}\n");
    // beta's entry lists alpha's wheel: a problem of the file on every Python.
    std::string other_wheel = good;
    const auto beta = other_wheel.find("\nname = \"beta\"");
    const auto beta_wheel = other_wheel.find("{name = \"", beta);
    other_wheel.replace(beta_wheel, other_wheel.find("}}", beta_wheel) + 2 - beta_wheel,
                        wheel_entry("alpha 1.0"));
    const std::vector<Case> cases = {
        {"newer major",
         "lock-version = \"2.0\"\n" + good.substr(good.find('\n') + 1),
         {"pylock.toml:1:16", "`lock-version` `2.0`", "lock-version 1.x"}},
        {"missing hash", no_hash, {"pylock.toml:10:11", "package alpha", "has no `hashes`"}},
        {"two sources", two_sources, {"pylock.toml:6:1", "conflicting sources"}},
        {"a wheel of another project",
         other_wheel,
         {"pylock.toml:15:11",
          "package beta lists 'alpha-1.0-py3-none-any.whl', a wheel of alpha"}},
        {"malformed TOML",
         good + "\n[[packages]\n",
         {"pylock.toml:" + std::to_string(std::count(good.begin(), good.end(), '\n') + 2) +
              ":12: not valid TOML",
          "expected ']'", "fix the syntax"}},
        {"unknown key",
         good + "\nsurprise = 1\n",
         {"pylock.toml:37:1", "unknown key `packages.surprise`"}},
    };
    // A prefix set up from the good file, which a bad one must leave as it is.
    fs::write_file_atomic(path("pylock.toml"), good);
    auto made = cli({"setup", "-l", p("pylock.toml"), "-p", p("prefix"), "--python", hostile_python,
                     "--no-smoke-test"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        fs::write_file_atomic(path("pylock.toml"), c.text);
        const auto before = tree_state(work.path(), {"mirror", "cache"});
        auto setup = cli({"setup", "-l", p("pylock.toml"), "-p", p("fresh"), "--python",
                          hostile_python, "--no-smoke-test"});
        EXPECT_EQ(setup.exit_code, 2) << setup.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(setup.err, c.parts, missing)) << missing << "\n" << setup.err;
        auto synced = cli({"sync", "-l", p("pylock.toml"), "-p", p("prefix")});
        EXPECT_EQ(synced.exit_code, 2) << synced.err;
        EXPECT_TRUE(mentions_all(synced.err, c.parts, missing)) << missing << "\n" << synced.err;
        auto locked = cli({"lock", "--from", p("pylock.toml"), "-o", p("out.lock.yml")});
        EXPECT_EQ(locked.exit_code, 2) << locked.err;
        EXPECT_TRUE(mentions_all(locked.err, c.parts, missing)) << missing << "\n" << locked.err;
        // The file is wrong whatever the Python (lock tries each): no hint about Pythons.
        EXPECT_THAT(locked.err, testing::Not(HasSubstr("no Python aitk-env installs")));
        EXPECT_EQ(tree_diff(before, tree_state(work.path(), {"mirror", "cache"})), "");
        EXPECT_FALSE(stdfs::exists(path("fresh")));
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
