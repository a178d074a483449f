#pragma once
// The tests' one temp folder and file helpers: every test executable writes and reads its fixture
// files through these (and aitk::fs), not through copies of its own.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::test {

// A fresh folder in the system's temp folder ("<tmp>/.aitk-<tag>.<random>.tmp", made by
// aitk::fs::TempDir), removed with everything in it when the object dies. `path` is a plain
// member because the tests join it into paths on nearly every line.
class TempDir {
    aitk::fs::TempDir dir_;

  public:
    explicit TempDir(std::string_view tag = "test")
        : dir_(aitk::fs::TempDir::create("aitk-" + std::string(tag))), path(dir_.path()) {}
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::filesystem::path path;
};

// Writes `text` to `path` (replacing it), creating the folders above it first. Fixture files need
// no fsync, unlike aitk::fs::write_file_atomic's; throws std::runtime_error naming the path.
inline void write_file(const std::filesystem::path& path, std::string_view text) {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) throw std::runtime_error("cannot write " + util::utf8_of(path));
}

// The whole file; throws util::Error naming the path when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
    return aitk::fs::read_file(path);
}

// The whole file, or "" while it does not exist (a marker or log nothing has written yet).
inline std::string read_file_or_empty(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::string();
    return aitk::fs::read_file(path);
}

}  // namespace aitk::test
