// Real `conda env export` files (tests/data/realworld: advimman/lama's conda_env.yml and
// magic-research/magic-animate's environment.yaml, verbatim) through `aitk-env lock -f`: the
// mapping report as lock prints it (the backend, what is skipped and why), the PyPI names and
// versions the lock ends up with, then resolution against a mirror on 127.0.0.1 that holds a
// wheel for each PyPI name the import yields (at its pinned version), except for names a test
// leaves out on purpose (exit 3).
//
// The files are used as they are: their Python pins (3.6.13, 3.8.5) become the lock's Python
// (markers are evaluated for it; nothing here needs that interpreter installed).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/project/conda_environment.hpp"
#include "aitk/util/strings.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"
#include "test_data.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string lama = "realworld/advimman_lama/conda_env.yml";
const std::string animate = "realworld/magic-research_magic-animate/environment.yaml";

// The mapping report `lock` prints ("note: " lines on stderr), verbatim.
const std::string lama_report = R"(cudatoolkit=10.2.89 selects the cu102 backend
skipped _libgcc_mutex=0.1: part of the C/C++ runtime of the system
skipped _openmp_mutex=4.5: part of the C/C++ runtime of the system
skipped blas=1.0: a math library that numpy, scipy and torch wheels bundle
skipped bzip2=1.0.8: provided by the interpreter
skipped c-ares=1.17.1: a native library that the wheels needing it bundle
skipped ca-certificates=2021.7.5: provided by the interpreter
skipped dbus=1.13.18: a native library that the wheels needing it bundle
skipped expat=2.4.1: provided by the interpreter
skipped fontconfig=2.13.1: a native library that the wheels needing it bundle
skipped freetype=2.10.4: a native library that the wheels needing it bundle
skipped glib=2.69.1: a native library that the wheels needing it bundle
skipped gmp=6.2.1: a native library that the wheels needing it bundle
skipped gnutls=3.6.15: a native library that the wheels needing it bundle
skipped gst-plugins-base=1.14.0: a native library that the wheels needing it bundle
skipped gstreamer=1.14.0: a native library that the wheels needing it bundle
skipped icu=58.2: a native library that the wheels needing it bundle
skipped intel-openmp=2021.3.0: part of the C/C++ runtime of the system
skipped jpeg=9b: a native library that the wheels needing it bundle
skipped lame=3.100: a native library that the wheels needing it bundle
skipped lcms2=2.12: a native library that the wheels needing it bundle
skipped ld_impl_linux-64=2.35.1: part of the C/C++ runtime of the system
skipped libblas=3.9.0: a math library that numpy, scipy and torch wheels bundle
skipped libcblas=3.9.0: a math library that numpy, scipy and torch wheels bundle
skipped libffi=3.3: provided by the interpreter
skipped libgcc-ng=9.3.0: part of the C/C++ runtime of the system
skipped libgfortran-ng=9.3.0: part of the C/C++ runtime of the system
skipped libgfortran5=9.3.0: part of the C/C++ runtime of the system
skipped libgomp=9.3.0: part of the C/C++ runtime of the system
skipped libidn2=2.3.2: a native library that the wheels needing it bundle
skipped liblapack=3.9.0: a math library that numpy, scipy and torch wheels bundle
skipped libopus=1.3.1: a native library that the wheels needing it bundle
skipped libpng=1.6.37: a native library that the wheels needing it bundle
skipped libprotobuf=3.17.2: a native library that the wheels needing it bundle
skipped libstdcxx-ng=9.3.0: part of the C/C++ runtime of the system
skipped libtasn1=4.16.0: a native library that the wheels needing it bundle
skipped libtiff=4.2.0: a native library that the wheels needing it bundle
skipped libunistring=0.9.10: a native library that the wheels needing it bundle
skipped libuuid=1.0.3: provided by the interpreter
skipped libuv=1.40.0: a native library that the wheels needing it bundle
skipped libvpx=1.7.0: a native library that the wheels needing it bundle
skipped libwebp-base=1.2.0: a native library that the wheels needing it bundle
skipped libxcb=1.14: a native library that the wheels needing it bundle
skipped libxml2=2.9.12: a native library that the wheels needing it bundle
skipped lz4-c=1.9.3: a native library that the wheels needing it bundle
skipped mkl=2021.3.0: a math library that numpy, scipy and torch wheels bundle
skipped ncurses=6.2: provided by the interpreter
skipped nettle=3.7.3: a native library that the wheels needing it bundle
skipped openh264=2.1.0: a native library that the wheels needing it bundle
skipped openjpeg=2.4.0: a native library that the wheels needing it bundle
skipped openssl=1.1.1l: provided by the interpreter
skipped pcre=8.45: a native library that the wheels needing it bundle
skipped pip=21.0.1: installed into every environment
skipped python_abi=3.6: provided by the interpreter
skipped qt=5.9.7: a native library that the wheels needing it bundle
skipped readline=8.1: provided by the interpreter
skipped sqlite=3.36.0: provided by the interpreter
skipped tk=8.6.11: provided by the interpreter
skipped x264=1!157.20191217: a native library that the wheels needing it bundle
skipped xz=5.2.5: provided by the interpreter
skipped yaml=0.2.5: a native library that the wheels needing it bundle
skipped zlib=1.2.11: provided by the interpreter
skipped zstd=1.4.9: a native library that the wheels needing it bundle
skipped ffmpeg=4.2.2 (line 38): no PyPI equivalent: a program, not a Python package; install it with the system's package manager
)";
const std::string animate_report =
    R"(skipped _libgcc_mutex=0.1: part of the C/C++ runtime of the system
skipped _openmp_mutex=5.1: part of the C/C++ runtime of the system
skipped backports=1.0: the backports namespace, which each backports.* package brings
skipped ca-certificates=2023.7.22: provided by the interpreter
skipped ld_impl_linux-64=2.38: part of the C/C++ runtime of the system
skipped libffi=3.3: provided by the interpreter
skipped libgcc-ng=11.2.0: part of the C/C++ runtime of the system
skipped libgomp=11.2.0: part of the C/C++ runtime of the system
skipped libsodium=1.0.18: a native library that the wheels needing it bundle
skipped libstdcxx-ng=11.2.0: part of the C/C++ runtime of the system
skipped ncurses=6.4: provided by the interpreter
skipped openssl=1.1.1l: provided by the interpreter
skipped pip=23.2.1: installed into every environment
skipped python_abi=3.8: provided by the interpreter
skipped readline=8.2: provided by the interpreter
skipped sqlite=3.41.2: provided by the interpreter
skipped tk=8.6.12: provided by the interpreter
skipped xz=5.4.2: provided by the interpreter
skipped zeromq=4.3.4: a native library that the wheels needing it bundle
skipped zlib=1.2.13: provided by the interpreter
)";

// PyPI name → the version its requirement pins ("1.0" when it pins none).
std::map<std::string, std::string> imported_names(const std::string& file) {
    auto env = project::read_conda_environment(file);
    EXPECT_TRUE(env);
    auto imported = project::import_conda_environment(*env, true);
    EXPECT_TRUE(imported);
    std::map<std::string, std::string> out;
    for (const auto& line : imported->requirements) {
        std::string version = "1.0";
        for (const auto& spec : line.requirement->specifier().specifiers()) {
            if (spec.op() == pep::Operator::equal && spec.version()) {
                version = spec.version()->to_string();
            }
        }
        out[line.name()] = version;
    }
    return out;
}

WheelSpec spec(const std::string& name, const std::string& version) {
    WheelSpec s;
    s.name = name;
    s.version = version;
    return s;
}

class RealWorldEnvCli : public ::testing::Test {
  protected:
    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    // A mirror with a py3-none-any wheel for each name but `absent`; the torch family on the
    // cpu backend index with a +cpu label, as download.pytorch.org has it.
    void serve(const std::map<std::string, std::string>& names,
               const std::set<std::string>& absent) {
        MirrorBuilder mirror(work.path() / "mirror");
        mirror.add_index("simple");
        mirror.add_index("whl/cpu", IndexOptions::pytorch());
        const std::set<std::string> torch_family = {"torch", "torchvision", "xformers", "triton"};
        for (const auto& [name, version] : names) {
            if (absent.count(name)) continue;
            if (torch_family.count(name)) {
                mirror.add_wheel("whl/cpu", spec(name, version + "+cpu"));
            } else {
                mirror.add_wheel("simple", spec(name, version));
            }
        }
        mirror.write();
        server.serve_directory(mirror.root());
    }

    CliResult lock(const std::string& file, std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {"--index-url",
                                         server.url("/simple/"),
                                         "--torch-index-url",
                                         server.url("/whl"),
                                         "--cache-dir",
                                         path("cache"),
                                         "--no-progress",
                                         "lock",
                                         "-f",
                                         file,
                                         "-o",
                                         path("env.lock.yml")};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(args, "",
                       {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY",
                        "-u AITK_ENV_TORCH_BACKEND", "AITK_ENV_NO_GPU=1",
                        "AITK_ENV_NVIDIA_SOURCES=nvidia-smi", "AITK_ENV_NVIDIA_SMI=/nonexistent"});
    }

    // `setup -f FILE --dry-run`: the same import and resolution, then the install plan.
    CliResult setup_dry_run(const std::string& file) {
        std::vector<std::string> args = {"--index-url",
                                         server.url("/simple/"),
                                         "--torch-index-url",
                                         server.url("/whl"),
                                         "--cache-dir",
                                         path("cache"),
                                         "--no-progress",
                                         "setup",
                                         "-f",
                                         file,
                                         "-p",
                                         path("prefix"),
                                         "--dry-run"};
        return run_cli(args, "",
                       {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY",
                        "-u AITK_ENV_TORCH_BACKEND", "AITK_ENV_NO_GPU=1",
                        "AITK_ENV_NVIDIA_SOURCES=nvidia-smi", "AITK_ENV_NVIDIA_SMI=/nonexistent"});
    }

    static std::string notes(const std::string& err) {
        std::string out;
        for (auto line : util::split(err, '\n')) {
            if (line.starts_with("note: ")) out += std::string(line.substr(6)) + "\n";
        }
        return out;
    }

    HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-realworld-cli");
};

TEST_F(RealWorldEnvCli, LamaNamesItsUnmappablePackageAndKeepsItsPythonPin) {
    serve({}, {});
    auto refused = lock(data_path(lama));
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find(data_path(lama) +
                               ":38:5: 1 conda package has no PyPI equivalent:\n  "
                               "ffmpeg=4.2.2=h20bf706_0 (line 38): a program, not a Python "
                               "package; install it with the system's package manager"),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("--skip-unmapped"), std::string::npos) << refused.err;

    // python=3.6.13 becomes the requirement ==3.6.*: another --python is refused.
    auto other = lock(data_path(lama), {"--skip-unmapped", "--python", "3.12"});
    EXPECT_EQ(other.exit_code, 2);
    EXPECT_NE(other.err.find("is outside lama's python requirement ==3.6.*"), std::string::npos)
        << other.err;
    EXPECT_FALSE(stdfs::exists(path("env.lock.yml")));
}

TEST_F(RealWorldEnvCli, LamaResolvesWhereTheMirrorHasEveryName) {
    auto file = data_path(lama);
    auto names = imported_names(file);
    ASSERT_EQ(names.size(), 92u);
    serve(names, {});
    auto locked = lock(file, {"--skip-unmapped"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;

    // The mapping report: the backend cudatoolkit selects, every conda package left out and
    // why (ffmpeg, unmappable, last). Renamed packages (antlr-python-runtime →
    // antlr4-python3-runtime, dask-core → dask, pyqt → pyqt5) and the Python pin are not
    // reported; the lock shows them.
    EXPECT_EQ(notes(locked.err), lama_report);
    EXPECT_NE(locked.err.find("linux-x86_64-cu102: 92 packages (Python 3.6.13)\n"),
              std::string::npos)
        << locked.err;

    auto parsed = lock::parse_lockfile(fs::read_file(path("env.lock.yml")), "env.lock.yml");
    ASSERT_TRUE(parsed);
    const auto& target = parsed->targets.at(0);
    EXPECT_EQ(target.id, "linux-x86_64-cu102");
    // conda names came back as their PyPI names, at the exported versions.
    EXPECT_EQ(target.find("antlr4-python3-runtime")->version, "4.8");
    EXPECT_EQ(target.find("pyqt5")->version, "5.9.2");
    EXPECT_EQ(target.find("dask")->version, "1.1.4");
    EXPECT_EQ(target.find("wldhx-yadisk-direct")->version, "0.0.6");
    EXPECT_EQ(target.find("openssl"), nullptr);
    for (const auto& [name, version] : names) {
        ASSERT_NE(target.find(name), nullptr) << name;
        EXPECT_EQ(target.find(name)->version, version) << name;
    }
}

TEST_F(RealWorldEnvCli, LamaNamesAbsentFromTheMirrorAreUnsatisfiable) {
    auto file = data_path(lama);
    serve(imported_names(file), {"wldhx-yadisk-direct"});
    auto locked = lock(file, {"--skip-unmapped"});
    EXPECT_EQ(locked.exit_code, 3) << locked.err;
    EXPECT_NE(locked.err.find(
                  "error: no environment satisfies the requirements for linux-x86_64-cu102 "
                  "(Python 3.6.13):\nBecause wldhx-yadisk-direct==0.0.6 is required (" +
                  file +
                  ":165:7) and no version of wldhx-yadisk-direct matches ==0.0.6 (not found on "
                  "primary), the requirements cannot be satisfied.\n"),
              std::string::npos)
        << locked.err;
    EXPECT_FALSE(stdfs::exists(path("env.lock.yml")));
}

TEST_F(RealWorldEnvCli, MagicAnimateTorchFamilyFromTheBackendIndex) {
    auto file = data_path(animate);
    auto names = imported_names(file);
    ASSERT_EQ(names.size(), 160u);
    serve(names, {});
    auto locked = lock(file);
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    EXPECT_EQ(notes(locked.err), animate_report);
    auto parsed = lock::parse_lockfile(fs::read_file(path("env.lock.yml")), "env.lock.yml");
    ASSERT_TRUE(parsed);
    const auto& target = parsed->targets.at(0);
    EXPECT_EQ(target.id, "linux-x86_64-cpu");
    EXPECT_EQ(target.python, "3.8.5");
    EXPECT_EQ(target.find("torch")->version, "2.0.1+cpu");
    EXPECT_EQ(target.find("torch")->index, "torch cpu");
    EXPECT_EQ(target.find("xformers")->version, "0.0.22+cpu");
    EXPECT_EQ(target.find("diffusers")->version, "0.21.4");
    EXPECT_EQ(target.find("decord")->version, "1.0");
    EXPECT_EQ(target.packages.size(), 160u);
}

TEST_F(RealWorldEnvCli, MagicAnimateGoesThroughSetupWithTheSameReport) {
    auto file = data_path(animate);
    serve(imported_names(file), {});
    auto dry = setup_dry_run(file);
    ASSERT_EQ(dry.exit_code, 0) << dry.err << dry.out;
    EXPECT_EQ(notes(dry.err), animate_report) << dry.err;
    EXPECT_NE(dry.out.find("install    torch 2.0.1+cpu"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("install    diffusers 0.21.4"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("install    decord 1.0"), std::string::npos) << dry.out;
    EXPECT_FALSE(std::filesystem::exists(path("prefix"))) << "a dry run changes nothing";
}

TEST_F(RealWorldEnvCli, MagicAnimateMissingNamesAreUnsatisfiable) {
    auto file = data_path(animate);
    serve(imported_names(file), {"decord", "lpips"});
    auto locked = lock(file);
    EXPECT_EQ(locked.exit_code, 3) << locked.err;
    // The derivation names the first missing name the resolver meets, not every one.
    const std::string lpips = "Because lpips is required (" + file +
                              ":183:9) and no version of lpips is available (not found on "
                              "primary), the requirements cannot be satisfied.\n";
    const std::string decord = "Because decord is required (" + file +
                               ":175:9) and no version of decord is available (not found on "
                               "primary), the requirements cannot be satisfied.\n";
    EXPECT_TRUE(locked.err.find(lpips) != std::string::npos ||
                locked.err.find(decord) != std::string::npos)
        << locked.err;
    EXPECT_NE(locked.err.find("no environment satisfies the requirements for linux-x86_64-cpu "
                              "(Python 3.8.5):"),
              std::string::npos)
        << locked.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
