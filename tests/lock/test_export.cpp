// The export formatters on hand-made lockfiles: exact texts for the small lock, and for the rich
// one (every kind of origin) what each format's readers get back: yaml-cpp for env-yml, toml++
// for pylock.toml.
#include <gtest/gtest.h>

#include <toml++/toml.h>

#include "aitk/lock/exporters.hpp"
#include "aitk/util/error.hpp"
#include "lock_fixtures.hpp"
#include "yaml_readers.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using test::hex64;

const ExportSource source{"lockfiles/demo.lock.yml"};

TEST(ExportFormat, NamesRoundTripAndUnknownNamesAreRefused) {
    for (const auto* name : {"env-yml", "requirements", "pylock", "dockerfile"}) {
        const auto format = parse_export_format(name);
        ASSERT_TRUE(format.has_value()) << name;
        EXPECT_EQ(export_format_name(*format), name);
    }
    EXPECT_FALSE(parse_export_format("conda").has_value());
    EXPECT_FALSE(parse_export_format("").has_value());
    EXPECT_EQ(export_format_list(), "env-yml, requirements, pylock, dockerfile");
}

TEST(ExportEnvYml, SmallLockIsExactAndHasNoExtensionKey) {
    const auto lock = test::small_lockfile();
    const std::string expected =
        "# environment.yml for linux-x86_64-cpu, exported by aitk-env from "
        "lockfiles/demo.lock.yml.\n"
        "# Create it with `conda env create -f FILE` or `micromamba create -f FILE`; pip\n"
        "# installs the packages in hash-checking mode. Regenerate it rather than editing it.\n"
        "name: demo\n"
        "channels:\n"
        "  - conda-forge\n"
        "dependencies:\n"
        "  - python=3.12.3\n"
        "  - pip\n"
        "  - pip:\n"
        "      - --require-hashes\n"
        "      - --index-url https://pypi.org/simple\n"
        "      - app==2.0 --hash=sha256:" +
        hex64('b') +
        "\n"
        "      - six==1.10 --hash=sha256:" +
        hex64('a') +
        "\n"
        "variables:\n"
        "  HF_HOME: /data/hf\n";
    EXPECT_EQ(export_env_yml(lock, lock.targets[0], source), expected);
}

TEST(ExportEnvYml, EachTargetReadsBackWithItsOwnPipLinesAndVariables) {
    auto lock = test::rich_lockfile();
    lock.targets[1].variables["PATH"] = "/not/written";  // conda owns PATH
    const auto* cpu = lock.find_target("linux-aarch64-cpu");
    ASSERT_NE(cpu, nullptr);
    const auto doc = test::read_with_yaml_cpp(export_env_yml(lock, *cpu, source));
    EXPECT_EQ(doc["name"], "ai toolkit: train");
    EXPECT_EQ(doc["channels"], nlohmann::json({"conda-forge", "nvidia"}));
    EXPECT_FALSE(doc.contains("x-aitk-env"));
    EXPECT_FALSE(doc.contains("variables"));
    const auto& deps = doc["dependencies"];
    ASSERT_EQ(deps.size(), 3u);
    EXPECT_EQ(deps[0], "python=3.12.3");
    EXPECT_EQ(deps[1], "pip");
    EXPECT_EQ(deps[2]["pip"],
              nlohmann::json({"--require-hashes", "--index-url https://pypi.org/simple",
                              "--extra-index-url https://download.pytorch.org/whl/cpu",
                              "filelock==3.13.1 --hash=sha256:" + hex64('d'),
                              "torch==2.9.0+cpu --hash=sha256:" + hex64('5')}));

    const auto* cuda = lock.find_target("linux-x86_64-cu130");
    const std::string text = export_env_yml(lock, *cuda, source);
    const auto cuda_doc = test::read_with_yaml_cpp(text);
    EXPECT_EQ(cuda_doc["variables"]["QUOTE"], "say \"hi\" # not a comment");
    EXPECT_EQ(cuda_doc["variables"]["NO"], "yes");
    EXPECT_FALSE(cuda_doc["variables"].contains("PATH"));
    EXPECT_NE(text.find("# not here, as pip cannot check them by hash: toolkit-extras"),
              std::string::npos);
    // The same pip lines the lockfile itself carries for its default target.
    EXPECT_EQ(cuda_doc["dependencies"][2]["pip"].size(), pip_section(lock, *cuda).lines.size());
}

TEST(ExportEnvYml, OnlyUnhashablePackagesLeaveACommentAndNoPipList) {
    auto lock = test::small_lockfile();
    auto& target = lock.targets[0];
    target.variables.clear();
    lock::LockedPackage vcs;
    vcs.name = "extras";
    vcs.source = LockedSource{SourceKind::vcs,
                              "git+https://example/extras.git",
                              hex64('9').substr(0, 40),
                              "",
                              std::nullopt,
                              ""};
    target.packages = {vcs};
    const std::string text = export_env_yml(lock, target, source);
    EXPECT_EQ(text.substr(text.find("name: ")),
              "name: demo\n"
              "channels:\n"
              "  - conda-forge\n"
              "dependencies:\n"
              "  - python=3.12.3\n"
              "  - pip\n"
              "  # not here, as pip cannot check them by hash: extras\n");
}

TEST(ExportRequirements, SmallLockIsExact) {
    const auto lock = test::small_lockfile();
    const auto exported = export_requirements(lock, lock.targets[0], source);
    EXPECT_EQ(exported.text,
              "# Exported by aitk-env from lockfiles/demo.lock.yml, target linux-x86_64-cpu "
              "(Python 3.12.3).\n"
              "# The target was resolved for that platform and Python, so no line has a marker.\n"
              "# Install into a fresh environment with:\n"
              "#   python -m pip install --require-hashes -r FILE\n"
              "--require-hashes\n"
              "--index-url https://pypi.org/simple\n"
              "app==2.0 --hash=sha256:" +
                  hex64('b') +
                  "\n"
                  "six==1.10 --hash=sha256:" +
                  hex64('a') + "\n");
    EXPECT_TRUE(exported.left_out.empty());
}

TEST(ExportRequirements, DirectReferencesCarryTheirHashTwiceAndVcsIsNamedAsLeftOut) {
    const auto lock = test::rich_lockfile();
    const auto exported =
        export_requirements(lock, *lock.find_target("linux-x86_64-cu130"), source);
    const std::string& text = exported.text;
    EXPECT_NE(
        text.find("\nrequests @ https://direct.example/requests-2.0-py3-none-any.whl#sha256=" +
                  hex64('3') + " --hash=sha256:" + hex64('3') + "\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("\nmpmath @ https://wheels.example/flat/mpmath-1e3-py3-none-any.whl"
                        "#sha256=" +
                        hex64('0') + " --hash=sha256:" + hex64('0') + "\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\n--extra-index-url https://download.pytorch.org/whl/cu130\n"),
              std::string::npos);
    EXPECT_NE(text.find("\noldpkg==0.9 --hash=sha256:" + hex64('4') + "\n"), std::string::npos);
    EXPECT_NE(text.find("# Not here, as pip cannot check them by hash: toolkit-extras\n"),
              std::string::npos);
    EXPECT_EQ(exported.left_out, std::vector<std::string>{"toolkit-extras"});
    EXPECT_EQ(text.find(" ; "), std::string::npos);  // no markers for one target
}

TEST(ExportPylock, ReadsBackWithEveryRequiredKeyAndTheLockedFiles) {
    auto lock = test::rich_lockfile();
    auto& cuda = lock.targets[1];
    ASSERT_EQ(cuda.id, "linux-x86_64-cu130");
    lock::LockedPackage folder;
    folder.name = "localpkg";
    folder.version = "0.1";
    folder.source =
        LockedSource{SourceKind::directory, "file:///work/localpkg", "", "", std::nullopt, ""};
    folder.source->editable = true;
    cuda.packages.insert(cuda.packages.begin() + 2, folder);
    cuda.packages.back().dependencies.push_back("not-in-target");
    for (auto& package : cuda.packages) {
        if (package.name == "toolkit-extras") package.source->revision = "main";
    }

    const std::string text = export_pylock(lock, cuda, source);
    toml::table doc;
    try {
        doc = toml::parse(text);
    } catch (const toml::parse_error& e) {
        FAIL() << e.what() << "\n" << text;
    }
    EXPECT_EQ(doc["lock-version"].value<std::string>(), "1.0");
    EXPECT_EQ(doc["created-by"].value<std::string>(), "aitk-env");
    EXPECT_EQ(doc["requires-python"].value<std::string>(), "==3.12.*");
    EXPECT_EQ(doc["environments"][0].value<std::string>(),
              "sys_platform == 'linux' and platform_machine == 'x86_64'");
    EXPECT_EQ(doc["tool"]["aitk-env"]["target"].value<std::string>(), "linux-x86_64-cu130");
    EXPECT_EQ(doc["tool"]["aitk-env"]["backend"].value<std::string>(), "cu130");

    const auto* packages = doc["packages"].as_array();
    ASSERT_NE(packages, nullptr);
    ASSERT_EQ(packages->size(), cuda.packages.size());
    std::map<std::string, const toml::table*> by_name;
    for (const auto& node : *packages) {
        const auto* table = node.as_table();
        ASSERT_NE(table, nullptr);
        by_name[(*table)["name"].value_or(std::string())] = table;
    }
    for (const auto& package : cuda.packages) {
        ASSERT_TRUE(by_name.count(package.name)) << package.name;
        const toml::table& entry = *by_name[package.name];
        if (!package.wheel) continue;
        EXPECT_EQ(entry["version"].value<std::string>(), package.version);
        const auto* wheels = entry["wheels"].as_array();
        ASSERT_NE(wheels, nullptr) << package.name;
        ASSERT_EQ(wheels->size(), 1u);
        const auto& wheel = *(*wheels)[0].as_table();
        EXPECT_EQ(wheel["name"].value<std::string>(), package.wheel->filename);
        EXPECT_EQ(wheel["url"].value<std::string>(),
                  package.wheel->url.substr(0, package.wheel->url.find('#')));
        if (package.wheel->size) {
            EXPECT_EQ(wheel["size"].value<std::int64_t>(),
                      static_cast<std::int64_t>(*package.wheel->size));
        } else {
            EXPECT_FALSE(wheel.contains("size")) << package.name;  // optional in PEP 751
        }
        EXPECT_EQ(wheel["hashes"]["sha256"].value<std::string>(), package.wheel->sha256);
    }
    const toml::table& torch = *by_name["torch"];
    EXPECT_EQ(torch["index"].value<std::string>(), "https://download.pytorch.org/whl/cu130");
    EXPECT_EQ(torch["dependencies"].as_array()->size(), 3u);  // not-in-target is not listed
    EXPECT_EQ(by_name["filelock"]->at_path("index").value<std::string>(),
              "https://pypi.org/simple");
    EXPECT_FALSE(by_name["mpmath"]->contains("index"));    // find-links: no simple index
    EXPECT_FALSE(by_name["requests"]->contains("index"));  // direct reference
    EXPECT_FALSE(by_name["requests"]->contains("marker"));

    const toml::table& vcs = *by_name["toolkit-extras"];
    EXPECT_FALSE(vcs.contains("version"));
    EXPECT_EQ(vcs["vcs"]["type"].value<std::string>(), "git");
    EXPECT_EQ(vcs["vcs"]["url"].value<std::string>(), "https://github.com/example/extras.git");
    EXPECT_EQ(vcs["vcs"]["commit-id"].value<std::string>(),
              "0123456789abcdef0123456789abcdef01234567");
    EXPECT_EQ(vcs["vcs"]["requested-revision"].value<std::string>(), "main");
    EXPECT_EQ(vcs["vcs"]["subdirectory"].value<std::string>(), "pkg");

    const toml::table& sdist = *by_name["oldpkg"];
    EXPECT_EQ(sdist["version"].value<std::string>(), "0.9");
    EXPECT_EQ(sdist["index"].value<std::string>(), "https://pypi.org/simple");
    EXPECT_EQ(sdist["sdist"]["url"].value<std::string>(),
              "https://files.example/oldpkg-0.9.tar.gz");
    EXPECT_EQ(sdist["sdist"]["size"].value<std::int64_t>(), 1234);
    EXPECT_EQ(sdist["sdist"]["hashes"]["sha256"].value<std::string>(), hex64('4'));

    const toml::table& local = *by_name["localpkg"];
    EXPECT_FALSE(local.contains("version"));
    EXPECT_EQ(local["directory"]["path"].value<std::string>(), "/work/localpkg");
    EXPECT_EQ(local["directory"]["editable"].value<bool>(), true);
}

TEST(ExportPylock, StringsAreEscapedAndAnArchiveWithoutHashIsLeftOut) {
    auto lock = test::small_lockfile();
    auto& target = lock.targets[0];
    target.marker_environment["platform_machine"] = "x\"86\n";
    lock::LockedPackage url;
    url.name = "nohash";
    url.source =
        LockedSource{SourceKind::url, "https://example/nohash.zip", "", "", std::nullopt, ""};
    target.packages.push_back(url);
    const std::string text = export_pylock(lock, target, source);
    const auto doc = toml::parse(text);
    EXPECT_EQ(doc["environments"][0].value<std::string>(),
              "sys_platform == 'linux' and platform_machine == 'x\"86\n'");
    EXPECT_EQ(doc["packages"].as_array()->size(), 2u);
    EXPECT_NE(text.find("# Not here, as this format cannot pin them: nohash (no sha256)"),
              std::string::npos);
}

lock::LockedTarget linux_target(std::string backend, std::string arch = "x86_64") {
    lock::LockedTarget t;
    t.os = "linux";
    t.arch = std::move(arch);
    t.backend = std::move(backend);
    t.id = "linux-" + t.arch + "-" + t.backend;
    t.python = "3.12.3";
    return t;
}

TEST(ExportDockerfile, TheBaseImageFollowsTheBackend) {
    const std::map<std::string, std::string> expected = {
        {"cu118", "nvidia/cuda:11.8.0-runtime-ubuntu22.04"},
        {"cu121", "nvidia/cuda:12.1.1-runtime-ubuntu22.04"},
        {"cu124", "nvidia/cuda:12.4.1-runtime-ubuntu22.04"},
        {"cu126", "nvidia/cuda:12.6.3-runtime-ubuntu24.04"},
        {"cu128", "nvidia/cuda:12.8.1-runtime-ubuntu24.04"},
        {"cu129", "nvidia/cuda:12.9.1-runtime-ubuntu24.04"},
        {"cu130", "nvidia/cuda:13.0.1-runtime-ubuntu24.04"},
        {"cu132", "nvidia/cuda:13.2.1-runtime-ubuntu24.04"},
        {"cpu", "ubuntu:24.04"},
        {"rocm6.4", "ubuntu:24.04"},
        {"xpu", "ubuntu:24.04"},
    };
    for (const auto& [backend, image] : expected) {
        const auto base = docker_base_for(linux_target(backend));
        EXPECT_EQ(base.image, image) << backend;
        EXPECT_EQ(base.platform, "linux/amd64");
        EXPECT_EQ(base.run_flags.starts_with("--gpus all"), backend.starts_with("cu")) << backend;
    }
    EXPECT_EQ(known_docker_cuda_backends().size(), 8u);
    EXPECT_EQ(docker_base_for(linux_target("cu128", "aarch64")).platform, "linux/arm64");
}

TEST(ExportDockerfile, TargetsNoLinuxImageRunsAreRefusedWithTheReason) {
    try {
        docker_base_for(linux_target("cu999"));
        FAIL() << "no error";
    } catch (const util::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no CUDA runtime image is known for the backend "
                                             "cu999 (known: cu118, cu121, cu124, cu126, cu128, "
                                             "cu129, cu130, cu132)"),
                  std::string::npos)
            << e.what();
    }
    auto windows = linux_target("cu126");
    windows.os = "windows";
    windows.id = "windows-x86_64-cu126";
    EXPECT_THROW(docker_base_for(windows), util::InputError);
    EXPECT_THROW(docker_base_for(linux_target("mps", "arm64")), util::InputError);
}

TEST(ExportDockerfile, FillsEveryPlaceholderAndKeepsOtherAtSigns) {
    auto lock = test::small_lockfile();
    lock.targets[0] = linux_target("cu128");
    DockerfileOptions options;
    options.lock_path = "lockfiles/demo.lock.yml";
    const std::string text = export_dockerfile(
        lock, lock.targets[0], source, options,
        "FROM --platform=@PLATFORM@ @BASE_IMAGE@\n# user@host @UNKNOWN@ @\n"
        "COPY @LOCK_PATH@ /opt/aitk-env/@LOCK_NAME@\n"
        "RUN aitk-env setup -l /opt/aitk-env/@LOCK_NAME@ -p @PREFIX@ --backend @BACKEND@\n"
        "# @RUN_FLAGS@@NAME@ @TARGET@ @PYTHON@ @SOURCE@\n");
    EXPECT_EQ(text,
              "FROM --platform=linux/amd64 nvidia/cuda:12.8.1-runtime-ubuntu24.04\n"
              "# user@host @UNKNOWN@ @\n"
              "COPY lockfiles/demo.lock.yml /opt/aitk-env/demo.lock.yml\n"
              "RUN aitk-env setup -l /opt/aitk-env/demo.lock.yml -p /opt/venv --backend cu128\n"
              "# --gpus all demo linux-x86_64-cu128 3.12.3 lockfiles/demo.lock.yml\n");
}

TEST(ExportDockerfile, DockerignoreListsExtraPathsThenExceptions) {
    DockerfileOptions options;
    options.ignore = {"env/prefix"};
    options.keep = {"env/prefix/.aitk-env/lock.yml"};
    EXPECT_EQ(export_dockerignore(options, "# head\n.git\n@IGNORE@\n"),
              "# head\n.git\nenv/prefix\n!env/prefix/.aitk-env/lock.yml\n");
    EXPECT_EQ(export_dockerignore({}, "# head\n@IGNORE@\n"), "# head\n\n");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
