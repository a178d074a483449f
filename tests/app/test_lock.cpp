// `lock` end to end against the torch-like test mirror served on 127.0.0.1: one resolution per
// target, the torch family from the backend index only, the lockfile byte-identical on re-lock,
// `--check`, and the same versions as real pip picks.
#include "aitk/app/lock.hpp"
#include "app_calls.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "../index/index_test_support.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/util/strings.hpp"
#include "test_machine.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

using test::TorchMirrorTest;

class LockTest : public TorchMirrorTest {
  protected:
    void SetUp() override {
        TorchMirrorTest::SetUp();
        work = std::make_unique<fs::TempDir>(fs::TempDir::create("aitk-lock"));
    }

    void write(const std::string& name, const std::string& text) {
        fs::write_file_atomic(work->path() / name, text);
    }

    test::LockCall request_for(const std::string& requirements_file,
                               std::vector<std::string> targets) {
        test::LockCall r;
        r.input.requirements = requirements_file;
        r.targets = std::move(targets);
        r.python = "3.12.1";
        r.indexes.index_url = server.url("/simple/");
        r.indexes.torch_index_url = server.url("/whl");
        r.cache_root = work->path() / "cache";
        r.cwd = work->path();
        return r;
    }

    static const lock::LockedPackage& package(const lock::LockedTarget& target,
                                              std::string_view name) {
        const auto* p = target.find(name);
        if (!p) throw std::runtime_error("not locked: " + std::string(name));
        return *p;
    }

    test::ClearProxyEnvironment no_proxy;
    std::unique_ptr<fs::TempDir> work;
};

TEST_F(LockTest, LocksTheTorchFamilyFromTheBackendIndexAndTheRestFromThePrimary) {
    write("requirements.txt", "torch==2.9.0\ntorchvision\nrequests[socks]\n");
    auto outcome = run_lock(request_for("requirements.txt", {"linux-x86_64-cu130"}));

    EXPECT_TRUE(outcome.written);
    EXPECT_EQ(outcome.path, work->path() / "lockfiles" / "requirements.lock.yml");
    ASSERT_EQ(outcome.lockfile.targets.size(), 1u);
    const auto& target = outcome.lockfile.targets[0];
    EXPECT_EQ(target.id, "linux-x86_64-cu130");
    EXPECT_EQ(target.python, "3.12.1");

    const auto& torch = package(target, "torch");
    EXPECT_EQ(torch.version, "2.9.0+cu130");
    EXPECT_EQ(torch.index, "torch cu130");
    EXPECT_TRUE(torch.requested);
    ASSERT_TRUE(torch.wheel);
    EXPECT_EQ(torch.wheel->filename, "torch-2.9.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(torch.wheel->sha256.size(), 64u);
    EXPECT_EQ(package(target, "torchvision").version, "0.24.0+cu130");
    // CUDA 13 runtime wheels: Linux markers hold on this target.
    EXPECT_NE(target.find("nvidia-cuda-runtime"), nullptr);
    EXPECT_EQ(package(target, "requests").extras, std::vector<std::string>{"socks"});
    EXPECT_EQ(package(target, "pysocks").index, "primary");
    EXPECT_FALSE(package(target, "pysocks").requested);

    // The file on disk parses back to the same lock.
    auto text = fs::read_file(outcome.path);
    auto parsed = lock::parse_lockfile(text, "lock");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(*parsed, outcome.lockfile);
}

// The torch backend index is HTML only and gives no file sizes (nor does any PEP 503 page):
// such a size stays unknown and is left out of the lockfile, never written as 0. The JSON
// pages of the primary index give sizes, and those are kept.
TEST_F(LockTest, AnUnknownSizeIsLeftOutNeverWrittenAsZero) {
    write("requirements.txt", "torch==2.9.0\nrequests\n");
    auto outcome = run_lock(request_for("requirements.txt", {"linux-x86_64-cu130"}));
    const auto& target = outcome.lockfile.targets.at(0);
    const auto& torch = package(target, "torch");
    ASSERT_TRUE(torch.wheel);
    EXPECT_FALSE(torch.wheel->size.has_value());
    const auto& requests = package(target, "requests");
    ASSERT_TRUE(requests.wheel);
    ASSERT_TRUE(requests.wheel->size.has_value());
    EXPECT_GT(*requests.wheel->size, 0u);

    auto text = fs::read_file(outcome.path);
    EXPECT_EQ(text.find("size: 0\n"), std::string::npos) << text;
    std::size_t known = 0;
    for (const auto& p : target.packages) {
        if (p.wheel && p.wheel->size) ++known;
    }
    std::size_t written = 0;
    for (auto at = text.find(" size: "); at != std::string::npos; at = text.find(" size: ", at + 1))
        ++written;
    EXPECT_EQ(written, known);
    auto parsed = lock::parse_lockfile(text, "lock");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(*parsed, outcome.lockfile);
}

TEST_F(LockTest, ReLockingUnchangedInputsIsByteIdenticalAndCheckPasses) {
    write("requirements.txt", "torch==2.9.0\nrequests\n");
    auto first =
        run_lock(request_for("requirements.txt", {"linux-x86_64-cu126", "linux-x86_64-cpu"}));
    auto before = fs::read_file(first.path);
    auto second =
        run_lock(request_for("requirements.txt", {"linux-x86_64-cu126", "linux-x86_64-cpu"}));
    EXPECT_FALSE(second.written);
    EXPECT_EQ(fs::read_file(second.path), before);
    EXPECT_EQ(second.lockfile.default_target, "linux-x86_64-cu126");  // the first --target

    auto check = request_for("requirements.txt", {"linux-x86_64-cu126", "linux-x86_64-cpu"});
    check.check = true;
    EXPECT_TRUE(run_lock(check).up_to_date);

    write("requirements.txt", "torch==2.9.0\nrequests\nsix\n");
    auto stale = run_lock(check);
    EXPECT_FALSE(stale.up_to_date);
    EXPECT_NE(stale.stale_reason.find("was locked from other inputs"), std::string::npos);
    EXPECT_EQ(fs::read_file(first.path), before);  // --check writes nothing
}

TEST_F(LockTest, EachTargetGetsItsOwnResolution) {
    write("requirements.txt", "torch==2.9.0\n");
    auto outcome =
        run_lock(request_for("requirements.txt", {"windows-x86_64-cu130", "linux-x86_64-cu130"}));
    ASSERT_EQ(outcome.lockfile.targets.size(), 2u);
    const auto& linux_target = outcome.lockfile.targets[0];
    const auto& windows_target = outcome.lockfile.targets[1];
    EXPECT_EQ(linux_target.id, "linux-x86_64-cu130");
    EXPECT_EQ(windows_target.id, "windows-x86_64-cu130");
    EXPECT_EQ(windows_target.marker_environment.at("sys_platform"), "win32");
    ASSERT_TRUE(package(windows_target, "torch").wheel);
    EXPECT_TRUE(package(windows_target, "torch").wheel->filename.ends_with("win_amd64.whl"));
    // The nvidia-* runtime wheels are required with Linux markers only.
    EXPECT_NE(linux_target.find("nvidia-cuda-runtime"), nullptr);
    EXPECT_EQ(windows_target.find("nvidia-cuda-runtime"), nullptr);
}

TEST_F(LockTest, AFamilyMemberPinnedToAnotherBackendIsUnsatisfiable) {
    write("requirements.txt", "torch==2.9.0+cpu\n");
    try {
        run_lock(request_for("requirements.txt", {"linux-x86_64-cu130"}));
        FAIL() << "expected Unsatisfiable";
    } catch (const resolve::Unsatisfiable& e) {
        EXPECT_EQ(e.code(), util::ExitCode::unsatisfiable);
        std::string what = e.what();
        EXPECT_NE(what.find("linux-x86_64-cu130"), std::string::npos) << what;
        EXPECT_NE(what.find("requirements.txt:1"), std::string::npos) << what;
        // What the index does offer, once (a project asked for twice in one batch was listed
        // twice).
        EXPECT_NE(what.find("(torch cu130 offers 2.9.0+cu130 for this target; the torch family "
                            "comes only from the target backend's index)"),
                  std::string::npos)
            << what;
    }
}

TEST_F(LockTest, BadInputIsAnInputErrorWithTheLocation) {
    write("requirements.txt", "torch==2.9.0\nrequests[socks\n");
    try {
        run_lock(request_for("requirements.txt", {"linux-x86_64-cu130"}));
        FAIL() << "expected InputError";
    } catch (const util::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("requirements.txt:2"), std::string::npos) << e.what();
    }
    write("requirements.txt", "torch==2.9.0\n");
    try {
        run_lock(request_for("requirements.txt", {"linux-amd64-cu130"}));
        FAIL() << "expected InputError";
    } catch (const util::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--target linux-amd64-cu130"), std::string::npos);
    }
}

TEST_F(LockTest, KeepsLockedVersionsUntilUpgrade) {
    write("requirements.txt", "torch\n");
    auto request = request_for("requirements.txt", {"linux-x86_64-cu126"});
    // An older lock: torch 2.8.0 (the mirror also has 2.9.0).
    write("requirements.txt", "torch==2.8.0\n");
    run_lock(request);
    write("requirements.txt", "torch\n");
    auto kept = run_lock(request);
    EXPECT_EQ(package(kept.lockfile.targets[0], "torch").version, "2.8.0+cu126");
    request.upgrade_packages = {"torch"};
    auto upgraded = run_lock(request);
    EXPECT_EQ(package(upgraded.lockfile.targets[0], "torch").version, "2.9.0+cu126");
}

TEST_F(LockTest, ACondaSnapshotLocksItsPythonAndItsTorchBuild) {
    write("environment.yml",
          "name: snap\n"
          "channels: [pytorch, conda-forge]\n"
          "dependencies:\n"
          "  - python=3.12.1=h1234_0\n"
          "  - pytorch=2.9.0=py3.12_cpu_0\n"
          "  - cpuonly=2.0=0\n"
          "  - openssl=3.0.13=h0\n"
          "  - pip\n"
          "  - pip:\n"
          "    - requests==2.32.3\n"
          "variables:\n"
          "  HF_HOME: /data/hf\n");
    test::LockCall request = request_for("unused", {});
    request.input.requirements.reset();
    request.input.conda_file = "environment.yml";
    request.python.reset();
    // A GPU machine: the snapshot's CPU build is refused unless asked for by name (no silent
    // CPU torch on a GPU box).
    request.machine = test::nvidia_machine("580.65.06", {"9.0"});
    try {
        run_lock(request);
        ADD_FAILURE() << "expected the CPU build to be refused on a GPU machine";
    } catch (const util::Error& e) {
        EXPECT_EQ(e.code(), util::ExitCode::unsatisfiable);
        EXPECT_NE(std::string(e.what()).find("asks for cpu"), std::string::npos) << e.what();
        EXPECT_NE(e.hint().find("--backend cpu"), std::string::npos) << e.hint();
    }
    request.machine->forced_backend = "cpu";
    auto outcome = run_lock(request);
    EXPECT_EQ(outcome.path, work->path() / "lockfiles" / "snap.lock.yml");
    ASSERT_EQ(outcome.lockfile.targets.size(), 1u);
    const auto& target = outcome.lockfile.targets[0];
    EXPECT_EQ(target.id, "linux-x86_64-cpu");
    EXPECT_EQ(target.python, "3.12.1");
    EXPECT_EQ(package(target, "torch").version, "2.9.0+cpu");
    EXPECT_EQ(package(target, "requests").version, "2.32.3");
    EXPECT_EQ(target.variables.at("HF_HOME"), "/data/hf");
    EXPECT_EQ(target.find("openssl"), nullptr);
}

TEST_F(LockTest, CredentialsInIndexUrlsNeverReachTheLockfile) {
    write("requirements.txt", "requests\n");
    auto request = request_for("requirements.txt", {"linux-x86_64-cpu"});
    request.indexes.index_url = server.url_with_credentials("alice", "s3cret", "/simple/");
    auto outcome = run_lock(request);
    auto text = fs::read_file(outcome.path);
    EXPECT_EQ(text.find("s3cret"), std::string::npos);
    EXPECT_EQ(text.find("alice"), std::string::npos);
    EXPECT_NE(text.find("--index-url " + server.url("/simple/")), std::string::npos) << text;
}

// pip as the reference: the same versions for the same requirements on the same mirror.
std::string run_and_capture(const std::string& command) {
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return out;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
        out.append(buffer, n);
    ::pclose(pipe);
    return out;
}

TEST_F(LockTest, PicksTheVersionsPipPicks) {
    const std::string python = "/root/.pyenv/versions/3.12.1/bin/python";
    if (!std::filesystem::exists(python)) GTEST_SKIP() << "no " << python;
    write("requirements.txt", "torch\ntorchvision\nrequests[socks]\nnumpy\nnetworkx[default]\n");
    auto outcome = run_lock(request_for("requirements.txt", {"linux-x86_64-cu130"}));

    auto report = work->path() / "report.json";
    std::string command =
        "env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL "
        "PIP_CONFIG_FILE=/dev/null " +
        python +
        " -m pip install --quiet --dry-run --ignore-installed --no-cache-dir "
        "--only-binary=:all: --disable-pip-version-check --report " +
        report.string() + " --index-url " + server.url("/simple/") + " --extra-index-url " +
        server.url("/whl/cu130/") + " -r " + (work->path() / "requirements.txt").string() + " 2>&1";
    auto output = run_and_capture(command);
    ASSERT_TRUE(std::filesystem::exists(report)) << output;
    auto json = nlohmann::json::parse(fs::read_file(report));
    std::map<std::string, std::string> pip_versions;
    for (const auto& item : json["install"]) {
        pip_versions[pep::canonicalize_name(item["metadata"]["name"].get<std::string>())] =
            item["metadata"]["version"].get<std::string>();
    }
    std::map<std::string, std::string> ours;
    for (const auto& p : outcome.lockfile.targets[0].packages)
        ours[p.name] = p.version;
    EXPECT_EQ(ours, pip_versions);
}

// One command, one session: the stages after the lock (here the standalone-Python download of
// setup) go over the connections the lock opened, instead of a downloader of their own.
TEST_F(LockTest, TheStagesOfOneSessionShareItsConnections) {
    write("requirements.txt", "requests\n");
    server.add_file("/cpython.tar.gz", "not an archive");
    Session session({work->path() / "cache", work->path(), {}, {}, nullptr, nullptr});
    run_lock(session, request_for("requirements.txt", {"linux-x86_64-cpu"}));
    std::set<int> lock_connections;
    for (const auto& record : server.requests())
        lock_connections.insert(record.remote_port);
    ASSERT_FALSE(lock_connections.empty());

    std::vector<python::StandaloneBuild> table = {{"cpython", "3.12.1", "20260814", "linux",
                                                   "x86_64", "gnu", server.url("/cpython.tar.gz"),
                                                   std::string(64, 'a')}};
    PythonOptions options;
    options.builds = &table;
    options.platform = python::StandalonePlatform{"linux", "x86_64", "gnu"};
    options.system_dirs = std::vector<std::filesystem::path>{};
    EXPECT_THROW((void)ensure_python(session, "3.12", options), util::Error);  // a bad archive
    const auto fetched = server.requests_for("/cpython.tar.gz");  // tried again: a wrong hash
    ASSERT_FALSE(fetched.empty());
    EXPECT_EQ(lock_connections.count(fetched[0].remote_port), 1u)
        << "the download opened connection " << fetched[0].remote_port;
}

// AITK_ENV_HTTP_RETRIES reaches the index pages of a lock: 1 + 1 tries, no backoff wait.
TEST_F(LockTest, TheSessionsRetryKnobReachesTheIndexPages) {
    write("requirements.txt", "requests\n");
    server.set_fault("/simple/requests/", test::Fault::http_status(503, 1000));
    NetworkSettings network;
    network.retries = 1;
    network.retry_delay = std::chrono::milliseconds(0);
    Session session({work->path() / "cache", work->path(), {}, network, nullptr, nullptr});
    EXPECT_ANY_THROW(run_lock(session, request_for("requirements.txt", {"linux-x86_64-cpu"})));
    EXPECT_EQ(server.requests_for("/simple/requests/").size(), 2u);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
