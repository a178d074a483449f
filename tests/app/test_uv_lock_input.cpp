// A uv.lock as an aitk-env lockfile (app/uv_lock_input.hpp): one target per backend extra, the
// backend read from the torch each installs, named targets honoured or refused, the result a
// valid lockfile, and a lock that no longer matches its pyproject.toml reported (or refused).
#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/uv_lock_input.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/error.hpp"
#include "test_data.hpp"
#include "test_files.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// A project folder holding one of the copied real uv.lock files (and its pyproject.toml).
struct Project {
    explicit Project(const std::string& prefix, bool with_pyproject = true) {
        const auto data = stdfs::path(test::data_path("realworld/uv"));
        stdfs::copy_file(data / (prefix + "__uv.lock"), dir.path / "uv.lock");
        if (with_pyproject)
            stdfs::copy_file(data / (prefix + "__pyproject.toml"), dir.path / "pyproject.toml");
    }
    stdfs::path lock() const { return dir.path / "uv.lock"; }
    test::TempDir dir{"uv-lock-input"};
};

Machine linux_machine() {
    Machine m;
    m.os = "linux";
    m.arch = "x86_64";
    return m;
}

std::vector<std::string> ids(const lock::Lockfile& lockfile) {
    std::vector<std::string> out;
    for (const auto& t : lockfile.targets)
        out.push_back(t.id);
    return out;
}

TEST(UvLockInput, DiaGivesTheNamedTargetsAsAValidLockfile) {
    Project dia("nari-labs_dia");
    UvLockRequest request;
    request.path = dia.lock();
    request.targets = {"linux-x86_64-cu126", "windows-x86_64-cu126"};
    request.python = "3.12";
    auto input = read_uv_lock(request);
    EXPECT_EQ(ids(input.lockfile),
              (std::vector<std::string>{"linux-x86_64-cu126", "windows-x86_64-cu126"}));
    EXPECT_EQ(input.lockfile.name, "nari-tts");
    EXPECT_EQ(input.lockfile.default_target, "linux-x86_64-cu126");
    EXPECT_FALSE(input.stale) << *input.stale;
    const auto* linux = input.lockfile.find_target("linux-x86_64-cu126");
    ASSERT_NE(linux, nullptr);
    EXPECT_EQ(linux->python.substr(0, 5), "3.12.");
    EXPECT_EQ(linux->packages.size(), 123u);
    ASSERT_NE(linux->find("torch"), nullptr);
    EXPECT_EQ(linux->find("torch")->version, "2.6.0+cu126");
    EXPECT_EQ(linux->find("torch")->index, "torch cu126");
    const auto* windows = input.lockfile.find_target("windows-x86_64-cu126");
    ASSERT_NE(windows, nullptr);
    EXPECT_NE(windows->find("triton-windows"), nullptr);
    EXPECT_EQ(windows->find("triton"), nullptr);
    // Written and read back, it is the same lock (every file hashed, every name resolvable).
    const auto text = lock::write_lockfile(input.lockfile);
    auto back = lock::parse_lockfile(text, "dia.lock.yml");
    ASSERT_TRUE(back) << back.error().describe();
    EXPECT_EQ(ids(*back), ids(input.lockfile));
    EXPECT_EQ(back->indexes.size(), 2u);
}

TEST(UvLockInput, ABackendTheLockDoesNotGiveIsRefused) {
    Project dia("nari-labs_dia");
    UvLockRequest request;
    request.path = dia.lock();
    request.targets = {"linux-x86_64-cu128"};
    try {
        read_uv_lock(request);
        FAIL() << "converted";
    } catch (const util::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("gives no cu128 build for linux-x86_64 (it gives "
                                             "linux-x86_64-cu126)"),
                  std::string::npos)
            << e.what();
    }
}

TEST(UvLockInput, FishSpeechGivesOneTargetPerBackendExtra) {
    Project fish("fishaudio_fish-speech");
    const auto machine = linux_machine();
    UvLockRequest request;
    request.path = fish.lock();
    request.machine = &machine;
    auto input = read_uv_lock(request);
    EXPECT_EQ(ids(input.lockfile),
              (std::vector<std::string>{"linux-x86_64-cpu", "linux-x86_64-cu126",
                                        "linux-x86_64-cu128", "linux-x86_64-cu129"}));
    EXPECT_EQ(input.chosen_by.at("linux-x86_64-cu128"), "extra 'cu128'");
    EXPECT_EQ(input.lockfile.find_target("linux-x86_64-cu126")->find("torch")->version,
              "2.8.0+cu126");
    EXPECT_EQ(input.lockfile.find_target("linux-x86_64-cpu")->find("torch")->version, "2.8.0+cpu");
    auto back = lock::parse_lockfile(lock::write_lockfile(input.lockfile), "fish.lock.yml");
    ASSERT_TRUE(back) << back.error().describe();
}

TEST(UvLockInput, NanochatsGpuExtraIsCu128AndAnExtraGivenNarrowsToIt) {
    Project nanochat("karpathy_nanochat");
    const auto machine = linux_machine();
    UvLockRequest request;
    request.path = nanochat.lock();
    request.machine = &machine;
    auto input = read_uv_lock(request);
    EXPECT_EQ(ids(input.lockfile),
              (std::vector<std::string>{"linux-x86_64-cpu", "linux-x86_64-cu128"}));
    EXPECT_EQ(input.chosen_by.at("linux-x86_64-cu128"), "extra 'gpu'");
    // nanochat's default-groups = []: no dev tools.
    EXPECT_EQ(input.lockfile.find_target("linux-x86_64-cu128")->find("pytest"), nullptr);
    request.options.extras = {"cpu"};
    EXPECT_EQ(ids(read_uv_lock(request).lockfile), (std::vector<std::string>{"linux-x86_64-cpu"}));
}

// InvokeAI's cpu/cuda/rocm/xpu extras (/work/shared/realworld/uv; skipped without it). Its rocm
// extra's triton-rocm wheels and its xpu torch wheels have no hash in the lock: those targets
// are left out, each with the reason, and cpu and cuda remain.
TEST(UvLockInput, InvokeAiGivesOneTargetPerBackendItCanInstall) {
    auto shared = stdfs::path(AITK_TEST_DATA_DIR).parent_path().parent_path();
    stdfs::path found;
    for (int up = 0; up < 2 && found.empty(); ++up) {
        shared = shared.parent_path();
        std::error_code ec;
        if (stdfs::is_directory(shared / "shared" / "realworld" / "uv", ec))
            found = shared / "shared" / "realworld" / "uv";
    }
    if (found.empty()) GTEST_SKIP() << "no ../shared/realworld/uv";
    test::TempDir dir("uv-lock-invokeai");
    stdfs::copy_file(found / "invoke-ai_InvokeAI__uv.lock", dir.path / "uv.lock");
    stdfs::copy_file(found / "invoke-ai_InvokeAI__pyproject.toml", dir.path / "pyproject.toml");
    const auto machine = linux_machine();
    UvLockRequest request;
    request.path = dir.path / "uv.lock";
    request.machine = &machine;
    request.python = "3.12";
    auto input = read_uv_lock(request);
    EXPECT_EQ(ids(input.lockfile),
              (std::vector<std::string>{"linux-x86_64-cpu", "linux-x86_64-cu128"}));
    EXPECT_EQ(input.chosen_by.at("linux-x86_64-cu128"), "extra 'cuda'");
    std::string notes;
    for (const auto& note : input.notes)
        notes += note + "\n";
    EXPECT_NE(notes.find("linux-x86_64-rocm7.1 (extra 'rocm') left out"), std::string::npos)
        << notes;
    EXPECT_NE(notes.find("linux-x86_64-xpu (extra 'xpu') left out"), std::string::npos) << notes;
    EXPECT_NE(notes.find("has no hash in the lock"), std::string::npos) << notes;
    // Named, such a target is an error.
    request.targets = {"linux-x86_64-xpu"};
    EXPECT_THROW(read_uv_lock(request), util::InputError);
}

TEST(UvLockInput, AStaleLockIsAWarningAndRefusedWithLocked) {
    Project dia("nari-labs_dia");
    std::string pyproject = test::read_file(dia.dir.path / "pyproject.toml");
    pyproject.replace(pyproject.find("\"numpy>=2.2.4\""), 14, "\"numpy>=2.3\"");
    test::write_file(dia.dir.path / "pyproject.toml", pyproject);
    UvLockRequest request;
    request.path = dia.lock();
    request.targets = {"linux-x86_64-cu126"};
    auto input = read_uv_lock(request);
    ASSERT_TRUE(input.stale);
    EXPECT_NE(input.stale->find("numpy>=2.3"), std::string::npos) << *input.stale;
    ASSERT_FALSE(input.notes.empty());
    EXPECT_EQ(input.notes.front().rfind("warning: ", 0), 0u);
    request.options.locked = true;
    try {
        read_uv_lock(request);
        FAIL() << "a stale lock passed --locked";
    } catch (const util::Error& e) {
        EXPECT_EQ(e.code(), util::ExitCode::failure);
        EXPECT_NE(std::string(e.what()).find("--locked refuses it"), std::string::npos);
    }
}

TEST(UvLockInput, TheStatusOfAProjectFolder) {
    Project dia("nari-labs_dia");
    auto status = uv_lock_status(dia.dir.path);
    EXPECT_TRUE(status.present);
    EXPECT_TRUE(status.current) << status.reason;
    std::string text = test::read_file(dia.dir.path / "pyproject.toml");
    text.replace(text.find("\"packaging>=25.0\""), 17, "\"packaging>=26.0\"");
    test::write_file(dia.dir.path / "pyproject.toml", text);
    status = uv_lock_status(dia.dir.path);
    EXPECT_FALSE(status.current);
    EXPECT_NE(status.reason.find("dependency group 'dev'"), std::string::npos) << status.reason;
    test::TempDir empty("uv-lock-none");
    EXPECT_FALSE(uv_lock_status(empty.path).present);
}

// verify, export, bundle, mirror and doctor take aitk-env's lockfile: a uv.lock gets the way to
// one instead of a YAML error.
TEST(UvLockInput, OtherCommandsSayHowToConvertIt) {
    Project dia("nari-labs_dia");
    try {
        read_lockfile(dia.lock());
        FAIL() << "read as a lockfile";
    } catch (const util::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("is a uv.lock, not an aitk-env lockfile"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(e.hint().find("aitk-env lock --from"), std::string::npos) << e.hint();
    }
}

// setup -l, sync -l and lock --from read a uv.lock through the one entry point all lock files
// share: the same options, and each target's backend said as a pylock.toml's is.
TEST(UvLockInput, ReadAnyLockReadsAUvLockWithTheSharedOptions) {
    Project fish("fishaudio_fish-speech");
    InputSelection selection;
    auto read = read_any_lock(fish.lock(), lock_read_options(selection, "linux", "x86_64"));
    EXPECT_EQ(ids(read.lock).size(), 4u);
    EXPECT_EQ(read.backend_origin.at("linux-x86_64-cu128"), "extra 'cu128' of uv.lock");
    selection.extras = {"cu126"};
    read = read_any_lock(fish.lock(), lock_read_options(selection, "linux", "x86_64"));
    EXPECT_EQ(ids(read.lock), (std::vector<std::string>{"linux-x86_64-cu126"}));
    // The same flags given with aitk-env's lockfile are refused, not ignored.
    const auto converted = fish.dir.path / "fish.lock.yml";
    test::write_file(converted, lock::write_lockfile(read.lock));
    try {
        read_any_lock(converted, lock_read_options(selection, "linux", "x86_64"));
        FAIL() << "--extra passed with aitk-env's lockfile";
    } catch (const util::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("choose among the installs of a pylock.toml or a "
                                             "uv.lock"),
                  std::string::npos)
            << e.what();
    }
}

TEST(UvLockInput, IsUvLockByItsName) {
    EXPECT_EQ(lock_file_kind("uv.lock"), LockFileKind::uv_lock);
    EXPECT_EQ(lock_file_kind("/x/nari-labs_dia__uv.lock"), LockFileKind::uv_lock);
    EXPECT_EQ(lock_file_kind("lockfiles/ai-toolkit.lock.yml"), LockFileKind::aitk);
    EXPECT_EQ(lock_file_kind("pylock.toml"), LockFileKind::pylock);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
