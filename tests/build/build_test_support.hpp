#pragma once
// Helpers of the build layer's tests: temp folders, git repositories made on the spot, projects
// with a tiny in-tree PEP 517 backend (pure Python, writes a real wheel with zipfile) whose
// hooks append to a marker file, and a provider that records what it was asked for.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aitk/build/environment.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "test_files.hpp"

namespace aitk::build::test {

namespace fs = std::filesystem;

// The shared temp folder (tests/support/test_files.hpp) with its path resolved: git and Python
// report real paths, and the tests compare theirs with them.
struct TempDir : aitk::test::TempDir {
    TempDir() : aitk::test::TempDir("build") { path = fs::canonical(path); }
};

using aitk::test::read_file;
using aitk::test::read_file_or_empty;
using aitk::test::write_file;

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    for (auto line : util::split(text, '\n')) {
        if (!line.empty()) out.emplace_back(line);
    }
    return out;
}

inline const fs::path python312 = "/root/.pyenv/versions/3.12.1/bin/python3.12";

inline python::Interpreter interpreter(const fs::path& executable = python312,
                                       const std::string& version = "3.12.1") {
    python::Interpreter i;
    i.implementation = "CPython";
    i.version = version;
    i.path = executable;
    i.executable = executable;
    i.sys_platform = "linux";
    i.machine = "x86_64";
    return i;
}

// Runs a command (argv) and returns its stdout; fails the test when it does not succeed.
inline std::string run(const std::vector<std::string>& argv, const fs::path& cwd = {}) {
    util::ProcessRequest request;
    request.argv = argv;
    request.working_directory = cwd;
    request.environment_changes = {
        {"GIT_DIR", std::nullopt},   {"GIT_CONFIG_NOSYSTEM", "1"},
        {"GIT_AUTHOR_NAME", "t"},    {"GIT_AUTHOR_EMAIL", "t@example.org"},
        {"GIT_COMMITTER_NAME", "t"}, {"GIT_COMMITTER_EMAIL", "t@example.org"}};
    auto result = util::run_process(request);
    EXPECT_TRUE(result && result->succeeded())
        << argv[0] << " " << (argv.size() > 1 ? argv[1] : "") << ": "
        << (result ? result->err : result.error().message);
    return result ? std::string(util::trim(result->out)) : std::string();
}

inline std::string git(const fs::path& repo, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"git", "-C", repo.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
}

inline std::string file_url(const fs::path& p) {
    return "file://" + p.generic_string();
}

struct BackendSpec {
    std::string name = "demo_pkg";
    std::string version = "1.2.3";
    fs::path marker;  // each hook appends "<hook> PYTHONPATH=<value or -> ..." here
    bool prepare_metadata_hook = true;
    std::vector<std::string> extra_requires;  // what get_requires_for_build_wheel returns
    std::string before_build;                 // Python code run at the start of build_wheel
};

// The backend module: writes a valid wheel (METADATA, WHEEL, RECORD with hashes) with zipfile.
inline std::string backend_source(const BackendSpec& spec) {
    std::string extra = "[";
    for (const auto& r : spec.extra_requires)
        extra += "'" + r + "', ";
    extra += "]";
    std::string text = R"PY(import base64, hashlib, os, sys, zipfile

NAME = ")PY" + spec.name +
                       R"PY("
VERSION = ")PY" + spec.version +
                       R"PY("
MARKER = r")PY" + spec.marker.string() +
                       R"PY("
DIST_INFO = NAME + "-" + VERSION + ".dist-info"
METADATA = "Metadata-Version: 2.1\nName: " + NAME + "\nVersion: " + VERSION + "\nSummary: built by the test backend\n"


def _mark(hook):
    if MARKER:
        with open(MARKER, "a") as out:
            out.write("%s PYTHONPATH=%s NOUSERSITE=%s PIP=%s cwd=%s\n" % (
                hook, os.environ.get("PYTHONPATH", "-"), os.environ.get("PYTHONNOUSERSITE", "-"),
                os.environ.get("PIP_INDEX_URL", "-"), os.getcwd()))


def get_requires_for_build_wheel(config_settings=None):
    _mark("get_requires_for_build_wheel")
    return )PY" + extra +
                       R"PY(


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
)PY" + (spec.before_build.empty() ? std::string() : "    " + spec.before_build + "\n") +
                       R"PY(    _mark("build_wheel")
    files = {
        NAME + "/__init__.py": "VALUE = %r\n" % (config_settings or {}).get("value", 42),
        DIST_INFO + "/METADATA": METADATA,
        DIST_INFO + "/WHEEL": "Wheel-Version: 1.0\nGenerator: test-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    filename = NAME + "-" + VERSION + "-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as wheel:
        for path, text in files.items():
            data = text.encode()
            wheel.writestr(path, data)
            record.append(_record_line(path, data))
        record.append(DIST_INFO + "/RECORD,,")
        wheel.writestr(DIST_INFO + "/RECORD", "\n".join(record) + "\n")
    return filename
)PY";
    if (spec.prepare_metadata_hook) {
        text += R"PY(

def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _mark("prepare_metadata_for_build_wheel")
    os.makedirs(os.path.join(metadata_directory, DIST_INFO))
    with open(os.path.join(metadata_directory, DIST_INFO, "METADATA"), "w") as out:
        out.write(METADATA)
    return DIST_INFO
)PY";
    }
    return text;
}

inline std::string expected_metadata(const BackendSpec& spec) {
    return "Metadata-Version: 2.1\nName: " + spec.name + "\nVersion: " + spec.version +
           "\nSummary: built by the test backend\n";
}

// A project using the backend in-tree: pyproject.toml with backend-path = ["backend"].
inline void write_backend_project(const fs::path& dir, const BackendSpec& spec,
                                  const std::string& requires_list = "[]") {
    write_file(dir / "pyproject.toml", "[build-system]\nrequires = " + requires_list +
                                           "\nbuild-backend = \"testbackend\"\n"
                                           "backend-path = [\"backend\"]\n");
    write_file(dir / "backend" / "testbackend.py", backend_source(spec));
}

// Records each prepare() call; gives the site-packages folders it was set up with.
class RecordingProvider : public BuildEnvironmentProvider {
  public:
    explicit RecordingProvider(BuildEnvironment env = {}) : env_(std::move(env)) {}
    BuildEnvironment prepare(const std::vector<pep::Requirement>& requirements,
                             const std::string& purpose) override {
        std::vector<std::string> texts;
        for (const auto& r : requirements)
            texts.push_back(r.to_string());
        calls.push_back(texts);
        purposes.push_back(purpose);
        return env_;
    }
    std::vector<std::vector<std::string>> calls;
    std::vector<std::string> purposes;

  private:
    BuildEnvironment env_;
};

}  // namespace aitk::build::test
