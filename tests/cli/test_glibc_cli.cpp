// A Linux target's glibc, found and recorded (issue 34), through the real binary against a local
// index: a lock takes every manylinux level (the newest version even where only its
// manylinux_2_31 wheel fits) and records the glibc floor its wheels set and who sets it; the
// same lock is refused (exit 3, with the fix) on a machine with an older glibc and installs on a
// newer one; `--glibc X.Y` (or the input's own setting) caps it and the resolver takes older
// versions; what no version can satisfy under the cap says which glibc it needs; the lock's
// bytes do not depend on the machine's glibc. The machine's glibc is AITK_ENV_GLIBC_VERSION.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "os_cap_cli_fixture.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";

// vllm: 0.19.1 ships manylinux_2_31 wheels only, 0.18.0 a manylinux2014 one (as vllm does).
// fastpkg: one version, two Linux wheels (2.28 and 2.17). mooncake: manylinux_2_35 only.
// tbserver: a manylinux_2_31 wheel and a pure one (as tensorboard-data-server 0.7.2).
// armonly: wheels for every platform but this target's.
class GlibcCli : public OsCapCliTest<GlibcCli> {
  public:
    static constexpr const char* mirror_json = R"({
            "indexes": {"simple": {}},
            "wheels": [
              {"index": "simple", "name": "vllm", "version": "0.19.1",
               "tags": ["cp38-abi3-manylinux_2_31_x86_64", "cp38-abi3-manylinux_2_31_aarch64"]},
              {"index": "simple", "name": "vllm", "version": "0.18.0",
               "tags": ["cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64"]},
              {"index": "simple", "name": "fastpkg", "version": "1.0",
               "tags": ["cp312-cp312-manylinux_2_28_x86_64",
                        "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"]},
              {"index": "simple", "name": "mooncake", "version": "1.0",
               "tags": ["cp312-cp312-manylinux_2_35_x86_64"]},
              {"index": "simple", "name": "tbserver", "version": "0.7.2",
               "tags": ["py3-none-manylinux_2_31_x86_64"]},
              {"index": "simple", "name": "tbserver", "version": "0.7.2"},
              {"index": "simple", "name": "armonly", "version": "1.0",
               "tags": ["cp312-cp312-manylinux_2_17_aarch64", "cp312-cp312-musllinux_1_2_x86_64",
                        "cp312-cp312-win_amd64"]}
            ]})";

  protected:
    // `lock` of requirements.txt for linux-x86_64-cpu, Python 3.12.1, into env.lock.yml.
    CliResult lock(std::vector<std::string> extra = {}, std::vector<std::string> env = {}) {
        return lock_for("linux-x86_64-cpu", std::move(extra), std::move(env));
    }
};

// (a) The newest version is taken although its only Linux x86_64 wheel needs glibc 2.31 (the
// old rule assumed 2.28 and silently took 0.18.0); of fastpkg's two wheels the one that needs
// the older glibc; the floor and the package that sets it are recorded in the target.
TEST_F(GlibcCli, LockTakesTheNewestVersionAndRecordsTheGlibcFloor) {
    write("requirements.txt", "vllm\nfastpkg\n");
    auto locked = lock();
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    const std::string text = read("env.lock.yml");
    EXPECT_NE(text.find("vllm==0.19.1 --hash=sha256:"), std::string::npos) << text;
    EXPECT_NE(text.find("filename: vllm-0.19.1-cp38-abi3-manylinux_2_31_x86_64.whl"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("filename: fastpkg-1.0-cp312-cp312-manylinux_2_17_x86_64."
                        "manylinux2014_x86_64.whl"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("      python: 3.12.1\n"
                        "      glibc:\n"
                        "        floor: \"2.31\"\n"
                        "        set-by: [vllm]\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("cap:"), std::string::npos) << text;
    EXPECT_NE(locked.err.find("linux-x86_64-cpu: 2 packages (Python 3.12.1, glibc ≥ 2.31 for "
                              "vllm)"),
              std::string::npos)
        << locked.err;
}

// A compiled wheel does not raise the floor where a pure wheel of the same version does as well:
// with fastpkg (2.17) tbserver's pure wheel is taken; once vllm needs 2.31 anyway, its
// manylinux_2_31 one.
TEST_F(GlibcCli, ACompiledWheelDoesNotRaiseTheFloorWhereAPureOneWouldDo) {
    write("requirements.txt", "tbserver\nfastpkg\n");
    ASSERT_EQ(lock().exit_code, 0);
    std::string text = read("env.lock.yml");
    EXPECT_NE(text.find("filename: tbserver-0.7.2-py3-none-any.whl"), std::string::npos) << text;
    EXPECT_NE(text.find("        floor: \"2.17\"\n"
                        "        set-by: [fastpkg]\n"),
              std::string::npos)
        << text;

    write("requirements.txt", "tbserver\nfastpkg\nvllm\n");
    ASSERT_EQ(lock({"--upgrade"}).exit_code, 0);
    text = read("env.lock.yml");
    EXPECT_NE(text.find("filename: tbserver-0.7.2-py3-none-manylinux_2_31_x86_64.whl"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("        floor: \"2.31\"\n"
                        "        set-by: [tbserver, vllm]\n"),
              std::string::npos)
        << text;
}

// (f) The lock does not depend on the glibc of the machine that makes it.
TEST_F(GlibcCli, TheLockIsTheSameBytesWhateverTheMachinesGlibc) {
    write("requirements.txt", "vllm\nfastpkg\n");
    ASSERT_EQ(lock({}, {"AITK_ENV_GLIBC_VERSION=2.17"}).exit_code, 0);
    const std::string old_machine = read("env.lock.yml");
    stdfs::remove(work.path() / "env.lock.yml");
    ASSERT_EQ(lock({}, {"AITK_ENV_GLIBC_VERSION=2.39"}).exit_code, 0);
    EXPECT_EQ(read("env.lock.yml"), old_machine);
}

// The same for a lock made for this machine (no --target): its glibc chooses nothing.
TEST_F(GlibcCli, ALockForThisMachineIsTheSameBytesWhateverItsGlibc) {
    write("requirements.txt", "vllm\nfastpkg\n");
    std::vector<std::string> args = {
        "lock", "-r", path("requirements.txt"), "-o", path("here.lock.yml"), "--python", "3.12.1"};
    auto old_glibc = run(args, {"AITK_ENV_GLIBC_VERSION=2.17"});
    ASSERT_EQ(old_glibc.exit_code, 0) << old_glibc.err;
    const std::string first = read("here.lock.yml");
    stdfs::remove(work.path() / "here.lock.yml");
    ASSERT_EQ(run(args, {"AITK_ENV_GLIBC_VERSION=2.39"}).exit_code, 0);
    EXPECT_EQ(read("here.lock.yml"), first);
    EXPECT_NE(first.find("vllm==0.19.1"), std::string::npos) << first;
}

// (b) setup -l, doctor -l and sync on a machine whose glibc is older than the floor: exit 3
// naming the package, the glibc its wheel needs, the machine's, and the fix; nothing is made.
// On a newer machine the same lock installs.
TEST_F(GlibcCli, AnOlderGlibcIsRefusedWithTheFixANewerOneInstalls) {
    write("requirements.txt", "vllm\nfastpkg\n");
    ASSERT_EQ(lock().exit_code, 0);
    const std::vector<std::string> setup = {"setup", "-l",           path("env.lock.yml"),
                                            "-p",    path("prefix"), "--no-smoke-test"};
    auto refused = run(setup, {"AITK_ENV_GLIBC_VERSION=2.28"});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_NE(refused.err.find("vllm 0.19.1 needs glibc ≥ 2.31 (manylinux_2_31_x86_64), this "
                               "machine has glibc 2.28"),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("hint: run it on a newer OS (glibc ≥ 2.31), or lock older "
                               "versions that run here: aitk-env lock --glibc 2.28"),
              std::string::npos)
        << refused.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "prefix"));

    auto doctor =
        run({"doctor", "-l", path("env.lock.yml"), "--json"}, {"AITK_ENV_GLIBC_VERSION=2.28"});
    EXPECT_EQ(doctor.exit_code, 3) << doctor.out << doctor.err;
    const auto report = nlohmann::json::parse(doctor.out);
    const auto& verdict = report["lock"]["targets"][0];
    EXPECT_EQ(verdict["runs"], false);
    EXPECT_NE(verdict["why"].get<std::string>().find("needs glibc ≥ 2.31"), std::string::npos)
        << verdict;
    EXPECT_NE(report["lock"]["fix"].get<std::string>().find("--glibc 2.28"), std::string::npos)
        << report["lock"];

    if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
    auto installed = run(setup, {"AITK_ENV_GLIBC_VERSION=2.36"});
    ASSERT_EQ(installed.exit_code, 0) << installed.err;
    EXPECT_TRUE(stdfs::exists(work.path() / "prefix"));

    // sync of that prefix on an older machine: refused too, the prefix as it was.
    auto sync = run({"sync", "-l", path("env.lock.yml"), "-p", path("prefix")},
                    {"AITK_ENV_GLIBC_VERSION=2.28"});
    EXPECT_EQ(sync.exit_code, 3) << sync.err;
    EXPECT_NE(sync.err.find("vllm 0.19.1 needs glibc ≥ 2.31"), std::string::npos) << sync.err;
    EXPECT_NE(sync.err.find("aitk-env lock --glibc 2.28"), std::string::npos) << sync.err;
}

// setup that locks first: the same refusal on an older machine; `setup --glibc` locks what
// runs there and installs it.
TEST_F(GlibcCli, SetupThatLocksIsRefusedAlikeAndItsGlibcCapInstalls) {
    write("requirements.txt", "vllm\nfastpkg\n");
    const std::vector<std::string> setup = {"setup",
                                            "-r",
                                            path("requirements.txt"),
                                            "--project",
                                            work.path().string(),
                                            "-p",
                                            path("prefix"),
                                            "--python",
                                            "3.12.1",
                                            "--no-smoke-test"};
    auto refused = run(setup, {"AITK_ENV_GLIBC_VERSION=2.28"});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_NE(refused.err.find("vllm 0.19.1 needs glibc ≥ 2.31"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("aitk-env lock --glibc 2.28"), std::string::npos) << refused.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "prefix"));

    if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
    // The lock the refused setup wrote pins 0.19.1, which no wheel under the cap has.
    auto capped = setup;
    capped.insert(capped.end(), {"--glibc", "2.28"});
    auto installed = run(capped, {"AITK_ENV_GLIBC_VERSION=2.28"});
    ASSERT_EQ(installed.exit_code, 0) << installed.err;
    const std::string text = read("lockfiles/requirements.lock.yml");
    EXPECT_NE(text.find("vllm==0.18.0"), std::string::npos) << text;
    EXPECT_NE(text.find("cap: \"2.28\""), std::string::npos) << text;
}

// (c) --glibc 2.28 takes the older version whose wheel runs there, and is recorded (and counts
// in the input hash: the uncapped lock is stale for it).
TEST_F(GlibcCli, AGlibcCapTakesTheOlderVersion) {
    write("requirements.txt", "vllm\nfastpkg\n");
    auto capped = lock({"--glibc", "2.28"});
    ASSERT_EQ(capped.exit_code, 0) << capped.err;
    const std::string text = read("env.lock.yml");
    EXPECT_NE(text.find("vllm==0.18.0 --hash=sha256:"), std::string::npos) << text;
    EXPECT_NE(text.find("      glibc:\n"
                        "        cap: \"2.28\"\n"
                        "        floor: \"2.17\"\n"
                        "        set-by: [fastpkg, vllm]\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(lock({"--glibc", "2.28", "--check"}).exit_code, 0);
    auto stale = lock({"--check"});
    EXPECT_EQ(stale.exit_code, 1) << stale.err;
}

// A lock made under the cap runs on a machine with that glibc: doctor -l chooses its target.
TEST_F(GlibcCli, ALockUnderTheCapRunsOnThatGlibc) {
    write("requirements.txt", "vllm\nfastpkg\n");
    ASSERT_EQ(lock({"--glibc", "2.28"}).exit_code, 0);
    auto doctor =
        run({"doctor", "-l", path("env.lock.yml"), "--json"}, {"AITK_ENV_GLIBC_VERSION=2.28"});
    EXPECT_NE(doctor.exit_code, 3) << doctor.out << doctor.err;
    EXPECT_EQ(nlohmann::json::parse(doctor.out)["lock"]["chosen"], "linux-x86_64-cpu")
        << doctor.out;
}

// The input's own cap: [tool.aitk-env] glibc in a pyproject.toml, and --glibc over it (with
// --upgrade: otherwise the lock's 0.18.0 is kept, as any locked version that still fits is).
TEST_F(GlibcCli, APyprojectCapsItsLockAndGlibcWinsOverIt) {
    stdfs::create_directories(work.path() / "proj");
    write("proj/pyproject.toml",
          "[project]\nname = \"capped\"\nversion = \"1.0\"\ndependencies = [\"vllm\"]\n\n"
          "[tool.aitk-env]\nglibc = \"2.28\"\n");
    const std::vector<std::string> args = {"lock",   "--project", path("proj"),      "--python",
                                           "3.12.1", "--target",  "linux-x86_64-cpu"};
    auto capped = run(args);
    ASSERT_EQ(capped.exit_code, 0) << capped.err;
    const std::string text = read("proj/lockfiles/capped.lock.yml");
    EXPECT_NE(text.find("vllm==0.18.0"), std::string::npos) << text;
    EXPECT_NE(text.find("cap: \"2.28\""), std::string::npos) << text;

    auto over = run({"lock", "--project", path("proj"), "--python", "3.12.1", "--target",
                     "linux-x86_64-cpu", "--glibc", "2.35", "--upgrade"});
    ASSERT_EQ(over.exit_code, 0) << over.err;
    EXPECT_NE(read("proj/lockfiles/capped.lock.yml").find("vllm==0.19.1"), std::string::npos);

    write("proj/pyproject.toml",
          "[project]\nname = \"capped\"\nversion = \"1.0\"\ndependencies = [\"vllm\"]\n\n"
          "[tool.aitk-env]\nglibc = \"two\"\n");
    auto bad = run(args);
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("pyproject.toml:7:9"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("expected MAJOR.MINOR such as 2.28"), std::string::npos) << bad.err;
}

// (d) A package whose every version needs a newer glibc than the cap: exit 3 naming it.
TEST_F(GlibcCli, APackageThatNeedsANewerGlibcThanTheCapIsUnsatisfiable) {
    write("requirements.txt", "mooncake\n");
    auto refused = lock({"--glibc", "2.28"});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_NE(refused.err.find("mooncake 1.0 needs glibc ≥ 2.35 (manylinux_2_35_x86_64); this "
                               "target: ≤ 2.28 (--glibc 2.28)"),
              std::string::npos)
        << refused.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "env.lock.yml"));

    // A pinned version whose wheels need more, while an older one fits: the pin's reason.
    write("requirements.txt", "vllm==0.19.1\n");
    auto pinned = lock({"--glibc", "2.28"});
    EXPECT_EQ(pinned.exit_code, 3) << pinned.err;
    EXPECT_NE(pinned.err.find("vllm 0.19.1 needs glibc ≥ 2.31 (manylinux_2_31_x86_64); this "
                              "target: ≤ 2.28 (--glibc 2.28)"),
              std::string::npos)
        << pinned.err;
}

// "Other platforms or Pythons": per wheel, which part of its tag fails and why.
TEST_F(GlibcCli, OtherPlatformsSayWhichPartOfTheTagFails) {
    write("requirements.txt", "armonly\n");
    auto refused = lock();
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    for (const char* part : {"its 3 wheels are for other platforms or Pythons (",
                             "manylinux_2_17_aarch64: another architecture (this target: x86_64)",
                             "musllinux_1_2_x86_64: for musl, not glibc",
                             "win_amd64: another OS (this target: Linux)"}) {
        EXPECT_NE(refused.err.find(part), std::string::npos) << part << "\n" << refused.err;
    }
}

// (e) A --glibc that is not a glibc: exit 2 with what, where and the fix, before any work.
TEST_F(GlibcCli, ABadGlibcValueIsABadInput) {
    write("requirements.txt", "vllm\n");
    for (const char* bad : {"3", "abc", "3.0", "2.2"}) {
        auto refused = lock({"--glibc", bad});
        EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
        EXPECT_NE(
            refused.err.find(std::string("error: --glibc ") + bad + ": glibc \"" + bad + "\": "),
            std::string::npos)
            << refused.err;
        EXPECT_NE(refused.err.find("hint: give the newest glibc the target's machines have, such "
                                   "as --glibc 2.28"),
                  std::string::npos)
            << refused.err;
    }
    EXPECT_FALSE(stdfs::exists(work.path() / "env.lock.yml"));
    auto with_lock = run({"setup", "-l", path("env.lock.yml"), "-p", path("p"), "--glibc", "2.28"});
    EXPECT_EQ(with_lock.exit_code, 2) << with_lock.err;
    EXPECT_NE(with_lock.err.find("is locked already"), std::string::npos) << with_lock.err;
    auto bad_machine = run({"doctor", "-l", path("env.lock.yml")}, {"AITK_ENV_GLIBC_VERSION=new"});
    EXPECT_EQ(bad_machine.exit_code, 2) << bad_machine.err;
    EXPECT_NE(bad_machine.err.find("AITK_ENV_GLIBC_VERSION: expected MAJOR.MINOR"),
              std::string::npos)
        << bad_machine.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
