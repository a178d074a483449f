// A project's own pyproject.toml through the real binary: a project with cpu/cu126/cu128/cu130
// extras, each tied to its explicit PyTorch index and declared conflicting, on simulated
// machines (the backend extra is chosen by hardware, the lock says which); a lock for several
// targets with one extra each; --extra and --backend honoured and checked; torch from an index
// on some platforms only (Dia's style); dependency groups; path, git and dynamic dependencies;
// the current folder as the input; and bad files refused with file:line:column, nothing
// written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../app/source_test_support.hpp"
#include "../platform/fake_machine.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using json = nlohmann::json;

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";
const std::string linux_tag = "cp312-cp312-manylinux_2_28_x86_64";
const std::string windows_tag = "cp312-cp312-win_amd64";
const std::vector<std::string> backends = {"cpu", "cu126", "cu128", "cu130"};

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// torch 2.11.0 on a PyTorch-style index per backend (Linux and Windows wheels) and, for macOS,
// on the PyPI-style one; the other packages on the PyPI-style one.
json scenario() {
    json s;
    s["indexes"] = {{"simple", json::object()}};
    json wheels = json::array();
    for (const auto& b : backends) {
        s["indexes"]["whl/" + b] = {{"style", "pytorch"}};
        wheels.push_back({{"index", "whl/" + b},
                          {"name", "torch"},
                          {"version", "2.11.0+" + b},
                          {"tags", {linux_tag, windows_tag}}});
    }
    wheels.push_back({{"index", "simple"},
                      {"name", "torch"},
                      {"version", "2.11.0"},
                      {"tags", {"cp312-none-macosx_11_0_arm64"}}});
    for (const char* name : {"requests", "cu128-helper", "devtool", "lintpkg", "dep-pkg"})
        wheels.push_back({{"index", "simple"}, {"name", name}, {"version", "1.0"}});
    s["wheels"] = wheels;
    return s;
}

// The test project: the backend by extra, as fish-speech, nanochat and InvokeAI do it.
std::string backend_project(const std::string& server) {
    std::string text = R"([project]
name = "demo-app"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = ["torch==2.11.0", "requests"]

[project.optional-dependencies]
cpu = ["torch==2.11.0"]
cu126 = ["torch==2.11.0"]
cu128 = ["torch==2.11.0", "cu128-helper"]
cu130 = ["torch==2.11.0"]

[dependency-groups]
dev = ["devtool", { include-group = "lint" }]
lint = ["lintpkg"]

[tool.uv]
conflicts = [[{ extra = "cpu" }, { extra = "cu126" }, { extra = "cu128" }, { extra = "cu130" }]]

[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", extra = "cpu" },
  { index = "pytorch-cu126", extra = "cu126" },
  { index = "pytorch-cu128", extra = "cu128" },
  { index = "pytorch-cu130", extra = "cu130" },
]
)";
    for (const auto& b : backends) {
        text += "\n[[tool.uv.index]]\nname = \"pytorch-" + b + "\"\nurl = \"" + server + "/whl/" +
                b + "\"\nexplicit = true\n";
    }
    return text;
}

// The 1-based line of `text` holding `needle`.
std::size_t line_of(const std::string& text, const std::string& needle) {
    auto at = text.find(needle);
    return at == std::string::npos
               ? 0
               : static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

// A machine as the stand-in NVML describes it (loaded through the real dlopen path):
// "d<driver>-sm<capability>", e.g. "d570-sm89" is driver 570 with an RTX 4090.
std::string nvml_config(const std::string& name) {
    const std::map<std::string, std::string> drivers = {{"520", "520.61.05\ncuda=11080"},
                                                        {"535", "535.154.05\ncuda=12020"},
                                                        {"560", "560.35.03\ncuda=12060"},
                                                        {"570", "570.124.06\ncuda=12080"},
                                                        {"580", "580.65.06\ncuda=13000"}};
    const std::map<std::string, std::string> gpus = {
        {"sm61", "NVIDIA GeForce GTX 1080 Ti|11264|6.1"},
        {"sm86", "NVIDIA GeForce RTX 3090|24576|8.6"},
        {"sm89", "NVIDIA GeForce RTX 4090|24564|8.9"},
        {"sm120", "NVIDIA GeForce RTX 5090|32607|12.0"}};
    const auto dash = name.find('-');
    return "driver=" + drivers.at(name.substr(1, dash - 1)) +
           "\ngpu=" + gpus.at(name.substr(dash + 1)) + "\n";
}

class PyprojectCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror = new aitk::fs::TempDir(aitk::fs::TempDir::create("aitk-pyproject-mirror"));
        build_mirror(mirror->path(), scenario());
    }
    static void TearDownTestSuite() { delete mirror; }

    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
        server.serve_directory(mirror->path());
        stdfs::create_directories(project);
        write("pyproject.toml", backend_project(server.url("")));
    }

    void write(const std::string& name, const std::string& text) const {
        stdfs::create_directories((project / name).parent_path());
        aitk::fs::write_file_atomic(project / name, text);
    }
    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    // The binary run in the project's folder on `machine_name`, with CPython 3.12.1 and git on
    // PATH, no proxy, a private cache and the local index as PyPI.
    Outcome aitk(const std::string& machine_name, std::vector<std::string> args,
                 const stdfs::path& cwd = {}) const {
        util::ProcessRequest request;
        request.argv = {AITK_ENV_EXE, "--index-url", server.url("/simple/"), "--no-progress"};
        request.argv.insert(request.argv.end(), args.begin(), args.end());
        request.environment = util::Environment{{"PATH", python_bin + ":/usr/bin:/bin"},
                                                {"HOME", work.path().string()},
                                                {"PYENV_ROOT", "/nonexistent"},
                                                {"AITK_ENV_CACHE_DIR", path("cache")},
                                                {"AITK_ENV_NVIDIA_SOURCES", "nvml"}};
        // "no-gpu": no NVIDIA driver at all; the probe cache keys on the library's path.
        (*request.environment)["AITK_ENV_NVML_LIBRARY"] =
            machine_name == "no-gpu" ? std::string("/nonexistent/libnvidia-ml.so.1")
                                     : install_fake_nvml(work.path() / "machines" / machine_name,
                                                         nvml_config(machine_name))
                                           .string();
        request.working_directory = cwd.empty() ? project : cwd;
        request.timeout = std::chrono::minutes(3);
        auto result = util::run_process(request);
        if (!result) return {-1, "", result.error().message};
        return {result->end == util::ProcessEnd::exited ? result->exit_code : -1, result->out,
                result->err};
    }

    // `setup --dry-run --json` in the project's folder, no input named.
    Outcome dry_run(const std::string& machine_name, std::vector<std::string> more = {}) const {
        std::vector<std::string> args{"setup", "-p", path("prefix"), "--dry-run", "--json"};
        args.insert(args.end(), more.begin(), more.end());
        return aitk(machine_name, args);
    }

    static std::string planned(const json& outcome, const std::string& name) {
        for (const auto& p : outcome["sync"]["install"]) {
            if (p["name"] == name) return p["version"];
        }
        return "";
    }

    static bool has_note(const json& outcome, const std::string& text) {
        for (const auto& n : outcome["notes"]) {
            if (n.get<std::string>().find(text) != std::string::npos) return true;
        }
        return false;
    }

    lock::Lockfile read_lock(const stdfs::path& file) const {
        auto parsed = lock::parse_lockfile(aitk::fs::read_file(file), file.string());
        EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().describe());
        return parsed ? std::move(*parsed) : lock::Lockfile{};
    }

    static std::string version_in(const lock::LockedTarget& target, const std::string& name) {
        const auto* p = target.find(name);
        return p ? p->version : std::string();
    }

    // "extra 'cu128' of pyproject.toml:<line of its source>"
    std::string extra_note(const std::string& extra, const std::string& label = "pyproject.toml") {
        const auto text = aitk::fs::read_file(project / "pyproject.toml");
        return "backend " + extra + ": extra '" + extra + "' of " + label + ":" +
               std::to_string(line_of(text, "pytorch-" + extra + "\", extra"));
    }

    static inline aitk::fs::TempDir* mirror = nullptr;
    HttpServer server;
    aitk::fs::TempDir work = aitk::fs::TempDir::create("aitk-pyproject-work");
    stdfs::path project = work.path() / "demo";
};

// The four machines of the issue (the stand-in NVML describes each), and two more: each gets the
// extra of the build it runs, the output says which extra of which line; nothing that runs is exit
// 3 with the fix, never a silent CPU build. The choice is aitk-env's usual one
// (docs/data-sources.md §1): a build whose own toolkit driver the machine has comes first, newest
// first; else the one nearest the driver that runs through minor-version compatibility (driver 535
// runs cu126). A GTX 1080 (sm_61) runs only cu126 (cu128 and cu130 carry no kernels for it); a
// Blackwell GPU needs an R570 driver, and a driver older than CUDA 12 runs nothing.
TEST_F(PyprojectCli, EachMachineGetsTheExtraOfTheBuildItRuns) {
    struct Cell {
        std::string machine;
        std::string torch;
    };
    for (const Cell& cell : std::vector<Cell>{{"no-gpu", "2.11.0+cpu"},
                                              {"d570-sm89", "2.11.0+cu128"},
                                              {"d535-sm86", "2.11.0+cu126"},
                                              {"d580-sm61", "2.11.0+cu126"},
                                              {"d580-sm89", "2.11.0+cu130"}}) {
        SCOPED_TRACE(cell.machine);
        auto r = dry_run(cell.machine);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto outcome = json::parse(r.out);
        EXPECT_EQ(outcome["input"], "pyproject.toml (PEP 621 + tool.uv)");
        EXPECT_EQ(planned(outcome, "torch"), cell.torch);
        const std::string backend = cell.torch.substr(cell.torch.find('+') + 1);
        EXPECT_TRUE(has_note(outcome, extra_note(backend))) << outcome["notes"];
        // The extra's own requirements come with its backend only.
        EXPECT_EQ(planned(outcome, "cu128-helper"), backend == "cu128" ? "1.0" : "");
        EXPECT_EQ(planned(outcome, "devtool"), "1.0");  // uv's default group
    }
    // An RTX 5090 on driver 560, which does not know Blackwell GPUs: exit 3 with the fix.
    auto blackwell = dry_run("d560-sm120");
    EXPECT_EQ(blackwell.exit_code, 3) << blackwell.err;
    EXPECT_EQ(blackwell.out, "");
    EXPECT_NE(blackwell.err.find("update the driver to ≥ 570 (the first driver for Blackwell GPUs"),
              std::string::npos)
        << blackwell.err;
    // An RTX 5090 on a driver older than CUDA 12: exit 3 and the fix, not the cpu extra.
    auto r = dry_run("d520-sm120");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(r.out, "");
    // 570 both runs CUDA 12 and knows the GPU.
    EXPECT_NE(r.err.find("update the driver to ≥ 570"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("driver 520.61.05 (nvml)"), std::string::npos) << r.err;  // detected
    EXPECT_NE(r.err.find("cu130, cu128 are the builds of torch 2.11.0"), std::string::npos)
        << r.err;
    EXPECT_FALSE(stdfs::exists(path("prefix")));
}

TEST_F(PyprojectCli, TheHumanOutputSaysWhatWasReadAndWhichExtra) {
    // setup says what it read on its first line, before the work that takes minutes.
    const std::string first_line = "input: pyproject.toml (PEP 621 + tool.uv)\n";
    auto r = aitk("d570-sm89", {"setup", "-p", path("prefix"), "--dry-run"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.starts_with(first_line)) << r.err;
    EXPECT_NE(r.err.find("note: " + extra_note("cu128")), std::string::npos) << r.err;
    // A setup that fails after reading the project has said what it read all the same.
    r = aitk("d520-sm120", {"setup", "-p", path("prefix")});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_TRUE(r.err.starts_with(first_line)) << r.err;
    EXPECT_EQ(r.err.find("input: ", 1), std::string::npos) << r.err;  // said once
    r = aitk("d570-sm89", {"lock"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.starts_with("input: pyproject.toml (PEP 621 + tool.uv)\n")) << r.err;
    EXPECT_NE(r.err.find("note: " + extra_note("cu128")), std::string::npos) << r.err;
    EXPECT_TRUE(stdfs::exists(project / "lockfiles" / "demo-app.lock.yml"));
    // A lock given with -l is what setup reads.
    r = aitk("d570-sm89",
             {"setup", "-p", path("prefix"), "--dry-run", "-l", "lockfiles/demo-app.lock.yml"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.starts_with("input: demo-app.lock.yml (lockfile)\n")) << r.err;
}

// doctor reads the project as setup does, says what it read and which extra of which line the
// backend it judges comes from.
TEST_F(PyprojectCli, DoctorNamesTheProjectsExtraForThisMachine) {
    for (const auto& [machine_name, backend] : std::vector<std::pair<std::string, std::string>>{
             {"d570-sm89", "cu128"}, {"d580-sm61", "cu126"}, {"no-gpu", "cpu"}}) {
        SCOPED_TRACE(machine_name);
        auto r = aitk(machine_name, {"doctor"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.out.find("  input     pyproject.toml (PEP 621 + tool.uv)\n"), std::string::npos)
            << r.out;
        EXPECT_NE(
            r.out.find("  backend   " + backend + "\n  source    " +
                       extra_note(backend).substr(("backend " + backend + ": ").size()) + "\n"),
            std::string::npos)
            << r.out;
        r = aitk(machine_name, {"--json", "doctor"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const auto report = json::parse(r.out);
        EXPECT_EQ(report["input"], "pyproject.toml (PEP 621 + tool.uv)");
        // AI Toolkit's hardware profiles (FLUX LoRA, …) say nothing about this project.
        EXPECT_EQ(report["profiles"], json::array());
        EXPECT_EQ(report["backend_source"],
                  extra_note(backend).substr(("backend " + backend + ": ").size()));
    }
    // --extra names the backend as --backend would: judged, and refused where it cannot run.
    auto r = aitk("d580-sm61", {"doctor", "--extra", "cu128"});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.out.find("no kernels for sm_61"), std::string::npos) << r.out;
}

// The whole way on a GPU machine: setup in the project's folder installs the cu128 extra's set
// into a real prefix, and verify finds it as locked.
TEST_F(PyprojectCli, SetupInstallsTheExtraThisMachineRunsAndVerifyAgrees) {
    auto r = aitk("d570-sm89", {"setup", "-p", path("prefix"), "--no-smoke-test"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.starts_with("input: pyproject.toml (PEP 621 + tool.uv)\n")) << r.err;
    EXPECT_NE(r.err.find("target   linux-x86_64-cu128"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(extra_note("cu128")), std::string::npos) << r.err;
    const auto lock = read_lock(project / "lockfiles" / "demo-app.lock.yml");
    ASSERT_EQ(lock.targets.size(), 1u);
    EXPECT_EQ(version_in(lock.targets.front(), "torch"), "2.11.0+cu128");
    EXPECT_EQ(version_in(lock.targets.front(), "cu128-helper"), "1.0");
    auto verified = aitk("d570-sm89", {"verify", "-p", path("prefix")});
    EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
}

TEST_F(PyprojectCli, ALockOfSeveralTargetsTakesEachTargetsExtra) {
    auto r = aitk("no-gpu",
                  {"lock", "--project", project.string(), "--target", "linux-x86_64-cpu",
                   "--target", "linux-x86_64-cu128", "--target", "windows-x86_64-cu126"},
                  work.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string label = (project / "pyproject.toml").string();
    EXPECT_NE(r.err.find("linux-x86_64-cu128: " + extra_note("cu128", label)), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("windows-x86_64-cu126: " + extra_note("cu126", label)), std::string::npos)
        << r.err;
    auto lock = read_lock(project / "lockfiles" / "demo-app.lock.yml");
    ASSERT_EQ(lock.targets.size(), 3u);
    EXPECT_EQ(version_in(*lock.find_target("linux-x86_64-cpu"), "torch"), "2.11.0+cpu");
    EXPECT_EQ(version_in(*lock.find_target("linux-x86_64-cu128"), "torch"), "2.11.0+cu128");
    EXPECT_EQ(version_in(*lock.find_target("windows-x86_64-cu126"), "torch"), "2.11.0+cu126");
    EXPECT_EQ(version_in(*lock.find_target("linux-x86_64-cu128"), "cu128-helper"), "1.0");
    EXPECT_EQ(version_in(*lock.find_target("linux-x86_64-cpu"), "cu128-helper"), "");

    // A backend the project has no source for is refused by name, and nothing is written.
    stdfs::remove_all(project / "lockfiles");
    r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cu118"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("takes torch on linux-x86_64 only from cu130"), std::string::npos)
        << r.err;
    EXPECT_FALSE(stdfs::exists(project / "lockfiles"));
}

TEST_F(PyprojectCli, ExtraAndBackendGivenByTheUserWinAndAreChecked) {
    // cu126 runs on driver 570 too: asked for, it is what gets installed.
    auto r = dry_run("d570-sm89", {"--extra", "cu126"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(planned(json::parse(r.out), "torch"), "2.11.0+cu126");
    // The CPU build on a GPU machine, asked for by its extra.
    r = dry_run("d570-sm89", {"--extra", "cpu"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(planned(json::parse(r.out), "torch"), "2.11.0+cpu");
    // cu130 needs driver 580: refused, with what detection would pick.
    r = dry_run("d570-sm89", {"--extra", "cu130"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("--extra cu130"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("detection picks cu128"), std::string::npos) << r.err;
    // Two builds at once.
    r = dry_run("d570-sm89", {"--extra", "cu126", "--backend", "cu128"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("ask for two torch builds"), std::string::npos) << r.err;
    // --backend alone is checked against the project's builds too.
    r = dry_run("d570-sm89", {"--backend", "cu126"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(planned(json::parse(r.out), "torch"), "2.11.0+cu126");
    r = dry_run("no-gpu", {"--extra", "nope"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--extra nope: the project defines no such extra"), std::string::npos);
    // -r names the file as `uv pip install -r pyproject.toml` does.
    r = aitk("no-gpu",
             {"lock", "-r", (project / "pyproject.toml").string(), "-o", path("by-name.lock.yml")},
             work.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto by_name = read_lock(path("by-name.lock.yml"));
    EXPECT_EQ(version_in(by_name.targets.front(), "torch"), "2.11.0+cpu");
}

TEST_F(PyprojectCli, DependencyGroupsAndTheirFlags) {
    const std::string output = path("groups.lock.yml");
    auto packages = [&](const std::vector<std::string>& more) {
        std::vector<std::string> args = {"lock", "--target", "linux-x86_64-cpu", "-o", output};
        args.insert(args.end(), more.begin(), more.end());
        auto r = aitk("no-gpu", args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        std::string names;
        const auto lock = read_lock(output);
        for (const auto& p : lock.targets.front().packages)
            names += p.name + " ";
        return names;
    };
    EXPECT_EQ(packages(std::vector<std::string>()), "devtool lintpkg requests torch ");
    EXPECT_EQ(packages(std::vector<std::string>{"--no-default-groups"}), "requests torch ");
    EXPECT_EQ(packages(std::vector<std::string>{"--no-default-groups", "--group", "lint"}),
              "lintpkg requests torch ");
    // `-r pyproject.toml` is `uv pip install -r pyproject.toml`: the requirements and the groups
    // asked for, not uv sync's default groups.
    EXPECT_EQ(packages(std::vector<std::string>{"-r", "pyproject.toml"}), "requests torch ");
    EXPECT_EQ(packages(std::vector<std::string>{"-r", "pyproject.toml", "--group", "lint"}),
              "lintpkg requests torch ");
    auto r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu", "--group", "nope"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--group nope"), std::string::npos) << r.err;
}

// Dia's style: torch from the cu126 index on Linux and Windows only, from PyPI elsewhere.
TEST_F(PyprojectCli, MarkerLimitedSourcesArePerPlatformBackends) {
    write("pyproject.toml", R"([project]
name = "tts"
version = "0.1.0"
dependencies = ["torch==2.11.0", "requests"]

[tool.uv.sources]
torch = [
  { index = "pytorch-cu126", marker = "sys_platform == 'linux' or sys_platform == 'win32'" },
]

[[tool.uv.index]]
name = "pytorch-cu126"
url = ")" + server.url("/whl/cu126") +
                                R"("
explicit = true
)");
    auto r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cu126", "--target",
                             "windows-x86_64-cu126", "--target", "macos-arm64-mps"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("linux-x86_64-cu126: backend cu126: the torch source of "
                         "pyproject.toml:8"),
              std::string::npos)
        << r.err;
    auto lock = read_lock(project / "lockfiles" / "tts.lock.yml");
    EXPECT_EQ(version_in(*lock.find_target("linux-x86_64-cu126"), "torch"), "2.11.0+cu126");
    EXPECT_EQ(version_in(*lock.find_target("windows-x86_64-cu126"), "torch"), "2.11.0+cu126");
    EXPECT_EQ(version_in(*lock.find_target("macos-arm64-mps"), "torch"), "2.11.0");

    // On Linux the project's only build is cu126: a machine without a GPU is told how to get it
    // anyway, not handed another build.
    r = dry_run("no-gpu");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("takes torch on linux-x86_64 only from cu126"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("add --force"), std::string::npos) << r.err;
    r = dry_run("no-gpu", {"--backend", "cu126", "--force"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(planned(json::parse(r.out), "torch"), "2.11.0+cu126");
    r = dry_run("d570-sm89");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(planned(json::parse(r.out), "torch"), "2.11.0+cu126");
}

// A project with a build system, its dependencies dynamic (only its backend knows them), one of
// them from a local folder (editable) and one from a git tag; the project itself installed
// editable.
TEST_F(PyprojectCli, PathGitAndDynamicDependencies) {
    namespace st = app::source_test;
    st::SourceProject root;
    root.backend.name = "dyn_app";
    root.backend.version = "0.3.0";
    root.requires_dist = {"dep-pkg>=1.0", "mylib", "gitpkg"};
    root.editable_hook = true;
    st::write_project(project, root);
    st::SourceProject mylib;
    mylib.backend.name = "mylib";
    mylib.backend.version = "1.1";
    mylib.editable_hook = true;
    st::write_project(project / "libs" / "mylib", mylib);
    st::SourceProject gitpkg;
    gitpkg.backend.name = "gitpkg";
    gitpkg.backend.version = "2.0";
    const auto repo = work.path() / "gitpkg-repo";
    const auto commit = st::make_repository(repo, gitpkg);
    build::test::git(repo, {"tag", "v2.0"});
    write("pyproject.toml", st::pyproject_text(root) + R"(
[project]
name = "dyn-app"
version = "0.3.0"
dynamic = ["dependencies"]

[tool.uv.sources]
mylib = { path = "libs/mylib", editable = true }
gitpkg = { git = ")" + build::test::file_url(repo) +
                                R"(", tag = "v2.0" }
)");
    auto r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lock = read_lock(project / "lockfiles" / "dyn-app.lock.yml");
    const auto& target = lock.targets.front();
    EXPECT_EQ(version_in(target, "dep-pkg"), "1.0");
    const auto* self = target.find("dyn-app");
    ASSERT_TRUE(self && self->source);
    EXPECT_EQ(self->source->kind, lock::SourceKind::directory);
    EXPECT_TRUE(self->source->editable);
    const auto* lib = target.find("mylib");
    ASSERT_TRUE(lib && lib->source);
    EXPECT_EQ(lib->source->kind, lock::SourceKind::directory);
    EXPECT_TRUE(lib->source->editable);
    EXPECT_EQ(lib->version, "1.1");
    const auto* git = target.find("gitpkg");
    ASSERT_TRUE(git && git->source);
    EXPECT_EQ(git->source->kind, lock::SourceKind::vcs);
    EXPECT_EQ(git->source->commit, commit);

    // Without the build backend the dynamic field cannot be read: said, nothing written.
    stdfs::remove_all(project / "lockfiles");
    r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu", "--no-build"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("pyproject.toml:" +
                         std::to_string(line_of(aitk::fs::read_file(project / "pyproject.toml"),
                                                "dynamic = ")) +
                         ":11: project.dynamic lists 'dependencies'"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--no-build"), std::string::npos) << r.err;
    EXPECT_FALSE(stdfs::exists(project / "lockfiles"));
    // --no-install-project leaves the project itself out.
    r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu", "--no-install-project"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto without = read_lock(project / "lockfiles" / "dyn-app.lock.yml");
    EXPECT_EQ(without.targets.front().find("dyn-app"), nullptr);
    // `-r pyproject.toml`, as uv pip reads it: the project's requirements, not the project.
    r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu", "-r", "pyproject.toml", "-o",
                        path("by-r.lock.yml")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto by_r = read_lock(path("by-r.lock.yml"));
    EXPECT_EQ(by_r.targets.front().find("dyn-app"), nullptr);
    EXPECT_EQ(version_in(by_r.targets.front(), "mylib"), "1.1");
    EXPECT_EQ(version_in(by_r.targets.front(), "dep-pkg"), "1.0");
}

TEST_F(PyprojectCli, BadFilesAreClearErrorsAndNothingIsWritten) {
    write("pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"a\",, \"b\"]\n");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"lock"}, {"setup", "-p", path("prefix")}, {"doctor"}}) {
        auto r = aitk("no-gpu", args);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find("error: pyproject.toml:3:21: not valid TOML"), std::string::npos)
            << r.err;
    }
    write("pyproject.toml",
          "[project]\nname = \"x\"\ndependencies = [\"a\"]\n\n"
          "[tool.uv.sources]\na = { git = \"https://example.org/a\", branh = "
          "\"main\" }\n");
    auto r = aitk("no-gpu", {"setup", "-p", path("prefix")});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("pyproject.toml:6:38: unknown key 'branh' in a [tool.uv.sources] entry"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(stdfs::exists(project / "lockfiles"));
    EXPECT_FALSE(stdfs::exists(path("prefix")));
    // A project read but not lockable here: lock, too, has said what it read first.
    write("pyproject.toml", backend_project(server.url("")));
    r = aitk("d520-sm120", {"lock"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_TRUE(r.err.starts_with("input: pyproject.toml (PEP 621 + tool.uv)\nerror: ")) << r.err;
    EXPECT_FALSE(stdfs::exists(project / "lockfiles"));
}

// Credentials in a project's index and git URLs never reach a message (issue 33's rule).
TEST_F(PyprojectCli, CredentialsInTheProjectsUrlsAreNeverShown) {
    const std::string header = "[project]\nname = \"sec-app\"\nversion = \"0.1.0\"\n";
    for (const std::string& text : std::vector<std::string>{
             // a package pinned to an index of its own
             header + "dependencies = [\"idxpkg\"]\n\n[tool.uv.sources]\nidxpkg = { index = "
                      "\"private\" }\n\n[[tool.uv.index]]\nname = \"private\"\nurl = "
                      "\"https://me:t0ps3cret@127.0.0.1:9/simple\"\n",
             // torch from an index that is no PyTorch backend index
             header + "dependencies = [\"torch\"]\n\n[tool.uv.sources]\ntorch = { index = "
                      "\"private\" }\n\n[[tool.uv.index]]\nname = \"private\"\nurl = "
                      "\"https://me:t0ps3cret@127.0.0.1:9/simple\"\n",
             // backend indexes under two bases
             header + "dependencies = [\"torch\"]\n\n[project.optional-dependencies]\na = "
                      "[\"torch\"]\nb = [\"torch\"]\n\n[tool.uv]\nconflicts = [[{ extra = \"a\" "
                      "}, { extra = \"b\" }]]\n\n[tool.uv.sources]\ntorch = [{ index = \"x\", "
                      "extra = \"a\" }, { index = \"y\", extra = \"b\" }]\n\n[[tool.uv.index]]\n"
                      "name = \"x\"\nurl = \"https://me:t0ps3cret@one.example/whl/cu128\"\n"
                      "explicit = true\n\n[[tool.uv.index]]\nname = \"y\"\nurl = "
                      "\"https://me:t0ps3cret@two.example/whl/cpu\"\nexplicit = true\n"}) {
        write("pyproject.toml", text);
        auto r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu"});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_EQ(r.err.find("t0ps3cret"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("***@"), std::string::npos) << r.err;
        EXPECT_FALSE(stdfs::exists(project / "lockfiles"));
    }
    // The project's own default index, with credentials: used, and kept out of the lock.
    const std::string with_credentials = server.url_with_credentials("me", "t0ps3cret", "/simple/");
    write("pyproject.toml", header +
                                "dependencies = [\"requests\"]\n\n[[tool.uv.index]]\nname = "
                                "\"private\"\nurl = \"" +
                                with_credentials + "\"\ndefault = true\n");
    auto r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ((r.out + r.err).find("t0ps3cret"), std::string::npos) << r.out << r.err;
    const auto lock_text = aitk::fs::read_file(project / "lockfiles" / "sec-app.lock.yml");
    EXPECT_EQ(lock_text.find("t0ps3cret"), std::string::npos) << lock_text;
    EXPECT_NE(lock_text.find("requests"), std::string::npos) << lock_text;
}

TEST_F(PyprojectCli, TheFolderDecidesTheInput) {
    // A pyproject.toml with only tool settings is not a project: requirements.txt is read.
    write("pyproject.toml", "[tool.ruff]\nline-length = 100\n");
    write("requirements.txt", "requests\n");
    // The project's flags select from a pyproject.toml: for another input they are an error,
    // not ignored (uv pip: "requesting extras requires a pyproject.toml").
    for (const auto& flags : std::vector<std::vector<std::string>>{
             {"--extra", "cu128"}, {"--group", "dev"}, {"--no-install-project"}}) {
        std::vector<std::string> args{"lock", "--target", "linux-x86_64-cpu"};
        args.insert(args.end(), flags.begin(), flags.end());
        auto r = aitk("no-gpu", args);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find(util::join(flags, " ") +
                             ": requirements.txt (pip requirements file) is no pyproject.toml"),
                  std::string::npos)
            << r.err;
        EXPECT_FALSE(stdfs::exists(project / "lockfiles"));
    }
    auto r = aitk("no-gpu", {"lock", "--target", "linux-x86_64-cpu"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.starts_with("input: requirements.txt (pip requirements file)\n")) << r.err;
    EXPECT_TRUE(stdfs::exists(project / "lockfiles" / "requirements.lock.yml"));
    // A folder with neither, named by --project, is an error naming it.
    stdfs::create_directories(path("empty"));
    r = aitk("no-gpu", {"lock", "--project", path("empty")}, work.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("holds no pyproject.toml with a [project] table and no requirements.txt"),
              std::string::npos)
        << r.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
