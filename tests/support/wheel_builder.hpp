#pragma once
// Real distributions for tests, built in milliseconds: wheels (zip with METADATA, WHEEL,
// entry_points.txt, .data/ folders, native-looking libraries and a RECORD whose hashes are
// right) and sdists (.tar.gz with PKG-INFO and pyproject.toml). pip installs them.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/archive/writer.hpp"

namespace aitk::test {

struct FileSpec {
    std::string path;  // '/'-separated, relative to the wheel root (or to a .data/<key>/ folder)
    std::string content;
    bool executable = false;
};

struct WheelSpec {
    std::string name;     // as published ("Jinja2", "typing_extensions")
    std::string version;  // "2.9.0+cu126"
    // Compressed tag set: "py3-none-any", "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"
    std::string tag = "py3-none-any";
    std::string build_tag;  // "" or "1", "2abc"
    std::string summary;    // default: "<name> (test fixture)"
    std::string requires_python;
    std::vector<std::string> requires_dist;  // PEP 508 strings with markers
    std::vector<std::string> provides_extra;
    std::vector<std::string> extra_metadata;  // more "Header: value" lines
    // Package files; when empty, "<module>/__init__.py" with __version__.
    std::vector<FileSpec> files;
    // Files under "<dist>-<version>.data/<key>/": scripts, purelib, platlib, data, headers.
    std::map<std::string, std::vector<FileSpec>> data;
    std::vector<std::string> console_scripts;  // "name = module:function"
    std::vector<std::string> gui_scripts;
    // Paths of native libraries (.so, .so.12, .dll, .pyd, .dylib) filled with bytes that start
    // like ELF / PE / Mach-O files.
    std::vector<std::string> native_libraries;
    // An incompressible member "<module>/_padding.bin" of this many bytes, stored uncompressed,
    // for large-wheel tests (range requests, progress, bandwidth).
    std::uint64_t padding_bytes = 0;
    // WHEEL's Root-Is-Purelib; default: true for "any" platform wheels, false otherwise.
    std::optional<bool> root_is_purelib;
};

struct SdistSpec {
    std::string name;
    std::string version;
    std::string summary;
    std::string requires_python;
    std::vector<std::string> requires_dist;
    std::vector<std::string> provides_extra;
    std::vector<FileSpec> files;  // relative to the top folder; default: src/<module>/__init__.py
};

// A file that was built, with what indexes and lockfiles say about it.
struct BuiltArtifact {
    std::filesystem::path path;
    std::string filename;
    std::string name;  // as published
    std::string version;
    std::string sha256;  // hex
    std::uint64_t size = 0;
    std::string requires_python;
    std::string metadata;  // METADATA / PKG-INFO text (what a PEP 658 file holds)
    bool is_wheel = true;
};

// "typing-extensions" / "Typing.Extensions" -> "typing_extensions" (wheel and sdist names).
std::string distribution_name(std::string_view project);
// The import package the default files use: same as distribution_name, lower case.
std::string module_name(std::string_view project);

std::string wheel_filename(const WheelSpec& spec);
std::string sdist_filename(const SdistSpec& spec);
std::string wheel_metadata(const WheelSpec& spec);

// Writes the wheel into `out_dir` (created when missing) and returns what it built.
BuiltArtifact build_wheel(const WheelSpec& spec, const std::filesystem::path& out_dir);
BuiltArtifact build_sdist(const SdistSpec& spec, const std::filesystem::path& out_dir);

// Hostile wheels are made in three steps: the members build_wheel would write (RECORD last),
// changed by the test (members added, renamed, dropped, links, duplicates), then written as
// they are. set_record rewrites the top-level .dist-info/RECORD member to list every file
// member correctly, so a test breaks only what it means to break.
std::vector<archive::WriteEntry> wheel_entries(const WheelSpec& spec);
void set_record(std::vector<archive::WriteEntry>& entries);
// One RECORD row ("path,sha256=...,size\n") for `content`.
std::string record_line(const std::string& path, const std::string& content);
// Writes `entries` in order as the zip `out_dir/filename`; name and version come from the
// file name, metadata from the first .dist-info/METADATA member.
BuiltArtifact write_wheel(const std::string& filename, std::vector<archive::WriteEntry> entries,
                          const std::filesystem::path& out_dir);

// Rewrites the uncompressed size that `zip`'s local header, data descriptor and central
// directory declare for `member` (its data stays as it is): a member that inflates past what
// it claims, or claims far more than it holds. Throws when the member is not found.
void patch_zip_declared_size(const std::filesystem::path& zip, std::string_view member,
                             std::uint32_t size);
// Makes `zip`'s end records (a zip64 end record is added) declare `count` members.
void patch_zip_declared_count(const std::filesystem::path& zip, std::uint64_t count);

// Checks a wheel's RECORD against its members: each listed file's urlsafe-base64 sha256 and
// size, RECORD itself listed without hash, and every member listed. Empty when all is right,
// else one line per problem.
std::vector<std::string> check_wheel_record(const std::filesystem::path& wheel);

// Deterministic filler bytes (xorshift), incompressible.
std::string pseudo_random_bytes(std::uint64_t size, std::uint64_t seed);

}  // namespace aitk::test
