#include "wheel_builder.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
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

// "name-1.0-py3-none-any.whl" -> {"name", "1.0"}.
std::optional<std::pair<std::string, std::string>> parse_wheel_filename_parts(
    std::string_view filename) {
    auto parts = util::split(filename, '-');
    if (parts.size() < 5) return std::nullopt;
    return std::make_pair(std::string(parts[0]), std::string(parts[1]));
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

std::vector<archive::WriteEntry> wheel_entries(const WheelSpec& spec) {
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
    for (const auto* group : {&package, &data, &meta}) {
        for (const auto& m : *group) {
            auto e = archive::WriteEntry::file(m.path, m.content, m.executable ? 0755 : 0644);
            e.store = m.store;
            entries.push_back(std::move(e));
        }
    }
    entries.push_back(archive::WriteEntry::file(dist_info + "RECORD", ""));
    set_record(entries);
    return entries;
}

std::string record_line(const std::string& path, const std::string& content) {
    return csv_field(path) + "," + record_hash(content) + "," + std::to_string(content.size()) +
           "\n";
}

void set_record(std::vector<archive::WriteEntry>& entries) {
    archive::WriteEntry* record_entry = nullptr;
    for (auto& e : entries) {
        if (e.type == archive::EntryType::file && e.path.ends_with(".dist-info/RECORD") &&
            e.path.find('/') + 7 == e.path.size()) {
            record_entry = &e;
        }
    }
    if (record_entry == nullptr) throw std::invalid_argument("no .dist-info/RECORD member");
    std::string record;
    for (const auto& e : entries) {
        if (e.type != archive::EntryType::file || &e == record_entry) continue;
        record += record_line(e.path, e.content);
    }
    record += csv_field(record_entry->path) + ",,\n";
    record_entry->content = std::move(record);
}

BuiltArtifact write_wheel(const std::string& filename, std::vector<archive::WriteEntry> entries,
                          const std::filesystem::path& out_dir) {
    std::string metadata;
    for (const auto& e : entries) {
        if (e.type == archive::EntryType::file && e.path.ends_with(".dist-info/METADATA")) {
            metadata = e.content;
        }
    }
    stdfs::create_directories(out_dir);
    BuiltArtifact out;
    out.filename = filename;
    out.path = out_dir / filename;
    archive::WriteOptions options;
    options.sort = false;  // the .dist-info last, RECORD at its end, as wheel tools write it
    archive::write_archive(out.path, archive::Format::zip, std::move(entries), options);
    if (auto parsed = parse_wheel_filename_parts(filename)) {
        out.name = parsed->first;
        out.version = parsed->second;
    }
    out.sha256 = fs::sha256_file_hex(out.path);
    out.size = stdfs::file_size(out.path);
    out.metadata = std::move(metadata);
    out.is_wheel = true;
    return out;
}

BuiltArtifact build_wheel(const WheelSpec& spec, const std::filesystem::path& out_dir) {
    BuiltArtifact out = write_wheel(wheel_filename(spec), wheel_entries(spec), out_dir);
    out.name = spec.name;
    out.version = spec.version;
    out.requires_python = spec.requires_python;
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

namespace {

std::uint32_t get32(const std::string& b, std::size_t at) {
    if (at + 4 > b.size()) throw std::invalid_argument("zip: read past the end");
    return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}

std::uint16_t get16(const std::string& b, std::size_t at) {
    if (at + 2 > b.size()) throw std::invalid_argument("zip: read past the end");
    return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) |
                                      static_cast<unsigned char>(b[at + 1]) << 8);
}

void put32(std::string& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        b[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

void patch_zip_declared_size(const std::filesystem::path& zip, std::string_view member,
                             std::uint32_t size) {
    std::string b = fs::read_file(zip);
    const std::size_t eocd = b.rfind(std::string("PK\x05\x06", 4));
    if (eocd == std::string::npos) throw std::invalid_argument("zip: no end of central directory");
    const std::uint16_t count = get16(b, eocd + 10);
    std::size_t at = get32(b, eocd + 16);
    bool found = false;
    for (std::uint16_t i = 0; i < count; ++i) {
        if (get32(b, at) != 0x02014b50) throw std::invalid_argument("zip: bad central header");
        const std::uint16_t flags = get16(b, at + 8);
        const std::uint32_t compressed = get32(b, at + 20);
        const std::uint16_t name_len = get16(b, at + 28);
        const std::size_t next = at + 46 + name_len + get16(b, at + 30) + get16(b, at + 32);
        if (b.compare(at + 46, name_len, member) == 0) {
            found = true;
            put32(b, at + 24, size);
            const std::size_t local = get32(b, at + 42);
            if (get32(b, local) != 0x04034b50) throw std::invalid_argument("zip: bad local header");
            put32(b, local + 22, size);
            if (flags & 0x8) {
                std::size_t desc =
                    local + 30 + get16(b, local + 26) + get16(b, local + 28) + compressed;
                if (get32(b, desc) == 0x08074b50) desc += 4;
                put32(b, desc + 8, size);
            }
        }
        at = next;
    }
    if (!found) throw std::invalid_argument("zip: no member " + std::string(member));
    fs::write_file_atomic(zip, b);
}

void patch_zip_declared_count(const std::filesystem::path& zip, std::uint64_t count) {
    std::string b = fs::read_file(zip);
    const std::size_t eocd = b.rfind(std::string("PK\x05\x06", 4));
    if (eocd == std::string::npos) throw std::invalid_argument("zip: no end of central directory");
    auto le = [](std::uint64_t v, int width) {
        std::string out;
        for (int i = 0; i < width; ++i)
            out += static_cast<char>((v >> (8 * i)) & 0xff);
        return out;
    };
    const std::uint64_t cd_size = get32(b, eocd + 12);
    const std::uint64_t cd_offset = get32(b, eocd + 16);
    std::string record = std::string("PK\x06\x06", 4) + le(44, 8) + le(45, 2) + le(45, 2) +
                         le(0, 4) + le(0, 4) + le(count, 8) + le(count, 8) + le(cd_size, 8) +
                         le(cd_offset, 8);
    std::string locator = std::string("PK\x06\x07", 4) + le(0, 4) + le(eocd, 8) + le(1, 4);
    std::string end = b.substr(eocd);
    end[8] = end[9] = end[10] = end[11] = static_cast<char>(0xff);  // see the zip64 record
    fs::write_file_atomic(zip, b.substr(0, eocd) + record + locator + end);
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
