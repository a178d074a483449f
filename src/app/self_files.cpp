#include "self_files.hpp"

#ifdef _WIN32
#include <windows.h>
#endif

#include <fstream>
#include <system_error>

#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app::detail {

namespace {

namespace stdfs = std::filesystem;

constexpr std::string_view kMovedAsideStem = "aitk-env-old";
constexpr std::string_view kStagedStem = "aitk-env-new";

[[noreturn]] void fail(const std::string& what, const stdfs::path& path, const std::error_code& ec,
                       std::string hint = {}) {
    throw util::Error(util::ExitCode::failure,
                      what + " " + util::utf8_of(path) + ": " + ec.message(), std::move(hint));
}

// Renames a running executable out of the way (Windows allows the rename, not the overwrite).
stdfs::path move_aside(const stdfs::path& path) {
    const stdfs::path aside = fs::unique_temp_path(path.parent_path(), kMovedAsideStem);
    std::error_code ec;
    stdfs::rename(path, aside, ec);
    if (ec) fail("cannot move aside", path, ec, "close every running aitk-env and try again");
    return aside;
}

// The file goes when Windows next starts, where that may be asked for (best effort).
void remove_at_reboot([[maybe_unused]] const stdfs::path& path) {
#ifdef _WIN32
    ::MoveFileExW(path.c_str(), nullptr, MOVEFILE_DELAY_UNTIL_REBOOT);
#endif
}

}  // namespace

std::string executable_file_name(bool windows) {
    return windows ? "aitk-env.exe" : "aitk-env";
}

void mark_executable([[maybe_unused]] const stdfs::path& path) {
#ifndef _WIN32  // Windows runs a file by its extension; it has no execute bit to set
    std::error_code ec;
    stdfs::permissions(path,
                       stdfs::perms::owner_all | stdfs::perms::group_read |
                           stdfs::perms::group_exec | stdfs::perms::others_read |
                           stdfs::perms::others_exec,
                       ec);
    if (ec) fail("cannot make executable", path, ec);
#endif
}

void replace_executable(const stdfs::path& staged, const stdfs::path& destination) {
    std::error_code ec;
    stdfs::rename(staged, destination, ec);  // POSIX: one atomic step, running or not
    if (!ec) return;
    if (!stdfs::exists(destination)) {
        stdfs::remove(staged, ec);
        fail("cannot move the new executable to", destination, ec);
    }
    // Windows: the destination runs (or is open); it can be renamed, not replaced.
    stdfs::path aside;
    try {
        aside = move_aside(destination);
    } catch (...) {
        stdfs::remove(staged, ec);
        throw;
    }
    stdfs::rename(staged, destination, ec);
    if (ec) {
        std::error_code back;
        stdfs::rename(aside, destination, back);
        stdfs::remove(staged, back);
        fail("cannot move the new executable to", destination, ec);
    }
    if (!stdfs::remove(aside, ec) || ec) remove_at_reboot(aside);
}

bool remove_executable(const stdfs::path& path) {
    std::error_code ec;
    stdfs::remove(path, ec);
    if (!ec) return true;
    if (!stdfs::exists(path)) return true;
    const stdfs::path aside = move_aside(path);  // Windows: it runs
    if (stdfs::remove(aside, ec) && !ec) return true;
    remove_at_reboot(aside);
    return false;
}

void remove_moved_aside(const stdfs::path& dir) {
    std::error_code ec;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = util::utf8_of(it->path().filename());
        if (!fs::is_temp_name(name)) continue;
        for (std::string_view stem : {kMovedAsideStem, kStagedStem}) {
            if (name.size() > stem.size() + 1 && name.compare(1, stem.size(), stem) == 0 &&
                name[1 + stem.size()] == '.') {
                std::error_code ignored;
                stdfs::remove_all(it->path(), ignored);
            }
        }
    }
}

bool same_bytes(const stdfs::path& a, const stdfs::path& b) {
    std::error_code ec;
    const auto size_a = stdfs::file_size(a, ec);
    if (ec) return false;
    const auto size_b = stdfs::file_size(b, ec);
    if (ec || size_a != size_b) return false;
    std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
    if (!fa || !fb) return false;
    std::string block_a(1 << 16, '\0'), block_b(1 << 16, '\0');
    while (fa && fb) {
        fa.read(block_a.data(), static_cast<std::streamsize>(block_a.size()));
        fb.read(block_b.data(), static_cast<std::streamsize>(block_b.size()));
        if (fa.gcount() != fb.gcount()) return false;
        if (block_a.compare(0, static_cast<std::size_t>(fa.gcount()), block_b, 0,
                            static_cast<std::size_t>(fb.gcount())) != 0) {
            return false;
        }
    }
    return fa.eof() && fb.eof();
}

}  // namespace aitk::app::detail
