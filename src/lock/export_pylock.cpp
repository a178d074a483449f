#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "aitk/lock/exporters.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/util/major_minor.hpp"
#include "lock_text.hpp"

namespace aitk::lock {
namespace {

// A TOML basic string: the escapes TOML 1.0 defines, \uXXXX for other control characters.
std::string toml_string(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x",
                                  static_cast<unsigned>(static_cast<unsigned char>(c)));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    return out + '"';
}

// `{key = value, ...}` from pairs whose values are already TOML.
std::string inline_table(const std::vector<std::pair<std::string, std::string>>& fields) {
    std::string out = "{";
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i != 0) out += ", ";
        out += fields[i].first + " = " + fields[i].second;
    }
    return out + "}";
}

std::string file_url(std::string_view url) {
    const std::string stored = detail::storable_url(url);
    return std::string(pep::split_fragment(stored).url);
}

std::string hashes(const std::string& sha256) {
    return inline_table({{"sha256", toml_string(sha256)}});
}

// The fields of a downloadable file: url, size when known, hashes.
std::vector<std::pair<std::string, std::string>> file_fields(std::string_view url,
                                                             std::optional<std::uint64_t> size,
                                                             const std::string& sha256) {
    std::vector<std::pair<std::string, std::string>> fields = {{"url", toml_string(file_url(url))}};
    if (auto known = detail::known_size(size)) fields.emplace_back("size", std::to_string(*known));
    fields.emplace_back("hashes", hashes(sha256));
    return fields;
}

std::string local_path(std::string_view url) {
    if (url.starts_with("file://")) url.remove_prefix(7);
    return std::string(url);
}

// The entry of one package, or "" when the format has no way to pin it (left_out says why).
std::string package_entry(const Lockfile& lock, const LockedTarget& target,
                          const LockedPackage& package, std::vector<std::string>& left_out) {
    const LockedSource* source = package.source ? &*package.source : nullptr;
    const bool source_tree =
        !package.wheel && source != nullptr &&
        (source->kind == SourceKind::vcs || source->kind == SourceKind::directory);
    std::string out = "[[packages]]\nname = " + toml_string(package.name) + "\n";
    // A source tree's version is whatever its checkout builds, so PEP 751 leaves it out.
    if (!package.version.empty() && !source_tree) {
        out += "version = " + toml_string(package.version) + "\n";
    }
    std::vector<std::string> dependencies;
    for (const auto& name : package.dependencies) {
        if (target.find(name) != nullptr) dependencies.push_back(name);
    }
    if (!dependencies.empty()) {
        out += "dependencies = [";
        for (std::size_t i = 0; i < dependencies.size(); ++i) {
            out += (i == 0 ? "" : ", ") + inline_table({{"name", toml_string(dependencies[i])}});
        }
        out += "]\n";
    }
    const LockedIndex* index = lock.find_index(package.index);
    const bool from_index = index != nullptr && index->kind != IndexKind::find_links;
    if (package.wheel) {
        if (from_index) out += "index = " + toml_string(detail::storable_url(index->url)) + "\n";
        auto fields = file_fields(package.wheel->url, package.wheel->size, package.wheel->sha256);
        fields.insert(fields.begin(), {"name", toml_string(package.wheel->filename)});
        out += "wheels = [\n  " + inline_table(fields) + ",\n]\n";
        return out;
    }
    if (source == nullptr) {
        left_out.push_back(package.name + " (no file)");
        return {};
    }
    if (source->kind == SourceKind::vcs) {
        if (source->commit.empty()) {
            left_out.push_back(package.name + " (no commit)");
            return {};
        }
        std::string_view url = source->url;
        std::string type = "git";
        if (const auto plus = url.find('+'); plus != std::string_view::npos &&
                                             url.find("://") != std::string_view::npos &&
                                             plus < url.find("://")) {
            type = std::string(url.substr(0, plus));
            url.remove_prefix(plus + 1);
        }
        std::vector<std::pair<std::string, std::string>> fields = {
            {"type", toml_string(type)}, {"url", toml_string(detail::storable_url(url))}};
        if (!source->revision.empty()) {
            fields.emplace_back("requested-revision", toml_string(source->revision));
        }
        fields.emplace_back("commit-id", toml_string(source->commit));
        if (!source->subdirectory.empty()) {
            fields.emplace_back("subdirectory", toml_string(source->subdirectory));
        }
        out += "vcs = " + inline_table(fields) + "\n";
        return out;
    }
    if (source->kind == SourceKind::directory) {
        std::vector<std::pair<std::string, std::string>> fields = {
            {"path", toml_string(local_path(source->url))}};
        fields.emplace_back("editable", source->editable ? "true" : "false");
        if (!source->subdirectory.empty()) {
            fields.emplace_back("subdirectory", toml_string(source->subdirectory));
        }
        out += "directory = " + inline_table(fields) + "\n";
        return out;
    }
    if (source->sha256.empty()) {
        left_out.push_back(package.name + " (no sha256)");
        return {};
    }
    auto fields = file_fields(source->url, source->size, source->sha256);
    if (source->kind == SourceKind::sdist && from_index && source->subdirectory.empty()) {
        out += "index = " + toml_string(detail::storable_url(index->url)) + "\n";
        out += "sdist = " + inline_table(fields) + "\n";
        return out;
    }
    if (!source->subdirectory.empty()) {
        fields.emplace_back("subdirectory", toml_string(source->subdirectory));
    }
    out += "archive = " + inline_table(fields) + "\n";
    return out;
}

}  // namespace

std::string target_environment_marker(const LockedTarget& target) {
    const auto value = [&](const std::string& key, std::string fallback) {
        const auto found = target.marker_environment.find(key);
        return found == target.marker_environment.end() ? fallback : found->second;
    };
    std::string platform = target.os;
    if (target.os == "windows") platform = "win32";
    if (target.os == "macos") platform = "darwin";
    std::string machine = target.arch;
    if (target.os == "windows" && target.arch == "x86_64") machine = "AMD64";
    const auto quoted = [](const std::string& text) {
        // Marker strings may use either quote; pick the one the value does not contain.
        return text.find('\'') == std::string::npos ? "'" + text + "'" : "\"" + text + "\"";
    };
    return "sys_platform == " + quoted(value("sys_platform", platform)) +
           " and platform_machine == " + quoted(value("platform_machine", machine));
}

std::string export_pylock(const Lockfile& lock, const LockedTarget& target,
                          const ExportSource& source) {
    std::vector<std::string> left_out;
    std::string packages;
    for (const auto& package : target.packages) {
        auto entry = package_entry(lock, target, package, left_out);
        if (entry.empty()) continue;
        packages += "\n" + entry;
    }

    std::string out;
    out += "# pylock.toml (PEP 751) for " + target.id + ", exported by aitk-env from " +
           source.label + ".\n";
    out += "# One target: every package is installed; the backend is in [tool.aitk-env].\n";
    if (!left_out.empty()) {
        std::string names;
        for (const auto& name : left_out)
            names += (names.empty() ? "" : ", ") + name;
        out += "# Not here, as this format cannot pin them: " + names + "\n";
    }
    out += "lock-version = \"1.0\"\n";
    out += "environments = [" + toml_string(target_environment_marker(target)) + "]\n";
    out +=
        "requires-python = " + toml_string("==" + util::major_minor(target.python) + ".*") + "\n";
    out += "extras = []\n";
    out += "dependency-groups = []\n";
    out += "default-groups = []\n";
    out += "created-by = \"aitk-env\"\n";
    out += packages;
    out += "\n[tool.aitk-env]\n";
    out += "target = " + toml_string(target.id) + "\n";
    out += "backend = " + toml_string(target.backend) + "\n";
    out += "python = " + toml_string(target.python) + "\n";
    if (!lock.input_hash.empty()) out += "input-hash = " + toml_string(lock.input_hash) + "\n";
    return out;
}

}  // namespace aitk::lock
