// `lock` against real pip, the reference, on generated universes (tests/support/
// generated_scenario.hpp) served on 127.0.0.1: for each seed and CPython 3.10–3.13 (those
// installed under pyenv), the versions of our lock for linux-x86_64-<backend> with --python set
// to that interpreter's exact version must be the versions `pip install --dry-run --report`
// picks with that interpreter (pip evaluates markers and Requires-Python with its own). Then
// pip installs the lock's `pip:` section in hash-checking mode and must choose exactly the
// locked files (URL and sha256).
//
// A difference prints both sides and the involved projects of the universe (enough to rebuild
// a minimal reproduction with generate_universe and that seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <optional>
#include <thread>

#include "../index/index_test_support.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "app_calls.hpp"
#include "generated_scenario.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const stdfs::path pyenv_versions = "/root/.pyenv/versions";

// The newest installed CPython 3.<minor>.Z under pyenv, by its full version.
std::optional<std::string> installed_python(int minor) {
    std::error_code ec;
    std::optional<pep::Version> best;
    std::string best_text;
    const std::string prefix = "3." + std::to_string(minor) + ".";
    for (const auto& entry : stdfs::directory_iterator(pyenv_versions, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(prefix)) continue;
        auto version = pep::Version::parse(name);
        if (!version || version->to_string() != name) continue;  // "3.12.1t" and the like
        if (!stdfs::exists(entry.path() / "bin" / "python", ec)) continue;
        if (!best || *version > *best) {
            best = *version;
            best_text = name;
        }
    }
    if (!best) return std::nullopt;
    return best_text;
}

stdfs::path python_path(const std::string& version) {
    return pyenv_versions / version / "bin" / "python";
}

std::string percent_decoded(std::string_view url) {
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    for (std::size_t i = 0; i < url.size(); ++i) {
        if (url[i] == '%' && i + 2 < url.size() && hex(url[i + 1]) >= 0 && hex(url[i + 2]) >= 0) {
            out += static_cast<char>(hex(url[i + 1]) * 16 + hex(url[i + 2]));
            i += 2;
        } else {
            out += url[i];
        }
    }
    return out;
}

// One package as pip's --report names it.
struct PipChoice {
    std::string version;  // normalised
    std::string url;      // percent-decoded
    std::string sha256;
};
using PipChoices = std::map<std::string, PipChoice>;

PipChoices read_report(const stdfs::path& report) {
    PipChoices out;
    auto json = nlohmann::json::parse(fs::read_file(report));
    for (const auto& item : json.at("install")) {
        const auto& metadata = item.at("metadata");
        PipChoice choice;
        const auto version_text = metadata.at("version").get<std::string>();
        auto version = pep::Version::parse(version_text);
        choice.version = version ? version->to_string() : version_text;
        const auto& download = item.at("download_info");
        choice.url = percent_decoded(download.at("url").get<std::string>());
        const auto& archive = download.value("archive_info", nlohmann::json::object());
        if (archive.contains("hashes") && archive["hashes"].contains("sha256")) {
            choice.sha256 = archive["hashes"]["sha256"].get<std::string>();
        } else if (archive.contains("hash")) {
            const auto hash = archive["hash"].get<std::string>();
            if (hash.starts_with("sha256=")) choice.sha256 = hash.substr(7);
        }
        out[pep::canonicalize_name(metadata.at("name").get<std::string>())] = choice;
    }
    return out;
}

// pip as on a clean machine: no configuration files, no PIP_* settings of this one, no cache.
util::ProcessRequest pip_request(const std::string& python, std::vector<std::string> args) {
    util::ProcessRequest request;
    request.argv = {python_path(python).string(),
                    "-m",
                    "pip",
                    "install",
                    "--dry-run",
                    "--ignore-installed",
                    "--quiet",
                    "--no-cache-dir",
                    "--disable-pip-version-check",
                    "--no-input",
                    "--only-binary=:all:"};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    for (const auto& [name, value] : util::current_environment()) {
        if (name.starts_with("PIP_")) request.environment_changes[name] = std::nullopt;
    }
    request.environment_changes["PIP_CONFIG_FILE"] = "/dev/null";
    request.environment_changes["PYTHONDONTWRITEBYTECODE"] = "1";
    request.timeout = std::chrono::seconds(180);
    return request;
}

struct PipRun {
    util::ProcessRequest request;
    stdfs::path report;
    std::optional<util::ProcessResult> result;
    std::string start_error;

    bool ok() const { return result && result->succeeded() && stdfs::exists(report); }
    std::string output() const {
        if (!start_error.empty()) return "pip did not start: " + start_error;
        if (!result) return "pip did not run";
        std::string text = result->err.empty() ? result->out : result->err;
        if (text.size() > 3000) text = "…" + text.substr(text.size() - 3000);
        return "pip " + result->describe() + ":\n" + text;
    }
};

// pip is slow to start and single-threaded: two at a time.
void run_all(std::vector<PipRun*>& runs) {
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < runs.size(); i = next++) {
            auto outcome = util::run_process(runs[i]->request);
            if (outcome) {
                runs[i]->result = std::move(*outcome);
            } else {
                runs[i]->start_error = outcome.error().message;
            }
        }
    };
    std::thread helper(work);
    work();
    helper.join();
}

struct Case {
    std::uint64_t seed;
    std::string backend;
    std::vector<int> pythons;  // minors; the first also checks the lock's pip section
    bool json;                 // PEP 691 pages on the main index
    bool pep658;               // PEP 658 metadata files on the main index
};

void PrintTo(const Case& c, std::ostream* out) {
    *out << "seed " << c.seed << ", " << c.backend << ", Pythons";
    for (int minor : c.pythons)
        *out << " 3." << minor;
    *out << (c.json ? ", JSON pages" : ", HTML pages") << (c.pep658 ? ", PEP 658" : "");
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    return "seed" + std::to_string(info.param.seed) + "_" + info.param.backend;
}

// Our side and pip's for one interpreter.
struct PerPython {
    std::string python;
    std::optional<LockOutcome> lock;
    std::string unsatisfiable;  // our explanation when we found no solution
    PipRun resolution;
    std::optional<PipRun> check;  // pip installing the lock's pip section
};

class LockVsPip : public ::testing::TestWithParam<Case> {
  protected:
    void SetUp() override {
        const Case& c = GetParam();
        for (int minor : c.pythons) {
            if (auto version = installed_python(minor)) pythons.push_back(*version);
        }
        if (pythons.empty()) GTEST_SKIP() << "none of the CPythons of this case under pyenv";
        test::UniverseOptions options;
        options.seed = c.seed;
        options.backends = {c.backend};
        options.json = c.json;
        options.pep658 = c.pep658;
        universe = test::generate_universe(options);
        work = std::make_unique<fs::TempDir>(fs::TempDir::create("aitk-lock-vs-pip"));
        test::build_universe_mirror(work->path() / "mirror", universe);
        server.serve_directory(work->path() / "mirror");
        fs::write_file_atomic(work->path() / "requirements.txt", universe.requirements_text());
    }

    std::string target() const { return "linux-x86_64-" + GetParam().backend; }

    test::LockCall lock_request(const std::string& python) const {
        test::LockCall r;
        r.input.requirements = work->path() / "requirements.txt";
        r.output = work->path() / ("lock-" + python + ".yml");
        r.targets = {target()};
        r.python = python;
        r.indexes.index_url = server.url("/simple/");
        r.indexes.torch_index_url = server.url("/whl");
        r.cache_root = work->path() / "cache";
        r.cwd = work->path();
        return r;
    }

    PipRun pip_resolution(const std::string& python) const {
        PipRun run;
        run.report = work->path() / ("pip-" + python + ".json");
        run.request = pip_request(
            python, {"--report", run.report.string(), "--index-url", server.url("/simple/"),
                     "--extra-index-url", server.url("/whl/" + GetParam().backend + "/"), "-r",
                     (work->path() / "requirements.txt").string()});
        return run;
    }

    PipRun pip_lock_check(const std::string& python, const lock::PipSection& section) const {
        const auto file = work->path() / ("pip-section-" + python + ".txt");
        fs::write_file_atomic(file, util::join(section.lines, "\n") + "\n");
        PipRun run;
        run.report = work->path() / ("pip-check-" + python + ".json");
        run.request = pip_request(
            python, {"--require-hashes", "--report", run.report.string(), "-r", file.string()});
        return run;
    }

    // What differs, with both sides in full and the projects involved.
    std::string difference(const std::string& python, const lock::LockedTarget& ours,
                           const PipChoices& pip) const {
        std::map<std::string, std::string> mine;
        for (const auto& p : ours.packages)
            mine[p.name] = p.version;
        std::string out = "seed " + std::to_string(GetParam().seed) + ", " + target() +
                          ", Python " + python + "\nrequirements:\n" +
                          universe.requirements_text() + "differences (ours | pip):\n";
        std::vector<std::string> involved;
        for (const auto& [name, version] : mine) {
            auto it = pip.find(name);
            const std::string theirs = it == pip.end() ? "-" : it->second.version;
            if (theirs != version) {
                out += "  " + name + " " + version + " | " + theirs + "\n";
                involved.push_back(name);
            }
        }
        for (const auto& [name, choice] : pip) {
            if (!mine.count(name)) {
                out += "  " + name + " - | " + choice.version + "\n";
                involved.push_back(name);
            }
        }
        out += "ours:";
        for (const auto& [name, version] : mine)
            out += " " + name + "==" + version;
        out += "\npip: ";
        for (const auto& [name, choice] : pip)
            out += " " + name + "==" + choice.version;
        out += "\nthe projects that differ, and what requires them:\n";
        for (const auto& name : involved) {
            out += universe.describe(name);
            for (const auto& p : ours.packages) {
                if (std::find(p.dependencies.begin(), p.dependencies.end(), name) !=
                    p.dependencies.end()) {
                    out += "    (our " + p.name + " " + p.version + " needs it)\n";
                }
            }
        }
        return out;
    }

    // Both resolutions, then pip installing our lock (a fatal failure ends this Python only).
    void compare(const PerPython& run) const;

    test::ClearProxyEnvironment no_proxy;
    std::vector<std::string> pythons;
    test::GeneratedUniverse universe;
    std::unique_ptr<fs::TempDir> work;
    test::HttpServer server;
};

void LockVsPip::compare(const PerPython& run) const {
    // Every universe has a solution by construction (generated_scenario.hpp).
    ASSERT_TRUE(run.resolution.ok())
        << "pip found no solution for seed " << GetParam().seed << ":\n"
        << universe.requirements_text() << run.resolution.output()
        << (run.unsatisfiable.empty() ? "" : "\nours found none either:\n" + run.unsatisfiable);
    const auto pip = read_report(run.resolution.report);
    std::string pip_list;
    for (const auto& [name, choice] : pip)
        pip_list += " " + name + "==" + choice.version;
    ASSERT_TRUE(run.lock) << "pip found a solution, we found none:\n"
                          << run.unsatisfiable << "\npip:" << pip_list;
    const auto& lockfile = run.lock->lockfile;
    ASSERT_EQ(lockfile.targets.size(), 1u);
    const auto& locked = lockfile.targets[0];
    EXPECT_EQ(locked.python, run.python);

    std::map<std::string, std::string> ours, theirs;
    for (const auto& p : locked.packages)
        ours[p.name] = p.version;
    for (const auto& [name, choice] : pip)
        theirs[name] = choice.version;
    EXPECT_EQ(ours, theirs) << difference(run.python, locked, pip);

    if (!run.check) return;
    ASSERT_TRUE(run.check->ok()) << "pip refuses the lock's pip section:\n" << run.check->output();
    std::map<std::string, std::string> locked_files, pip_files;
    for (const auto& p : locked.packages) {
        ASSERT_TRUE(p.wheel) << p.name;
        locked_files[p.name] =
            p.version + " " + percent_decoded(p.wheel->url) + " " + p.wheel->sha256;
    }
    for (const auto& [name, choice] : read_report(run.check->report))
        pip_files[name] = choice.version + " " + choice.url + " " + choice.sha256;
    EXPECT_EQ(locked_files, pip_files);
}

TEST_P(LockVsPip, SameVersionsAsPipAndPipInstallsTheLockedFiles) {
    std::vector<PerPython> runs;
    for (const auto& python : pythons) {
        PerPython run;
        run.python = python;
        try {
            run.lock = run_lock(lock_request(python));
        } catch (const resolve::Unsatisfiable& e) {
            run.unsatisfiable = e.what();
        }
        run.resolution = pip_resolution(python);
        if (run.lock && runs.empty()) {
            const auto& lockfile = run.lock->lockfile;
            const auto* locked = lockfile.find_target(lockfile.default_target);
            ASSERT_NE(locked, nullptr) << lockfile.default_target;
            auto section = lock::pip_section(lockfile, *locked);
            EXPECT_TRUE(section.left_out.empty()) << util::join(section.left_out, ", ");
            run.check = pip_lock_check(python, section);
        }
        runs.push_back(std::move(run));
    }
    std::vector<PipRun*> pending;
    for (auto& run : runs) {
        pending.push_back(&run.resolution);
        if (run.check) pending.push_back(&*run.check);
    }
    run_all(pending);
    for (const auto& run : runs) {
        SCOPED_TRACE("Python " + run.python);
        compare(run);
    }
}

// The generator's own promises, which the comparison relies on.
TEST(GeneratedUniverse, IsTheSameForTheSameSeedAndOtherForAnother) {
    test::UniverseOptions options;
    options.seed = 7;
    const auto a = test::generate_universe(options);
    const auto b = test::generate_universe(options);
    EXPECT_EQ(a.mirror_description(), b.mirror_description());
    EXPECT_EQ(a.requirements, b.requirements);
    options.seed = 8;
    EXPECT_NE(test::generate_universe(options).mirror_description(), a.mirror_description());
}

TEST(GeneratedUniverse, DependenciesPointForwardAndEverySpecifierAdmitsARelease) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        test::UniverseOptions options;
        options.seed = seed;
        options.backends = {"cpu", "cu126", "cu130"};
        const auto universe = test::generate_universe(options);
        // A requirement names a project of the universe, after its own (or itself, for an
        // extra), and admits one of its releases.
        auto check = [&](const std::string& text, const std::string& from) {
            auto requirement = pep::Requirement::parse(text);
            ASSERT_TRUE(requirement) << from << ": " << text;
            const auto name = requirement->canonical_name();
            const auto* target = universe.find(name);
            ASSERT_NE(target, nullptr) << from << ": " << text;
            if (from.starts_with("pkg-") && name.starts_with("pkg-")) {
                EXPECT_GE(name.substr(4, 3), from.substr(4, 3)) << from << ": " << text;
            }
            bool admitted = false;
            for (const auto& v : target->versions) {
                admitted = admitted || requirement->specifier().contains(v.version, true);
            }
            EXPECT_TRUE(admitted) << from << ": " << text;
        };
        for (const auto& project : universe.projects) {
            for (const auto& version : project.versions) {
                EXPECT_FALSE(version.tags.empty()) << project.name << " " << version.version;
                for (const auto& r : version.requires_dist)
                    check(r, project.name);
            }
        }
        ASSERT_FALSE(universe.requirements.empty());
        for (const auto& r : universe.requirements)
            check(r, "root");
    }
}

TEST(GeneratedUniverse, TheAiToolkitSizedPresetHasItsSize) {
    const auto universe = test::generate_universe(test::ai_toolkit_sized_universe(1));
    EXPECT_EQ(universe.projects.size(), 269u);  // 260 + 4 nvidia-* + 5 of the torch family
    EXPECT_EQ(universe.wheel_count(), 7500u);
    EXPECT_EQ(universe.requirements.size(), 57u);
    ASSERT_NE(universe.find("torch", "whl/cu130"), nullptr);
    EXPECT_EQ(universe.find("torch", "whl/cu126"), nullptr);
    EXPECT_EQ(universe.find("torch")->versions.back().version, "2.10.0+cu130");
}

// Each Python appears in four cases and checks the pip section in two. The cases that run
// pyenv's 3.10 serve HTML without PEP 658 files, as old indexes did: its pip 23.0.1 fails with a
// TypeError on PEP 691 pages whose files carry "dist-info-metadata": {"sha256": …}, and rejects
// PEP 658 metadata whose Name is spelt otherwise than the requirement ("pkg.014" for pkg-014);
// later pips handle both.
INSTANTIATE_TEST_SUITE_P(Seeds, LockVsPip,
                         ::testing::Values(Case{1, "cu130", {12, 10}, false, false},
                                           Case{2, "cu126", {11, 13}, true, true},
                                           Case{3, "cpu", {13, 10}, false, false},
                                           Case{4, "cu130", {10, 11}, false, false},
                                           Case{5, "cu130", {12, 13}, true, true},
                                           Case{6, "cu126", {11, 12}, true, false},
                                           Case{7, "cu130", {13, 11}, true, true},
                                           Case{8, "cpu", {10, 12}, false, false}),
                         case_name);

// More seeds on demand, for hunting differences: AITK_LOCK_VS_PIP_SEEDS=FIRST-LAST (or one
// number) adds a case per seed, rotating backends and pairs of Pythons.
std::vector<Case> explore_cases() {
    const char* range = std::getenv("AITK_LOCK_VS_PIP_SEEDS");
    if (!range) return {};
    char* end = nullptr;
    const std::uint64_t first = std::strtoull(range, &end, 10);
    const std::uint64_t last = *end == '-' ? std::strtoull(end + 1, nullptr, 10) : first;
    const std::vector<std::string> backends = {"cu130", "cu126", "cpu"};
    const std::vector<std::vector<int>> pairs = {{12, 13}, {11, 10}, {13, 11}, {10, 12}};
    std::vector<Case> out;
    for (std::uint64_t seed = first; seed <= last && seed - first < 10000; ++seed) {
        const auto& pythons = pairs[seed % pairs.size()];
        const bool old_pip = std::count(pythons.begin(), pythons.end(), 10) > 0;
        out.push_back({seed, backends[seed % backends.size()], pythons, !old_pip, !old_pip});
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(Explore, LockVsPip, ::testing::ValuesIn(explore_cases()), case_name);

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
