#include "aitk/fs/temp.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/utf8.hpp"
#include "path_failure.hpp"

namespace aitk::fs {
namespace {

constexpr std::string_view temp_suffix = ".tmp";
constexpr std::size_t random_digits = 16;

std::mt19937_64 seeded_generator() {
    std::random_device device;
    std::seed_seq seed{
        device(), device(), device(), device(),
        static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
    return std::mt19937_64(seed);
}

long current_pid() {
#ifdef _WIN32
    return static_cast<long>(::GetCurrentProcessId());
#else
    return static_cast<long>(::getpid());
#endif
}

// 64 random bits per name: a per-thread generator seeded from the OS, mixed with a
// process-wide counter so that two threads seeded alike still differ. A forked child
// inherits its parent's generator state, so it reseeds when the process id changes.
std::uint64_t next_random() {
    thread_local long owner = current_pid();
    thread_local std::mt19937_64 generator = seeded_generator();
    if (long pid = current_pid(); pid != owner) {
        owner = pid;
        generator = seeded_generator();
    }
    static std::atomic<std::uint64_t> counter{0};
    return generator() ^ (counter.fetch_add(1) * 0x9E3779B97F4A7C15ull);
}

std::string hex64(std::uint64_t value) {
    std::string out(random_digits, '0');
    for (std::size_t i = 0; i < random_digits; ++i) {
        out[random_digits - 1 - i] = util::hex_digit(static_cast<unsigned>(value & 0xF));
        value >>= 4;
    }
    return out;
}

}  // namespace

std::filesystem::path unique_temp_path(const std::filesystem::path& parent, std::string_view stem) {
    std::string name;
    name.reserve(stem.size() + random_digits + 8);
    name += '.';
    name += stem;
    name += '.';
    name += hex64(next_random());
    name += temp_suffix;
    return parent / name;
}

bool is_temp_name(std::string_view filename) noexcept {
    // ".<stem>.<16 hex>.tmp", the stem possibly empty.
    const std::size_t tail = 1 + random_digits + temp_suffix.size();
    if (filename.size() < 1 + tail || filename.front() != '.') return false;
    if (filename.substr(filename.size() - temp_suffix.size()) != temp_suffix) return false;
    std::string_view random = filename.substr(filename.size() - tail);
    if (random.front() != '.') return false;
    return util::is_hex(random.substr(1, random_digits), true);
}

TempDir TempDir::create_in(const std::filesystem::path& parent, std::string_view stem) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) detail::fail_at("cannot create folder", parent, ec.message());
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::filesystem::path candidate = unique_temp_path(parent, stem);
        if (std::filesystem::create_directory(candidate, ec)) return TempDir(candidate);
        if (ec) detail::fail_at("cannot create temporary folder", candidate, ec.message());
        // create_directory returned false without an error: the name was taken; draw again.
    }
    detail::fail_at("cannot find a free temporary name in", parent, "too many collisions");
}

TempDir TempDir::create(std::string_view stem) {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) detail::fail_at("cannot find the system temp folder", "", ec.message());
    return create_in(base, stem);
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
    if (this != &other) {
        remove();
        path_ = std::move(other.path_);
        other.path_.clear();
    }
    return *this;
}

TempDir::~TempDir() {
    remove();
}

std::filesystem::path TempDir::keep() noexcept {
    std::filesystem::path kept = std::move(path_);
    path_.clear();
    return kept;
}

void TempDir::remove() noexcept {
    if (path_.empty()) return;
    remove_all_quietly(path_);
    path_.clear();
}

bool remove_all_quietly(const std::filesystem::path& path) noexcept {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (ec) {
        // A read-only folder (extracted from an archive) blocks removal of its entries.
        std::filesystem::permissions(path, std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ec);
        for (auto it = std::filesystem::recursive_directory_iterator(
                 path, std::filesystem::directory_options::skip_permission_denied, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            std::error_code ignored;
            if (it->is_directory(ignored) && !it->is_symlink(ignored)) {
                std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                             std::filesystem::perm_options::add, ignored);
            }
        }
        ec.clear();
        std::filesystem::remove_all(path, ec);
    }
    return !std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

PublishResult publish(const std::filesystem::path& staged,
                      const std::filesystem::path& destination) {
#ifdef _WIN32
    if (::MoveFileExW(staged.c_str(), destination.c_str(), MOVEFILE_WRITE_THROUGH)) {
        return PublishResult::published;
    }
    DWORD err = ::GetLastError();
    if (err == ERROR_ALREADY_EXISTS || err == ERROR_FILE_EXISTS) {
        return PublishResult::already_exists;
    }
    detail::fail_at("cannot move " + util::utf8_of(staged) + " to", destination,
                    std::system_category().message(static_cast<int>(err)));
#else
#if defined(__linux__) && defined(RENAME_NOREPLACE)
    if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, destination.c_str(), RENAME_NOREPLACE) ==
        0) {
        return PublishResult::published;
    }
    if (errno == EEXIST || errno == ENOTEMPTY) return PublishResult::already_exists;
    if (errno != EINVAL && errno != ENOSYS) {
        detail::fail_at("cannot move " + util::utf8_of(staged) + " to", destination,
                        std::strerror(errno));
    }
    // The filesystem has no RENAME_NOREPLACE: fall through to the portable way.
#endif
    std::error_code ec;
    if (!std::filesystem::is_directory(std::filesystem::symlink_status(staged, ec))) {
        // link(2) refuses an existing destination, which makes the file case race-free.
        if (::link(staged.c_str(), destination.c_str()) == 0) {
            ::unlink(staged.c_str());
            return PublishResult::published;
        }
        if (errno == EEXIST) return PublishResult::already_exists;
        // Filesystems without hard links: check, then rename (a narrow race remains).
    }
    if (std::filesystem::exists(std::filesystem::symlink_status(destination, ec))) {
        return PublishResult::already_exists;
    }
    if (::rename(staged.c_str(), destination.c_str()) == 0) return PublishResult::published;
    if (errno == EEXIST || errno == ENOTEMPTY) return PublishResult::already_exists;
    detail::fail_at("cannot move " + util::utf8_of(staged) + " to", destination,
                    std::strerror(errno));
#endif
}

}  // namespace aitk::fs
