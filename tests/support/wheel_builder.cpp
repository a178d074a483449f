#include "wheel_builder.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::test {
namespace {

namespace stdfs = std::filesystem;

std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = 1469598103934665603ull;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

// "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64" -> every interpreter-abi-platform.
std::vector<std::string> expand_tags(const std::string& compressed) {
    auto parts = util::split(compressed, '-');
    if (parts.size() != 3) throw std::invalid_argument("bad wheel tag '" + compressed + "'");
    std::vector<std::string> out;
    for (auto i : util::split(parts[0], '.')) {
        for (auto a : util::split(parts[1], '.')) {
            for (auto p : util::split(parts[2], '.')) {
                out.push_back(std::string(i) + "-" + std::string(a) + "-" + std::string(p));
            }
        }
    }
    return out;
}

std::string platform_part(const std::string& compressed) {
    auto parts = util::split(compressed, '-');
    return parts.size() == 3 ? std::string(parts[2]) : std::string();
}

std::string native_bytes(const std::string& path) {
    std::string body = pseudo_random_bytes(512, fnv1a(path));
    std::string lower = util::to_lower(path);
    auto ends = [&](std::string_view s) { return lower.ends_with(s); };
    if (ends(".dll") || ends(".pyd") || ends(".exe")) {
        body[0] = 'M';
        body[1] = 'Z';
        body[0x3c] = static_cast<char>(0x80);  // e_lfanew: where the PE header starts
        body[0x3d] = body[0x3e] = body[0x3f] = '\0';
        body.replace(0x80, 4, std::string("PE\0\0", 4));
    } else if (ends(".dylib")) {
        body.replace(0, 4, "\xcf\xfa\xed\xfe");
    } else {  // .so, .so.12, anything else native: ELF64, little endian
        body.replace(0, 16,
                     std::string("\x7f"
                                 "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
                                 16));
    }
    return body;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::vector<std::string> parse_csv_line(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

std::string record_hash(const std::string& content) {
    fs::Sha256 h;
    h.update(content);
    auto digest = h.finish();
    return "sha256=" + fs::base64url_nopad(digest.data(), digest.size());
}

std::string metadata_text(const std::string& name, const std::string& version,
                          const std::string& summary, const std::string& requires_python,
                          const std::vector<std::string>& requires_dist,
                          const std::vector<std::string>& provides_extra,
                          const std::vector<std::string>& extra_lines) {
    std::string m = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
    m += "Summary: " + (summary.empty() ? name + " (test fixture)" : summary) + "\n";
    if (!requires_python.empty()) m += "Requires-Python: " + requires_python + "\n";
    for (const auto& line : extra_lines)
        m += line + "\n";
    for (const auto& e : provides_extra)
        m += "Provides-Extra: " + e + "\n";
    for (const auto& r : requires_dist)
        m += "Requires-Dist: " + r + "\n";
    m += "\n" + name + " is a package built by aitk-env's tests.\n";
    return m;
}

std::string toml_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string toml_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i != 0) out += ", ";
        out += toml_string(items[i]);
    }
    return out + "]";
}

// pyproject.toml [project] table: requirements with a plain `extra == "x"` marker go to
// optional-dependencies, the others to dependencies.
std::string pyproject_text(const SdistSpec& spec) {
    std::vector<std::string> deps;
    std::map<std::string, std::vector<std::string>> optional;
    for (const auto& e : spec.provides_extra)
        optional[e];
    for (const auto& r : spec.requires_dist) {
        std::size_t semi = r.find(';');
        if (semi == std::string::npos) {
            deps.push_back(r);
            continue;
        }
        std::string marker(util::trim(std::string_view(r).substr(semi + 1)));
        std::string requirement(util::trim(std::string_view(r).substr(0, semi)));
        std::string extra;
        for (const char* q : {"extra == \"", "extra == '"}) {
            std::string_view prefix(q);
            if (marker.starts_with(prefix) && marker.size() > prefix.size() + 1 &&
                marker.back() == prefix.back()) {
                extra = marker.substr(prefix.size(), marker.size() - prefix.size() - 1);
            }
        }
        if (!extra.empty() && extra.find_first_of("\"' ") == std::string::npos) {
            optional[extra].push_back(requirement);
        } else if (marker.find("extra") == std::string::npos) {
            deps.push_back(r);
        }
    }
    std::string t =
        "[build-system]\nrequires = [\"setuptools>=61\"]\n"
        "build-backend = \"setuptools.build_meta\"\n\n[project]\n";
    t += "name = " + toml_string(spec.name) + "\n";
    t += "version = " + toml_string(spec.version) + "\n";
    t += "description = " +
         toml_string(spec.summary.empty() ? spec.name + " (test fixture)" : spec.summary) + "\n";
    if (!spec.requires_python.empty()) {
        t += "requires-python = " + toml_string(spec.requires_python) + "\n";
    }
    t += "dependencies = " + toml_list(deps) + "\n";
    if (!optional.empty()) {
        t += "\n[project.optional-dependencies]\n";
        for (const auto& [extra, reqs] : optional)
            t += extra + " = " + toml_list(reqs) + "\n";
    }
    return t;
}

}  // namespace

std::string pseudo_random_bytes(std::uint64_t size, std::uint64_t seed) {
    std::string out(static_cast<std::size_t>(size), '\0');
    std::uint64_t x = seed | 1;
    std::size_t i = 0;
    for (; i + 8 <= out.size(); i += 8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        std::uint64_t v = x * 0x2545F4914F6CDD1Dull;
        std::memcpy(out.data() + i, &v, 8);
    }
    for (; i < out.size(); ++i) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        out[i] = static_cast<char>((x * 0x2545F4914F6CDD1Dull) >> 56);
    }
    return out;
}

std::string distribution_name(std::string_view project) {
    std::string name = pep::canonicalize_name(project);
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

std::string module_name(std::string_view project) {
    return distribution_name(project);
}

std::string wheel_filename(const WheelSpec& spec) {
    std::string f = distribution_name(spec.name) + "-" + spec.version;
    if (!spec.build_tag.empty()) f += "-" + spec.build_tag;
    return f + "-" + spec.tag + ".whl";
}

std::string sdist_filename(const SdistSpec& spec) {
    return distribution_name(spec.name) + "-" + spec.version + ".tar.gz";
}

std::string wheel_metadata(const WheelSpec& spec) {
    return metadata_text(spec.name, spec.version, spec.summary, spec.requires_python,
                         spec.requires_dist, spec.provides_extra, spec.extra_metadata);
}

BuiltArtifact build_wheel(const WheelSpec& spec, const std::filesystem::path& out_dir) {
    const std::string dist = distribution_name(spec.name) + "-" + spec.version;
    const std::string dist_info = dist + ".dist-info/";
    const std::string module = module_name(spec.name);

    struct Member {
        std::string path;
        std::string content;
        bool executable = false;
        bool store = false;
    };
    std::vector<Member> package;
    if (spec.files.empty()) {
        package.push_back({module + "/__init__.py", "__version__ = \"" + spec.version + "\"\n"});
    }
    for (const auto& f : spec.files)
        package.push_back({f.path, f.content, f.executable});
    for (const auto& lib : spec.native_libraries)
        package.push_back({lib, native_bytes(lib), true});
    if (spec.padding_bytes > 0) {
        package.push_back({module + "/_padding.bin",
                           pseudo_random_bytes(spec.padding_bytes, fnv1a(dist)), false, true});
    }
    std::sort(package.begin(), package.end(),
              [](const Member& a, const Member& b) { return a.path < b.path; });
    std::vector<Member> data;
    for (const auto& [key, files] : spec.data) {
        for (const auto& f : files) {
            data.push_back({dist + ".data/" + key + "/" + f.path, f.content, f.executable});
        }
    }
    std::sort(data.begin(), data.end(),
              [](const Member& a, const Member& b) { return a.path < b.path; });

    std::vector<Member> meta;
    meta.push_back({dist_info + "METADATA", wheel_metadata(spec)});
    bool purelib = spec.root_is_purelib.value_or(platform_part(spec.tag) == "any");
    std::string wheel = "Wheel-Version: 1.0\nGenerator: aitk-env-tests (0.1)\nRoot-Is-Purelib: ";
    wheel += purelib ? "true\n" : "false\n";
    for (const auto& t : expand_tags(spec.tag))
        wheel += "Tag: " + t + "\n";
    if (!spec.build_tag.empty()) wheel += "Build: " + spec.build_tag + "\n";
    meta.push_back({dist_info + "WHEEL", wheel});
    if (!spec.console_scripts.empty() || !spec.gui_scripts.empty()) {
        std::string ep;
        if (!spec.console_scripts.empty()) {
            ep += "[console_scripts]\n";
            for (const auto& s : spec.console_scripts)
                ep += s + "\n";
        }
        if (!spec.gui_scripts.empty()) {
            if (!ep.empty()) ep += "\n";
            ep += "[gui_scripts]\n";
            for (const auto& s : spec.gui_scripts)
                ep += s + "\n";
        }
        meta.push_back({dist_info + "entry_points.txt", ep});
    }

    std::vector<archive::WriteEntry> entries;
    std::string record;
    for (const auto* group : {&package, &data, &meta}) {
        for (const auto& m : *group) {
            record += csv_field(m.path) + "," + record_hash(m.content) + "," +
                      std::to_string(m.content.size()) + "\n";
            auto e = archive::WriteEntry::file(m.path, m.content, m.executable ? 0755 : 0644);
            e.store = m.store;
            entries.push_back(std::move(e));
        }
    }
    record += csv_field(dist_info + "RECORD") + ",,\n";
    entries.push_back(archive::WriteEntry::file(dist_info + "RECORD", record));

    stdfs::create_directories(out_dir);
    BuiltArtifact out;
    out.filename = wheel_filename(spec);
    out.path = out_dir / out.filename;
    archive::WriteOptions options;
    options.sort = false;  // the .dist-info last, RECORD at its end, as wheel tools write it
    archive::write_archive(out.path, archive::Format::zip, std::move(entries), options);
    out.name = spec.name;
    out.version = spec.version;
    out.sha256 = fs::sha256_file_hex(out.path);
    out.size = stdfs::file_size(out.path);
    out.requires_python = spec.requires_python;
    out.metadata = meta.front().content;
    out.is_wheel = true;
    return out;
}

BuiltArtifact build_sdist(const SdistSpec& spec, const std::filesystem::path& out_dir) {
    const std::string top = distribution_name(spec.name) + "-" + spec.version + "/";
    std::string pkg_info =
        metadata_text(spec.name, spec.version, spec.summary, spec.requires_python,
                      spec.requires_dist, spec.provides_extra, {});
    std::vector<archive::WriteEntry> entries;
    entries.push_back(archive::WriteEntry::file(top + "PKG-INFO", pkg_info));
    entries.push_back(archive::WriteEntry::file(top + "pyproject.toml", pyproject_text(spec)));
    if (spec.files.empty()) {
        entries.push_back(
            archive::WriteEntry::file(top + "src/" + module_name(spec.name) + "/__init__.py",
                                      "__version__ = \"" + spec.version + "\"\n"));
    }
    for (const auto& f : spec.files) {
        entries.push_back(
            archive::WriteEntry::file(top + f.path, f.content, f.executable ? 0755 : 0644));
    }
    stdfs::create_directories(out_dir);
    BuiltArtifact out;
    out.filename = sdist_filename(spec);
    out.path = out_dir / out.filename;
    archive::write_archive(out.path, archive::Format::tar_gz, std::move(entries));
    out.name = spec.name;
    out.version = spec.version;
    out.sha256 = fs::sha256_file_hex(out.path);
    out.size = stdfs::file_size(out.path);
    out.requires_python = spec.requires_python;
    out.metadata = pkg_info;
    out.is_wheel = false;
    return out;
}

std::vector<std::string> check_wheel_record(const std::filesystem::path& wheel) {
    std::vector<std::string> problems;
    std::map<std::string, std::string> members;
    archive::Reader reader = archive::Reader::open(wheel);
    while (const archive::Entry* e = reader.next()) {
        if (e->type != archive::EntryType::file) continue;
        std::string path = e->path;
        if (!members.emplace(path, reader.read_all(1ull << 34)).second) {
            problems.push_back("duplicate member " + path);
        }
    }
    std::string record_path;
    for (const auto& [path, content] : members) {
        if (path.ends_with(".dist-info/RECORD") &&
            path.find('/') == path.size() - std::string_view("/RECORD").size()) {
            record_path = path;
        }
    }
    if (record_path.empty()) return {"no .dist-info/RECORD"};
    std::map<std::string, bool> listed;
    for (auto line : util::split(members[record_path], '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        auto fields = parse_csv_line(line);
        if (fields.size() != 3) {
            problems.push_back("RECORD line without 3 fields: " + std::string(line));
            continue;
        }
        const std::string& path = fields[0];
        listed[path] = true;
        auto it = members.find(path);
        if (it == members.end()) {
            problems.push_back("RECORD lists " + path + ", which is not in the wheel");
            continue;
        }
        if (path == record_path) {
            if (!fields[1].empty() || !fields[2].empty()) {
                problems.push_back("RECORD lists itself with a hash or size");
            }
            continue;
        }
        if (fields[1] != record_hash(it->second)) {
            problems.push_back(path + ": RECORD says " + fields[1] + ", content is " +
                               record_hash(it->second));
        }
        if (fields[2] != std::to_string(it->second.size())) {
            problems.push_back(path + ": RECORD says " + fields[2] + " bytes, content has " +
                               std::to_string(it->second.size()));
        }
    }
    for (const auto& [path, content] : members) {
        if (!listed.count(path)) problems.push_back(path + " is not listed in RECORD");
    }
    return problems;
}

}  // namespace aitk::test
