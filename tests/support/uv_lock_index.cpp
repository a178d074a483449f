#include "uv_lock_index.hpp"

#include <stdexcept>

#include "aitk/lock/uv_lock.hpp"
#include "aitk/pep/wheel_filename.hpp"

namespace aitk::test {
namespace {

// The local index path of a registry: "simple" for PyPI, "whl/<backend>" for a PyTorch backend
// index, "extra-<n>" for the others.
std::string index_path_of(const std::string& registry, std::size_t& extra_count) {
    std::string plain = registry;
    while (!plain.empty() && plain.back() == '/')
        plain.pop_back();
    if (plain == "https://pypi.org/simple") return "simple";
    const auto whl = plain.find("/whl/");
    if (whl != std::string::npos) return "whl/" + plain.substr(whl + 5);
    return "extra-" + std::to_string(++extra_count);
}

std::string encoded(std::string path) {
    std::string out;
    for (char c : path) {
        if (c == '+') {
            out += "%2B";
        } else {
            out += c;
        }
    }
    return out;
}

// The value of `key = "…"` in one line of uv.lock, with where it starts; npos when absent.
std::size_t quoted_value(std::string_view line, std::string_view key, std::string_view& value) {
    const std::string needle = std::string(key) + " = \"";
    auto at = line.find(needle);
    if (at == std::string_view::npos) return std::string_view::npos;
    const auto begin = at + needle.size();
    const auto end = line.find('"', begin);
    if (end == std::string_view::npos) return std::string_view::npos;
    value = line.substr(begin, end - begin);
    return begin;
}

}  // namespace

UvLockIndex::UvLockIndex(const std::filesystem::path& root, std::string uv_lock_text,
                         const UvLockIndexOptions& options)
    : mirror_(root), text_(std::move(uv_lock_text)) {
    auto parsed = lock::parse_uv_lock(text_, "uv.lock");
    if (!parsed) throw std::runtime_error(parsed.error().describe());
    std::vector<pep::TagPriority> priorities;
    for (const auto& platform : options.platforms)
        priorities.push_back(pep::TagPriority::for_target(platform));
    std::size_t extra_count = 0;
    for (const auto& package : parsed->packages) {
        if (package.source.kind != lock::UvSource::Kind::registry) continue;
        auto [at, fresh] = registries_.emplace(package.source.location, "");
        if (fresh) {
            at->second = index_path_of(package.source.location, extra_count);
            if (at->second.starts_with("whl/")) {
                mirror_.add_index(at->second, IndexOptions::pytorch());
            } else {
                mirror_.add_index(at->second);
            }
        }
        const std::string& index = at->second;
        bool any = false;
        for (const auto& wheel : package.wheels) {
            auto name = pep::WheelFilename::parse(wheel.filename);
            if (!name) continue;
            bool fits = false;
            for (const auto& priority : priorities)
                fits |= priority.best_rank(std::span<const pep::Tag>(name->tags)).has_value();
            if (!fits) continue;
            any = true;
            // The tag part of the file name, as written ("cp312-cp312-manylinux_2_17_x86_64.…").
            std::string stem = wheel.filename.substr(0, wheel.filename.size() - 4);
            std::size_t dashes = 0;
            std::size_t cut = stem.size();
            while (dashes < 3 && cut > 0) {
                if (stem[--cut] == '-') ++dashes;
            }
            WheelSpec spec;
            spec.name = package.name;
            spec.version = name->version.to_string();
            if (name->build) {
                spec.build_tag = std::to_string(name->build->number) + name->build->suffix;
            }
            spec.tag = stem.substr(cut + 1);
            const auto& file = mirror_.add_wheel(index, spec);
            files_[wheel.url] = {file.url_path, file.artifact.sha256, file.artifact.size};
            ++wheels_;
        }
        if (!any && package.sdist && !package.sdist->url.empty()) {
            std::optional<std::filesystem::path> real;
            if (options.sdist_for) real = options.sdist_for(package.name, package.version);
            const PublishedFile* file = nullptr;
            if (real) {
                file = &mirror_.add_file(index, *real);
            } else {
                SdistSpec spec;
                spec.name = package.name;
                spec.version = package.version;
                file = &mirror_.add_sdist(index, spec);
            }
            files_[package.sdist->url] = {file->url_path, file->artifact.sha256,
                                          file->artifact.size};
            ++sdists_;
        }
    }
    mirror_.write();
}

std::string UvLockIndex::rewritten_lock(const std::string& base_url) const {
    std::string out;
    out.reserve(text_.size());
    std::size_t begin = 0;
    while (begin < text_.size()) {
        auto end = text_.find('\n', begin);
        if (end == std::string::npos) end = text_.size();
        std::string line = text_.substr(begin, end - begin);
        begin = end + 1;
        std::string_view url;
        if (auto at = quoted_value(line, "url", url); at != std::string_view::npos) {
            auto found = files_.find(std::string(url));
            if (found != files_.end()) {
                const auto& file = found->second;
                line.replace(at, url.size(), base_url + encoded(file.url_path));
                std::string_view hash;
                if (auto h = quoted_value(line, "hash", hash); h != std::string_view::npos)
                    line.replace(h, hash.size(), "sha256:" + file.sha256);
                const std::string size_key = "size = ";
                if (auto s = line.find(size_key); s != std::string::npos) {
                    auto digits = s + size_key.size();
                    auto stop = line.find_first_not_of("0123456789", digits);
                    line.replace(digits, stop - digits, std::to_string(file.size));
                }
            }
        }
        // `registry = "…"` of sources, `index = "…"` of requirements: one per line.
        for (const std::string_view key : {"registry", "index"}) {
            std::string_view value;
            const auto at = quoted_value(line, key, value);
            if (at == std::string_view::npos) continue;
            auto found = registries_.find(std::string(value));
            if (found != registries_.end())
                line.replace(at, value.size(), base_url + "/" + found->second);
        }
        out += line;
        if (end < text_.size()) out += '\n';
    }
    return out;
}

}  // namespace aitk::test
