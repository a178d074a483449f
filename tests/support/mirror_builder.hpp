#pragma once
// A package mirror on disk, made of real files: PEP 503 HTML pages (with #sha256= fragments,
// HTML-escaped data-requires-python, data-yanked, data-core-metadata and the older
// data-dist-info-metadata), PEP 691 JSON pages beside them (index.json next to index.html, for
// the test server's content negotiation), PEP 658 "<file>.metadata" files, and PyTorch-style
// backend indexes (one flat folder of files, %2B in hrefs, root-relative links, no JSON).
//
// Layout under the root:
//   <index>/index.html, <index>/index.json                    the project list
//   <index>/<project>/index.html, <index>/<project>/index.json one page per project
//   files/<index>/<project>/<filename>[.metadata]             pypi-style files
//   <index>/<filename>                                        pytorch-style files
// Serve the root at "/" (root-relative links assume it).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "wheel_builder.hpp"

namespace aitk::test {

enum class IndexStyle {
    pypi,     // files beside the pages' tree, relative hrefs, JSON pages, PEP 658 files
    pytorch,  // download.pytorch.org/whl/<backend>/: flat files, "/whl/cu126/x%2Bcu126.whl"
};

enum class MetadataAttribute { core_metadata, dist_info_metadata, both };

struct IndexOptions {
    IndexStyle style = IndexStyle::pypi;
    bool json = true;    // PEP 691 pages (pypi style only)
    bool pep658 = true;  // .metadata files, advertised in the pages
    MetadataAttribute metadata_attribute = MetadataAttribute::both;
    bool absolute_hrefs = false;  // pypi style: "/files/..." instead of "../../files/..."

    static IndexOptions pytorch() {
        IndexOptions o;
        o.style = IndexStyle::pytorch;
        o.json = false;
        o.pep658 = false;
        return o;
    }
};

struct PublishOptions {
    std::optional<std::string> yanked;  // a reason ("" = yanked without one)
    std::optional<bool> pep658;         // overrides the index's setting for this file
    bool hash_fragment = true;          // "#sha256=" on the link
};

struct PublishedFile {
    std::string index;    // "simple", "whl/cu126"
    std::string project;  // normalised name
    BuiltArtifact artifact;
    PublishOptions options;
    std::string href;      // as written in the page, without the fragment
    std::string url_path;  // "/files/simple/numpy/numpy-2.1.0-....whl" (decoded, from root)
    bool has_metadata_file = false;
};

inline constexpr std::string_view pep691_json = "application/vnd.pypi.simple.v1+json";

class MirrorBuilder {
  public:
    explicit MirrorBuilder(std::filesystem::path root);

    const std::filesystem::path& root() const noexcept { return root_; }

    // Declares an index at "<root>/<path>/" ("simple", "whl/cu126"). Indexes used without
    // being declared are pypi style.
    void add_index(const std::string& path, IndexOptions options = {});

    const PublishedFile& add_wheel(const std::string& index, const WheelSpec& spec,
                                   PublishOptions options = {});
    const PublishedFile& add_sdist(const std::string& index, const SdistSpec& spec,
                                   PublishOptions options = {});
    // Publishes an existing file (a real wheel, a hostile one); metadata is read from a wheel.
    const PublishedFile& add_file(const std::string& index, const std::filesystem::path& file,
                                  PublishOptions options = {});

    // Writes (or rewrites) every index page. Call after the last add_*.
    void write();

    const std::vector<PublishedFile>& files() const noexcept { return files_; }
    std::vector<const PublishedFile*> files_of(std::string_view project) const;
    // "/simple/", "/whl/cu126/" (root-relative URL paths, with the trailing slash).
    std::string index_url_path(const std::string& index) const;

  private:
    struct Index {
        IndexOptions options;
        std::vector<std::size_t> files;  // into files_
    };
    Index& index(const std::string& path);
    const PublishedFile& publish(const std::string& index, BuiltArtifact artifact,
                                 PublishOptions options);
    std::filesystem::path file_dir(const std::string& index, const std::string& project);
    void write_index(const std::string& path, const Index& index);

    std::filesystem::path root_;
    std::map<std::string, Index> indexes_;
    std::vector<PublishedFile> files_;
};

// Builds a mirror from a compact JSON description:
//   {"indexes": {"simple": {}, "whl/cu126": {"style": "pytorch"}},
//    "wheels": [{"index": "simple", "name": "numpy", "version": "2.1.0",
//                "tags": ["cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312-win_amd64"],
//                "requires_dist": ["..."], "requires_python": ">=3.10",
//                "provides_extra": [], "console_scripts": [], "native": ["numpy/x.so"],
//                "padding": 0, "yanked": "reason", "pep658": true}],
//    "sdists": [{"index": "simple", "name": "...", "version": "...", "requires_dist": []}]}
// Keys other than name/version are optional ("tags" defaults to ["py3-none-any"]).
MirrorBuilder build_mirror(const std::filesystem::path& root, const nlohmann::json& scenario);

// The ready scenario "torch-like family on two backend indexes" (several, in fact):
// - main index "simple" (pypi style, JSON + PEP 658): torch's dependencies (filelock,
//   typing-extensions, sympy, mpmath, networkx, jinja2, markupsafe, fsspec), nvidia-* CUDA 12
//   and 13 runtime wheels (Linux and Windows), triton (Linux), numpy (several versions, one
//   yanked, one with "<" in Requires-Python), pillow, requests with extras (socks), its
//   dependencies, a plain PyPI-style torch 2.9.0 (the dependency-confusion bait), "datapkg"
//   (every .data folder, console and GUI scripts) and "sdist-only-pkg" (no wheels).
// - backend indexes "whl/cpu", "whl/cu126", "whl/cu130" (pytorch style): torch 2.9.0 and
//   2.8.0, torchvision 0.24.0 / 0.23.0, torchaudio 2.9.0 / 2.8.0 with +cpu / +cu126 / +cu130
//   locals (2.8.0 has no cu130; macOS arm64 wheels on cpu without a local), triton on the CUDA
//   indexes. CUDA torch wheels require nvidia-* with `platform_system == "Linux"` markers.
struct TorchScenarioOptions {
    std::vector<std::string> pythons = {"cp311", "cp312"};
    bool windows = true;
    bool macos = true;
    std::uint64_t torch_padding_bytes = 0;  // make torch wheels big
};

struct TorchScenario {
    std::filesystem::path root;
    std::string main_index = "simple";     // serve root at "/": index URL is base + "/simple/"
    std::string torch_index_base = "whl";  // backend B at base + "/whl/B/"
    std::vector<std::string> backends = {"cpu", "cu126", "cu130"};
    std::vector<PublishedFile> files;
};

TorchScenario build_torch_like_scenario(const std::filesystem::path& root,
                                        const TorchScenarioOptions& options = {});

}  // namespace aitk::test
