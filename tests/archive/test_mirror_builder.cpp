// The mirror's pages must be what indexes serve: checked field by field here, and read by pip
// itself (file:// for the PyPI-style tree with its PEP 658 files; the in-process HTTP server for
// the root-relative PyTorch-style links and PEP 691 negotiation).
#include "mirror_builder.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/pep/metadata.hpp"
#include "http_server.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using namespace aitk::test;

namespace {

// Runs a shell command; an unexpected failure shows the end of its output.
int run(const std::string& command, bool should_succeed = true) {
    std::string output;
    std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return -1;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
        output.append(buffer, n);
    int rc = ::pclose(pipe);
    if (rc != 0 && should_succeed) {
        ADD_FAILURE() << command << "\n"
                      << output.substr(output.size() > 3000 ? output.size() - 3000 : 0);
    }
    return rc;
}

std::size_t count_of(const std::string& haystack, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = haystack.find(needle); at != std::string::npos;
         at = haystack.find(needle, at + 1)) {
        ++n;
    }
    return n;
}

nlohmann::json small_scenario() {
    return nlohmann::json::parse(R"({
      "indexes": {"simple": {}, "whl/cu126": {"style": "pytorch"}},
      "wheels": [
        {"name": "numpy", "version": "1.26.4", "requires_python": ">=3.9,<3.13",
         "tags": ["cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312-win_amd64"]},
        {"name": "numpy", "version": "2.0.0", "requires_python": ">=3.10", "yanked": "bad <abi>"},
        {"name": "Typing_Extensions", "version": "4.12.2"},
        {"name": "nometa", "version": "1.0", "pep658": false},
        {"index": "whl/cu126", "name": "torch", "version": "2.9.0+cu126",
         "tags": ["cp312-cp312-manylinux_2_28_x86_64"],
         "requires_dist": ["nvidia-cuda-runtime-cu12==12.6.77; platform_system == \"Linux\""]}
      ],
      "sdists": [{"name": "numpy", "version": "1.26.4"}]
    })");
}

}  // namespace

TEST(MirrorBuilder, PypiStylePagesCarryHashesEscapesYanksAndMetadata) {
    auto dir = aitk::fs::TempDir::create("mirror");
    MirrorBuilder m = build_mirror(dir.path(), small_scenario());
    EXPECT_EQ(m.files().size(), 7u);

    std::string root = aitk::fs::read_file(dir.path() / "simple" / "index.html");
    EXPECT_NE(root.find("<a href=\"numpy/\">numpy</a>"), std::string::npos);
    EXPECT_NE(root.find("<a href=\"typing-extensions/\">typing-extensions</a>"), std::string::npos);
    EXPECT_EQ(root.find("torch"), std::string::npos);  // torch lives on the other index

    std::string page = aitk::fs::read_file(dir.path() / "simple" / "numpy" / "index.html");
    EXPECT_NE(page.find("<meta name=\"pypi:repository-version\" content=\"1.1\">"),
              std::string::npos);
    EXPECT_EQ(count_of(page, "<a href="), 4u);
    EXPECT_NE(page.find("data-requires-python=\"&gt;=3.9,&lt;3.13\""), std::string::npos);
    EXPECT_NE(page.find("data-yanked=\"bad &lt;abi&gt;\""), std::string::npos);
    for (const PublishedFile* f : m.files_of("numpy")) {
        const BuiltArtifact& a = f->artifact;
        EXPECT_TRUE(fs::exists(a.path)) << a.path;
        EXPECT_EQ(fs::path(dir.path().string() + f->url_path), a.path);  // any separator
        EXPECT_EQ(f->href, "../../files/simple/numpy/" + a.filename);
        EXPECT_NE(page.find("<a href=\"" + f->href + "#sha256=" + a.sha256 + "\""),
                  std::string::npos)
            << a.filename;
        if (a.is_wheel) {
            ASSERT_TRUE(f->has_metadata_file);
            std::string meta = aitk::fs::read_file(a.path.string() + ".metadata");
            EXPECT_EQ(meta, a.metadata);
            std::string attr = "sha256=" + aitk::fs::sha256_hex(meta);
            EXPECT_NE(page.find("data-core-metadata=\"" + attr + "\""), std::string::npos);
            EXPECT_NE(page.find("data-dist-info-metadata=\"" + attr + "\""), std::string::npos);
        } else {
            EXPECT_FALSE(fs::exists(a.path.string() + ".metadata"));
        }
    }
    auto nometa = m.files_of("nometa");
    ASSERT_EQ(nometa.size(), 1u);
    EXPECT_FALSE(nometa[0]->has_metadata_file);
    EXPECT_EQ(aitk::fs::read_file(dir.path() / "simple/nometa/index.html").find("metadata"),
              std::string::npos);
}

TEST(MirrorBuilder, Pep691JsonPagesMatchTheHtml) {
    auto dir = aitk::fs::TempDir::create("mirror");
    MirrorBuilder m = build_mirror(dir.path(), small_scenario());
    auto root = nlohmann::json::parse(aitk::fs::read_file(dir.path() / "simple" / "index.json"));
    EXPECT_EQ(root["meta"]["api-version"], "1.1");
    EXPECT_EQ(root["projects"].size(), 3u);

    auto page = nlohmann::json::parse(aitk::fs::read_file(dir.path() / "simple/numpy/index.json"));
    EXPECT_EQ(page["name"], "numpy");
    EXPECT_EQ(page["versions"], nlohmann::json({"1.26.4", "2.0.0"}));
    ASSERT_EQ(page["files"].size(), 4u);
    for (const auto& file : page["files"]) {
        std::string filename = file["filename"];
        fs::path on_disk = dir.path() / "simple" / "numpy" / std::string(file["url"]);
        EXPECT_TRUE(fs::exists(on_disk.lexically_normal())) << on_disk;
        EXPECT_EQ(file["hashes"]["sha256"], aitk::fs::sha256_file_hex(on_disk));
        EXPECT_EQ(file["size"], fs::file_size(on_disk));
        bool wheel = filename.ends_with(".whl");
        if (wheel) {
            EXPECT_EQ(file["core-metadata"]["sha256"],
                      aitk::fs::sha256_file_hex(on_disk.string() + ".metadata"));
            EXPECT_EQ(file["dist-info-metadata"], file["core-metadata"]);
        } else {
            EXPECT_EQ(file["core-metadata"], false);
        }
        if (filename.starts_with("numpy-2.0.0")) {
            EXPECT_EQ(file["yanked"], "bad <abi>");
            EXPECT_EQ(file["requires-python"], ">=3.10");
        } else {
            EXPECT_EQ(file["yanked"], false);
        }
    }
}

TEST(MirrorBuilder, PytorchStyleIndexIsFlatWithEncodedRootRelativeLinks) {
    auto dir = aitk::fs::TempDir::create("mirror");
    MirrorBuilder m = build_mirror(dir.path(), small_scenario());
    const std::string wheel = "torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl";
    EXPECT_TRUE(fs::exists(dir.path() / "whl" / "cu126" / wheel));
    EXPECT_FALSE(fs::exists(dir.path() / "whl" / "cu126" / (wheel + ".metadata")));
    EXPECT_FALSE(fs::exists(dir.path() / "whl" / "cu126" / "torch" / "index.json"));
    std::string page = aitk::fs::read_file(dir.path() / "whl" / "cu126" / "torch" / "index.html");
    const PublishedFile& f = *m.files_of("torch").at(0);
    EXPECT_EQ(f.href, "/whl/cu126/torch-2.9.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(f.url_path, "/whl/cu126/" + wheel);
    EXPECT_NE(page.find("<a href=\"" + f.href + "#sha256=" + f.artifact.sha256 + "\">"),
              std::string::npos)
        << page;
    EXPECT_EQ(page.find("pypi:repository-version"), std::string::npos);
    EXPECT_NE(page.find(">" + wheel + "</a>"), std::string::npos);
    EXPECT_NE(aitk::fs::read_file(dir.path() / "whl" / "cu126" / "index.html")
                  .find("<a href=\"torch/\">torch</a>"),
              std::string::npos);
    EXPECT_EQ(m.index_url_path("whl/cu126"), "/whl/cu126/");
}

TEST(MirrorBuilder, AddFilePublishesExistingFiles) {
    auto dir = aitk::fs::TempDir::create("mirror");
    WheelSpec spec;
    spec.name = "outside";
    spec.version = "2.0";
    spec.requires_python = ">=3.7";
    BuiltArtifact built = build_wheel(spec, dir.path() / "elsewhere");
    SdistSpec sd;
    sd.name = "outside";
    sd.version = "2.0";
    BuiltArtifact sdist = build_sdist(sd, dir.path() / "elsewhere");
    MirrorBuilder m(dir.path() / "mirror");
    const PublishedFile& w = m.add_file("simple", built.path);
    EXPECT_EQ(w.artifact.sha256, built.sha256);
    EXPECT_EQ(w.artifact.requires_python, ">=3.7");
    EXPECT_EQ(w.project, "outside");
    EXPECT_TRUE(fs::exists(dir.path() / "mirror/files/simple/outside" / built.filename));
    EXPECT_TRUE(w.has_metadata_file);
    const PublishedFile& s = m.add_file("simple", sdist.path);
    EXPECT_EQ(s.artifact.version, "2.0");
    EXPECT_FALSE(s.artifact.is_wheel);
    m.write();
    EXPECT_EQ(
        count_of(aitk::fs::read_file(dir.path() / "mirror/simple/outside/index.html"), "<a href="),
        2u);
}

TEST(MirrorBuilder, TorchLikeScenarioHasTheWholeFamily) {
    auto dir = aitk::fs::TempDir::create("mirror");
    auto start = std::chrono::steady_clock::now();
    TorchScenario s = build_torch_like_scenario(dir.path());
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(10));
    EXPECT_GT(s.files.size(), 100u);

    std::set<std::string> torch_on_backend;
    for (const auto& f : s.files) {
        EXPECT_EQ(aitk::fs::sha256_file_hex(f.artifact.path), f.artifact.sha256);
        if (f.artifact.is_wheel) {
            EXPECT_EQ(check_wheel_record(f.artifact.path), std::vector<std::string>{})
                << f.artifact.filename;
        }
        if (f.project == "torch" && f.index != "simple") {
            torch_on_backend.insert(f.index + " " + f.artifact.version);
            auto meta = aitk::pep::CoreMetadata::parse(f.artifact.metadata);
            ASSERT_TRUE(meta.has_value());
            bool cuda = f.index != "whl/cpu";
            bool has_nvidia = false;
            for (const auto& r : meta->requires_dist) {
                if (r.starts_with("nvidia-")) {
                    has_nvidia = true;
                    EXPECT_NE(r.find("platform_system == \"Linux\""), std::string::npos) << r;
                }
            }
            EXPECT_EQ(has_nvidia, cuda) << f.artifact.filename;
        }
    }
    EXPECT_EQ(torch_on_backend,
              (std::set<std::string>{"whl/cpu 2.8.0", "whl/cpu 2.8.0+cpu", "whl/cpu 2.9.0",
                                     "whl/cpu 2.9.0+cpu", "whl/cu126 2.8.0+cu126",
                                     "whl/cu126 2.9.0+cu126", "whl/cu130 2.9.0+cu130"}));
    for (const std::string b : {"cpu", "cu126", "cu130"}) {
        for (const std::string p : {"torch", "torchvision", "torchaudio"}) {
            EXPECT_TRUE(fs::exists(dir.path() / "whl" / b / p / "index.html")) << b << " " << p;
        }
    }
    EXPECT_TRUE(fs::exists(dir.path() / "whl/cu130/torchvision-0.24.0+cu130-cp312-cp312-"
                                        "manylinux_2_28_x86_64.whl"));
    for (const std::string p :
         {"filelock", "typing-extensions", "sympy", "mpmath", "networkx", "jinja2", "markupsafe",
          "fsspec", "numpy", "pillow", "requests", "pysocks", "sdist-only-pkg", "datapkg",
          "nvidia-cuda-runtime-cu12", "nvidia-cudnn-cu13", "triton", "torch"}) {
        EXPECT_TRUE(fs::exists(dir.path() / "simple" / p / "index.json")) << p;
    }
    std::string sdist_only = aitk::fs::read_file(dir.path() / "simple/sdist-only-pkg/index.html");
    EXPECT_EQ(count_of(sdist_only, "<a href="), 1u);
    EXPECT_NE(sdist_only.find("sdist_only_pkg-0.3.1.tar.gz"), std::string::npos);
}

TEST(MirrorBuilder, PipResolvesFromTheFileTreeUsingPep658Metadata) {
    auto dir = aitk::fs::TempDir::create("mirror");
    TorchScenarioOptions options;
    options.pythons = {"cp312"};
    TorchScenario s = build_torch_like_scenario(dir.path() / "m", options);
    fs::path dest = dir.path() / "dl";
    // With dependencies: pip reads the .metadata files (their hashes are checked) and the
    // wheels (their #sha256 fragments are checked).
    ASSERT_EQ(run("python3 -m pip download --disable-pip-version-check --no-cache-dir "
                  "--index-url file://" +
                  (dir.path() / "m" / "simple").string() + " --dest " + dest.string() +
                  " 'requests[socks]==2.32.3'"),
              0);
    for (const char* f :
         {"requests-2.32.3-py3-none-any.whl", "pysocks-1.7.1-py3-none-any.whl",
          "idna-3.10-py3-none-any.whl", "urllib3-2.2.3-py3-none-any.whl",
          "certifi-2024.8.30-py3-none-any.whl", "charset_normalizer-3.4.0-py3-none-any.whl"}) {
        EXPECT_TRUE(fs::exists(dest / f)) << f;
    }
    // A damaged file is refused because of the hash in the page.
    const std::string six = "files/simple/six/six-1.16.0-py3-none-any.whl";
    aitk::fs::write_file_atomic(dir.path() / "m" / six, "damaged");
    EXPECT_NE(run("python3 -m pip download --disable-pip-version-check --no-cache-dir --no-deps "
                  "--index-url file://" +
                      (dir.path() / "m" / "simple").string() + " --dest " +
                      (dir.path() / "dl2").string() + " six",
                  false),
              0);
}

TEST(MirrorBuilder, PipUsesBothIndexStylesOverHttp) {
    auto dir = aitk::fs::TempDir::create("mirror");
    TorchScenarioOptions options;
    options.pythons = {"cp312"};
    options.windows = false;
    options.macos = false;
    TorchScenario s = build_torch_like_scenario(dir.path() / "m", options);
    HttpServer server;
    server.serve_directory(dir.path() / "m", "/");
    fs::path dest = dir.path() / "dl";
    std::string common =
        "python3 -m pip download --disable-pip-version-check --no-cache-dir "
        "--no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 "
        "--python-version 3.12 --implementation cp --dest " +
        dest.string();
    // Root-relative, %2B-encoded links of the backend index.
    ASSERT_EQ(run(common + " --index-url " + server.url("/whl/cu126/") + " torch==2.9.0+cu126"), 0);
    EXPECT_TRUE(fs::exists(dest / "torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl"));
    // The main index through PEP 691 JSON (pip asks for it first).
    // pip 23.2 does not widen --platform to older manylinux tags: name numpy's.
    ASSERT_EQ(run(common + " --platform manylinux_2_17_x86_64 --index-url " +
                  server.url("/simple/") + " numpy==2.1.0"),
              0);
    EXPECT_TRUE(fs::exists(
        dest / "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"));
    bool json_served = false;
    for (const auto& r : server.requests_for("/simple/numpy/")) {
        json_served = json_served || r.header("accept").find("json") != std::string::npos;
    }
    EXPECT_TRUE(json_served);
}

}  // namespace AITK_FILE_LOCAL
