#include "mirror_builder.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

#include "aitk/archive/reader.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"
#include "test_files.hpp"
#include "torch_markers.hpp"

namespace aitk::test {
namespace {

namespace stdfs = std::filesystem;

std::string percent_encode(std::string_view s) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
        if (plain) {
            out += c;
        } else {
            out += '%';
            out += hex[u >> 4];
            out += hex[u & 0xF];
        }
    }
    return out;
}

std::size_t depth(const std::string& index_path) {
    return static_cast<std::size_t>(std::count(index_path.begin(), index_path.end(), '/')) + 1;
}

std::string trimmed_index(std::string path) {
    while (!path.empty() && path.front() == '/')
        path.erase(path.begin());
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    if (path.empty()) throw std::invalid_argument("an index needs a path such as \"simple\"");
    return path;
}

// The METADATA of a wheel or the PKG-INFO of an sdist, for files added as they are.
BuiltArtifact describe_existing(const stdfs::path& file) {
    BuiltArtifact a;
    a.path = file;
    a.filename = file.filename().string();
    a.is_wheel = a.filename.ends_with(".whl");
    if (a.is_wheel) {
        a.metadata = archive::read_wheel_metadata(file).content;
    } else {
        archive::Reader reader = archive::Reader::open(file);
        while (const archive::Entry* e = reader.next()) {
            std::size_t slash = e->path.find('/');
            if (slash != std::string::npos && e->path.substr(slash) == "/PKG-INFO") {
                a.metadata = reader.read_all(1 << 20);
                break;
            }
        }
    }
    auto parsed = pep::CoreMetadata::parse(a.metadata);
    if (!parsed) throw std::runtime_error("no usable metadata in " + file.string());
    a.name = parsed->name;
    a.version = parsed->version_text;
    a.requires_python = parsed->requires_python;
    a.sha256 = fs::sha256_file_hex(file);
    a.size = stdfs::file_size(file);
    return a;
}

}  // namespace

MirrorBuilder::MirrorBuilder(std::filesystem::path root) : root_(std::move(root)) {
    stdfs::create_directories(root_);
}

void MirrorBuilder::add_index(const std::string& path, IndexOptions options) {
    indexes_[trimmed_index(path)].options = options;
}

MirrorBuilder::Index& MirrorBuilder::index(const std::string& path) {
    return indexes_[trimmed_index(path)];
}

std::string MirrorBuilder::index_url_path(const std::string& index) const {
    return "/" + trimmed_index(index) + "/";
}

std::filesystem::path MirrorBuilder::file_dir(const std::string& index_path,
                                              const std::string& project) {
    const Index& idx = index(index_path);
    if (idx.options.style == IndexStyle::pytorch) return root_ / trimmed_index(index_path);
    return root_ / "files" / trimmed_index(index_path) / project;
}

const PublishedFile& MirrorBuilder::add_wheel(const std::string& index_path, const WheelSpec& spec,
                                              PublishOptions options) {
    std::string project = pep::canonicalize_name(spec.name);
    return publish(index_path, build_wheel(spec, file_dir(index_path, project)),
                   std::move(options));
}

const PublishedFile& MirrorBuilder::add_sdist(const std::string& index_path, const SdistSpec& spec,
                                              PublishOptions options) {
    std::string project = pep::canonicalize_name(spec.name);
    return publish(index_path, build_sdist(spec, file_dir(index_path, project)),
                   std::move(options));
}

const PublishedFile& MirrorBuilder::add_file(const std::string& index_path,
                                             const std::filesystem::path& file,
                                             PublishOptions options) {
    BuiltArtifact a = describe_existing(file);
    stdfs::path dir = file_dir(index_path, pep::canonicalize_name(a.name));
    stdfs::create_directories(dir);
    stdfs::path placed = dir / a.filename;
    if (placed != file) stdfs::copy_file(file, placed, stdfs::copy_options::overwrite_existing);
    a.path = placed;
    return publish(index_path, std::move(a), std::move(options));
}

const PublishedFile& MirrorBuilder::publish(const std::string& index_path, BuiltArtifact artifact,
                                            PublishOptions options) {
    const std::string path = trimmed_index(index_path);
    Index& idx = index(path);
    PublishedFile f;
    f.index = path;
    f.project = pep::canonicalize_name(artifact.name);
    if (idx.options.style == IndexStyle::pytorch) {
        f.url_path = "/" + path + "/" + artifact.filename;
        f.href = "/" + path + "/" + percent_encode(artifact.filename);
    } else {
        std::string from_root = "files/" + path + "/" + f.project + "/";
        f.url_path = "/" + from_root + artifact.filename;
        std::string up;
        for (std::size_t i = 0; i < depth(path) + 1; ++i)
            up += "../";
        f.href = (idx.options.absolute_hrefs ? "/" : up) + percent_encode(from_root) +
                 percent_encode(artifact.filename);
    }
    f.has_metadata_file = artifact.is_wheel && options.pep658.value_or(idx.options.pep658);
    if (f.has_metadata_file) {
        write_file(artifact.path.string() + ".metadata", artifact.metadata);
    }
    f.artifact = std::move(artifact);
    f.options = std::move(options);
    idx.files.push_back(files_.size());
    files_.push_back(std::move(f));
    return files_.back();
}

std::vector<const PublishedFile*> MirrorBuilder::files_of(std::string_view project) const {
    std::string wanted = pep::canonicalize_name(project);
    std::vector<const PublishedFile*> out;
    for (const auto& f : files_) {
        if (f.project == wanted) out.push_back(&f);
    }
    return out;
}

void MirrorBuilder::write() {
    for (const auto& [path, idx] : indexes_)
        write_index(path, idx);
}

void MirrorBuilder::write_index(const std::string& path, const Index& idx) {
    const bool pypi = idx.options.style == IndexStyle::pypi;
    const bool json = pypi && idx.options.json;
    std::map<std::string, std::vector<const PublishedFile*>> projects;
    for (std::size_t i : idx.files)
        projects[files_[i].project].push_back(&files_[i]);

    const stdfs::path dir = root_ / path;
    stdfs::create_directories(dir);
    const char* repo_meta = "    <meta name=\"pypi:repository-version\" content=\"1.1\">\n";

    std::string root_html = "<!DOCTYPE html>\n<html>\n  <head>\n";
    if (pypi) root_html += repo_meta;
    root_html += "    <title>Simple index</title>\n  </head>\n  <body>\n";
    nlohmann::json root_json = {{"meta", {{"api-version", "1.1"}}},
                                {"projects", nlohmann::json::array()}};
    for (const auto& [project, files] : projects) {
        root_html += "    <a href=\"" + percent_encode(project) + "/\">" +
                     aitk::util::html_escape(project) + "</a><br/>\n";
        root_json["projects"].push_back({{"name", project}});
    }
    root_html += "  </body>\n</html>\n";
    write_file(dir / "index.html", root_html);
    if (json) write_file(dir / "index.json", root_json.dump(2) + "\n");

    for (auto& [project, files] : projects) {
        std::sort(files.begin(), files.end(), [](const PublishedFile* a, const PublishedFile* b) {
            return a->artifact.filename < b->artifact.filename;
        });
        std::string html = "<!DOCTYPE html>\n<html>\n  <head>\n";
        if (pypi) html += repo_meta;
        html += "    <title>Links for " + aitk::util::html_escape(project) +
                "</title>\n  </head>\n  <body>\n";
        html += "    <h1>Links for " + aitk::util::html_escape(project) + "</h1>\n";
        nlohmann::json page = {{"meta", {{"api-version", "1.1"}}},
                               {"name", project},
                               {"files", nlohmann::json::array()}};
        std::set<std::string> versions;
        for (const PublishedFile* f : files) {
            const BuiltArtifact& a = f->artifact;
            versions.insert(a.version);
            std::string href = f->href;
            if (f->options.hash_fragment) href += "#sha256=" + a.sha256;
            html += "    <a href=\"" + aitk::util::html_escape(href) + "\"";
            if (!a.requires_python.empty()) {
                html +=
                    " data-requires-python=\"" + aitk::util::html_escape(a.requires_python) + "\"";
            }
            nlohmann::json entry = {{"filename", a.filename},
                                    {"url", f->href},
                                    {"hashes", {{"sha256", a.sha256}}},
                                    {"size", a.size}};
            if (!a.requires_python.empty()) entry["requires-python"] = a.requires_python;
            if (f->has_metadata_file) {
                std::string meta_hash = "sha256=" + fs::sha256_hex(a.metadata);
                MetadataAttribute attr = idx.options.metadata_attribute;
                if (attr != MetadataAttribute::core_metadata) {
                    html += " data-dist-info-metadata=\"" + meta_hash + "\"";
                    entry["dist-info-metadata"] = {{"sha256", fs::sha256_hex(a.metadata)}};
                }
                if (attr != MetadataAttribute::dist_info_metadata) {
                    html += " data-core-metadata=\"" + meta_hash + "\"";
                    entry["core-metadata"] = {{"sha256", fs::sha256_hex(a.metadata)}};
                }
            } else {
                entry["core-metadata"] = false;
            }
            if (f->options.yanked) {
                html += " data-yanked=\"" + aitk::util::html_escape(*f->options.yanked) + "\"";
                entry["yanked"] = f->options.yanked->empty() ? nlohmann::json(true)
                                                             : nlohmann::json(*f->options.yanked);
            } else {
                entry["yanked"] = false;
            }
            html += ">" + aitk::util::html_escape(a.filename) + "</a><br/>\n";
            page["files"].push_back(std::move(entry));
        }
        html += "  </body>\n</html>\n";
        page["versions"] =
            nlohmann::json(std::vector<std::string>(versions.begin(), versions.end()));
        stdfs::create_directories(dir / project);
        write_file(dir / project / "index.html", html);
        if (json) write_file(dir / project / "index.json", page.dump(2) + "\n");
    }
}

MirrorBuilder build_mirror(const std::filesystem::path& root, const nlohmann::json& scenario) {
    MirrorBuilder mirror(root);
    auto strings = [](const nlohmann::json& j, const char* key) {
        std::vector<std::string> out;
        if (j.contains(key)) {
            for (const auto& s : j.at(key))
                out.push_back(s.get<std::string>());
        }
        return out;
    };
    auto publish_options = [](const nlohmann::json& j) {
        PublishOptions o;
        if (j.contains("yanked")) o.yanked = j.at("yanked").get<std::string>();
        if (j.contains("pep658")) o.pep658 = j.at("pep658").get<bool>();
        return o;
    };
    if (scenario.contains("indexes")) {
        for (const auto& [path, spec] : scenario.at("indexes").items()) {
            IndexOptions o =
                spec.value("style", "pypi") == "pytorch" ? IndexOptions::pytorch() : IndexOptions{};
            o.json = spec.value("json", o.json);
            o.pep658 = spec.value("pep658", o.pep658);
            o.absolute_hrefs = spec.value("absolute_hrefs", o.absolute_hrefs);
            mirror.add_index(path, o);
        }
    }
    for (const auto& w : scenario.value("wheels", nlohmann::json::array())) {
        WheelSpec spec;
        spec.name = w.at("name").get<std::string>();
        spec.version = w.at("version").get<std::string>();
        spec.requires_python = w.value("requires_python", "");
        spec.requires_dist = strings(w, "requires_dist");
        spec.provides_extra = strings(w, "provides_extra");
        spec.console_scripts = strings(w, "console_scripts");
        spec.gui_scripts = strings(w, "gui_scripts");
        spec.native_libraries = strings(w, "native");
        spec.padding_bytes = w.value("padding", std::uint64_t{0});
        spec.build_tag = w.value("build_tag", "");
        std::vector<std::string> tags = strings(w, "tags");
        if (tags.empty()) tags.push_back("py3-none-any");
        for (const auto& tag : tags) {
            spec.tag = tag;
            mirror.add_wheel(w.value("index", "simple"), spec, publish_options(w));
        }
    }
    for (const auto& s : scenario.value("sdists", nlohmann::json::array())) {
        SdistSpec spec;
        spec.name = s.at("name").get<std::string>();
        spec.version = s.at("version").get<std::string>();
        spec.requires_python = s.value("requires_python", "");
        spec.requires_dist = strings(s, "requires_dist");
        spec.provides_extra = strings(s, "provides_extra");
        mirror.add_sdist(s.value("index", "simple"), spec, publish_options(s));
    }
    mirror.write();
    return mirror;
}

namespace {

std::vector<std::string> torch_requires(const std::string& backend) {
    std::vector<std::string> r = {"filelock",      "typing-extensions>=4.10.0",
                                  "sympy>=1.13.3", "networkx>=2.5.1",
                                  "jinja2",        "fsspec>=0.8.5"};
    auto linux_dep = [&](const std::string& req) { r.push_back(req + "; " + linux_x86_marker); };
    if (backend == "cu126") {
        linux_dep("nvidia-cuda-runtime-cu12==12.6.77");
        linux_dep("nvidia-cublas-cu12==12.6.4.1");
        linux_dep("nvidia-cudnn-cu12==9.10.2.21");
        linux_dep("nvidia-nccl-cu12==2.27.3");
    } else if (backend == "cu130") {
        linux_dep("nvidia-cuda-runtime==13.0.96");
        linux_dep("nvidia-cublas==13.0.0.19");
        linux_dep("nvidia-cudnn-cu13==9.13.0.50");
        linux_dep("nvidia-nccl-cu13==2.27.7");
    }
    if (backend != "cpu") linux_dep("triton==3.5.0");
    return r;
}

}  // namespace

TorchScenario build_torch_like_scenario(const std::filesystem::path& root,
                                        const TorchScenarioOptions& options) {
    MirrorBuilder m(root);
    TorchScenario s;
    s.root = root;
    const std::string main = s.main_index;
    m.add_index(main);
    for (const auto& b : s.backends)
        m.add_index(s.torch_index_base + "/" + b, IndexOptions::pytorch());

    auto pure = [&](const std::string& name, const std::string& version,
                    std::vector<std::string> requires_dist = {}, std::string requires_python = {}) {
        WheelSpec w;
        w.name = name;
        w.version = version;
        w.requires_dist = std::move(requires_dist);
        w.requires_python = std::move(requires_python);
        m.add_wheel(main, w);
    };
    // Wheels for each Python and platform; `platforms` are tag platform parts.
    auto binary = [&](const std::string& index, WheelSpec w,
                      const std::vector<std::string>& platforms, PublishOptions publish = {}) {
        for (const auto& py : options.pythons) {
            for (const auto& platform : platforms) {
                w.tag = py + "-" + py + "-" + platform;
                m.add_wheel(index, w, publish);
            }
        }
    };
    auto platforms = [&](bool linux_arm, bool mac) {
        std::vector<std::string> p = {"manylinux_2_28_x86_64"};
        if (linux_arm) p.push_back("manylinux_2_28_aarch64");
        if (options.windows) p.push_back("win_amd64");
        if (mac && options.macos) p.push_back("macosx_11_0_arm64");
        return p;
    };

    // --- torch's ordinary dependencies ---
    pure("filelock", "3.16.1", {}, ">=3.8");
    pure("typing_extensions", "4.12.2", {}, ">=3.8");
    pure("mpmath", "1.3.0");
    pure("sympy", "1.13.3", {"mpmath<1.4,>=1.1.0"}, ">=3.8");
    {
        WheelSpec w;
        w.name = "networkx";
        w.version = "3.4.2";
        w.requires_python = ">=3.10";
        w.provides_extra = {"default"};
        w.requires_dist = {"numpy>=1.24; extra == \"default\""};
        m.add_wheel(main, w);
    }
    pure("Jinja2", "3.1.4", {"MarkupSafe>=2.0"}, ">=3.7");
    {
        WheelSpec w;
        w.name = "MarkupSafe";
        w.version = "3.0.2";
        w.requires_python = ">=3.9";
        w.native_libraries = {"markupsafe/_speedups.so"};
        binary(main, w, platforms(false, true));
        SdistSpec sd;
        sd.name = "MarkupSafe";
        sd.version = "3.0.2";
        sd.requires_python = ">=3.9";
        m.add_sdist(main, sd);
    }
    pure("fsspec", "2024.10.0", {}, ">=3.8");

    // --- numpy: versions, a yanked one, a '<' in Requires-Python, an sdist ---
    for (const std::string version : {"1.26.4", "2.0.0", "2.1.0", "2.2.0"}) {
        WheelSpec w;
        w.name = "numpy";
        w.version = version;
        w.requires_python = version == "1.26.4" ? ">=3.9,<3.13" : ">=3.10";
        w.console_scripts = {"f2py = numpy.f2py.f2py2e:main"};
        w.native_libraries = {"numpy/_core/_multiarray_umath.so"};
        PublishOptions publish;
        if (version == "2.0.0") publish.yanked = "broken ABI, use 2.0.1";
        std::vector<std::string> p = {"manylinux_2_17_x86_64.manylinux2014_x86_64"};
        if (options.windows) p.push_back("win_amd64");
        if (options.macos) p.push_back("macosx_14_0_arm64");
        binary(main, w, p, publish);
    }
    {
        SdistSpec sd;
        sd.name = "numpy";
        sd.version = "2.2.0";
        sd.requires_python = ">=3.10";
        m.add_sdist(main, sd);
    }
    {
        WheelSpec w;
        w.name = "pillow";
        w.version = "11.0.0";
        w.requires_python = ">=3.9";
        w.native_libraries = {"PIL/_imaging.so"};
        w.files = {{"PIL/__init__.py", "__version__ = \"11.0.0\"\n"}};
        binary(main, w, platforms(true, true));
    }

    // --- a package with extras, and its dependencies ---
    {
        WheelSpec w;
        w.name = "requests";
        w.version = "2.32.3";
        w.requires_python = ">=3.8";
        w.provides_extra = {"socks", "use-chardet-on-py3"};
        w.requires_dist = {"charset-normalizer<4,>=2",
                           "idna<4,>=2.5",
                           "urllib3<3,>=1.21.1",
                           "certifi>=2017.4.17",
                           "PySocks!=1.5.7,>=1.5.6; extra == \"socks\"",
                           "chardet<6,>=3.0.2; extra == \"use-chardet-on-py3\""};
        m.add_wheel(main, w);
    }
    pure("charset-normalizer", "3.4.0", {}, ">=3.7");
    pure("idna", "3.10", {}, ">=3.6");
    pure("urllib3", "2.2.3", {}, ">=3.8");
    pure("certifi", "2024.8.30", {}, ">=3.6");
    pure("PySocks", "1.7.1");
    pure("chardet", "5.2.0", {}, ">=3.7");

    // --- only an sdist ---
    {
        SdistSpec sd;
        sd.name = "sdist-only-pkg";
        sd.version = "0.3.1";
        sd.requires_dist = {"six>=1.16"};
        m.add_sdist(main, sd);
        pure("six", "1.16.0", {}, "!=3.0.*,!=3.1.*,!=3.2.*,>=2.7");
    }

    // --- every .data folder and both kinds of scripts ---
    {
        WheelSpec w;
        w.name = "datapkg";
        w.version = "1.0.0";
        w.files = {{"datapkg/__init__.py", "def main():\n    print('datapkg')\n"}};
        w.data["scripts"] = {{"datapkg-tool", "#!python\nimport datapkg\ndatapkg.main()\n", true}};
        w.data["purelib"] = {{"datapkg_extra/__init__.py", "EXTRA = True\n"}};
        w.data["platlib"] = {{"datapkg_native/__init__.py", "NATIVE = True\n"}};
        w.data["data"] = {{"share/datapkg/config.toml", "answer = 42\n"}};
        w.data["headers"] = {{"datapkg.h", "#define DATAPKG 1\n"}};
        w.console_scripts = {"datapkg = datapkg:main"};
        w.gui_scripts = {"datapkg-gui = datapkg:main"};
        m.add_wheel(main, w);
    }

    // --- CUDA runtime wheels (main index, as on PyPI) ---
    auto nvidia = [&](const std::string& name, const std::string& version,
                      const std::string& lib_dir, const std::vector<std::string>& libs,
                      bool windows, std::vector<std::string> requires_dist = {}) {
        WheelSpec w;
        w.name = name;
        w.version = version;
        w.requires_python = ">=3";
        w.requires_dist = std::move(requires_dist);
        w.files = {{"nvidia/__init__.py", ""}, {"nvidia/" + lib_dir + "/__init__.py", ""}};
        for (const auto& lib : libs)
            w.native_libraries.push_back("nvidia/" + lib_dir + "/lib/" + lib);
        w.tag = "py3-none-manylinux_2_27_x86_64";
        m.add_wheel(main, w);
        if (windows && options.windows) {
            w.native_libraries.clear();
            for (const auto& lib : libs) {
                std::string dll = lib.substr(3, lib.find('.') - 3) + "64_" +
                                  lib.substr(lib.rfind('.') + 1) + ".dll";
                w.native_libraries.push_back("nvidia/" + lib_dir + "/bin/" + dll);
            }
            w.tag = "py3-none-win_amd64";
            m.add_wheel(main, w);
        }
    };
    nvidia("nvidia-cuda-runtime-cu12", "12.6.77", "cuda_runtime", {"libcudart.so.12"}, true);
    nvidia("nvidia-cublas-cu12", "12.6.4.1", "cublas", {"libcublas.so.12", "libcublasLt.so.12"},
           true);
    nvidia("nvidia-cudnn-cu12", "9.10.2.21", "cudnn", {"libcudnn.so.9"}, true,
           {"nvidia-cublas-cu12"});
    nvidia("nvidia-nccl-cu12", "2.27.3", "nccl", {"libnccl.so.2"}, false);
    nvidia("nvidia-cuda-runtime", "13.0.96", "cu13", {"libcudart.so.13"}, true);
    nvidia("nvidia-cublas", "13.0.0.19", "cu13", {"libcublas.so.13"}, true);
    nvidia("nvidia-cudnn-cu13", "9.13.0.50", "cudnn", {"libcudnn.so.9"}, true, {"nvidia-cublas"});
    nvidia("nvidia-nccl-cu13", "2.27.7", "nccl", {"libnccl.so.2"}, false);

    // --- triton: Linux only, on the main index and the CUDA backend indexes ---
    {
        WheelSpec w;
        w.name = "triton";
        w.version = "3.5.0";
        w.requires_python = ">=3.10,<3.15";
        w.native_libraries = {"triton/_C/libtriton.so"};
        std::vector<std::string> p = {"manylinux_2_27_x86_64.manylinux_2_28_x86_64"};
        binary(main, w, p);
        for (const std::string backend : {"cu126", "cu130"}) {
            binary(s.torch_index_base + "/" + backend, w, p);
        }
    }

    // --- the torch family on the backend indexes ---
    struct Release {
        std::string torch, vision, audio;
        std::vector<std::string> backends;
    };
    const std::vector<Release> releases = {{"2.9.0", "0.24.0", "2.9.0", {"cpu", "cu126", "cu130"}},
                                           {"2.8.0", "0.23.0", "2.8.0", {"cpu", "cu126"}}};
    for (const auto& r : releases) {
        for (const auto& backend : r.backends) {
            const std::string index = s.torch_index_base + "/" + backend;
            const bool cpu = backend == "cpu";
            WheelSpec torch;
            torch.name = "torch";
            torch.version = r.torch + "+" + backend;
            torch.requires_python = ">=3.10";
            torch.requires_dist = torch_requires(backend);
            torch.console_scripts = {"torchrun = torch.distributed.run:main"};
            torch.padding_bytes = options.torch_padding_bytes;
            torch.files = {{"torch/__init__.py", "__version__ = \"" + torch.version + "\"\n"},
                           {"torch/version.py", "__version__ = \"" + torch.version + "\"\ncuda = " +
                                                    (cpu ? std::string("None")
                                                         : "\"" + backend.substr(2, 2) + "." +
                                                               backend.substr(4) + "\"") +
                                                    "\n"}};
            WheelSpec torch_linux = torch;
            torch_linux.native_libraries = {"torch/lib/libc10.so", "torch/lib/libtorch_cpu.so"};
            if (!cpu) torch_linux.native_libraries.push_back("torch/lib/libtorch_cuda.so");
            binary(index, torch_linux, {"manylinux_2_28_x86_64"});
            if (cpu) binary(index, torch_linux, {"manylinux_2_28_aarch64"});
            if (options.windows) {
                WheelSpec torch_win = torch;
                torch_win.native_libraries = {"torch/lib/c10.dll", "torch/lib/torch_cpu.dll",
                                              "torch/lib/fbgemm.dll", "torch/lib/libiomp5md.dll"};
                if (!cpu) {
                    torch_win.native_libraries.push_back("torch/lib/torch_cuda.dll");
                    torch_win.native_libraries.push_back("torch/lib/cudnn64_9.dll");
                }
                binary(index, torch_win, {"win_amd64"});
            }
            if (cpu && options.macos) {  // macOS wheels carry no local version
                WheelSpec torch_mac = torch;
                torch_mac.version = r.torch;
                torch_mac.native_libraries = {"torch/lib/libc10.dylib"};
                binary(index, torch_mac, {"macosx_11_0_arm64"});
            }
            for (const auto& [name, version, extra] :
                 {std::tuple<std::string, std::string, std::string>{"torchvision", r.vision,
                                                                    "pillow!=8.3.*,>=5.3.0"},
                  std::tuple<std::string, std::string, std::string>{"torchaudio", r.audio, ""}}) {
                WheelSpec w;
                w.name = name;
                w.version = version + "+" + backend;
                w.requires_python = ">=3.10";
                w.requires_dist = {"torch==" + r.torch};
                if (name == "torchvision") {
                    w.requires_dist.insert(w.requires_dist.begin(), "numpy");
                    w.requires_dist.push_back(extra);
                }
                w.native_libraries = {name + "/_C.so"};
                binary(index, w, {"manylinux_2_28_x86_64"});
                if (options.windows) {
                    w.native_libraries = {name + "/_C.pyd"};
                    binary(index, w, {"win_amd64"});
                }
                if (cpu && options.macos) {
                    w.version = version;
                    w.native_libraries = {name + "/_C.so"};
                    binary(index, w, {"macosx_11_0_arm64"});
                }
            }
        }
    }

    // --- PyPI's own torch (default CUDA build): must never win over the backend index ---
    {
        WheelSpec w;
        w.name = "torch";
        w.version = "2.9.0";
        w.requires_python = ">=3.10";
        w.requires_dist = torch_requires("cu126");
        w.native_libraries = {"torch/lib/libtorch_cuda.so"};
        binary(main, w, {"manylinux_2_28_x86_64"});
    }

    m.write();
    s.files = m.files();
    return s;
}

}  // namespace aitk::test
