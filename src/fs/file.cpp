#include "aitk/fs/file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "path_failure.hpp"

namespace aitk::fs {
std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) detail::fail_at("cannot read", path, std::strerror(errno));
    // Read straight into a string of the file's size (one more byte, so that the end is seen in
    // the same read); copying through a stringstream touched three times the memory, and a
    // lock reads hundreds of cached pages. A file that grows, or says size 0 (/proc), is read
    // on in doubling steps.
    std::size_t capacity = 4096;
    if (in.seekg(0, std::ios::end)) {
        const auto end = in.tellg();
        if (end > 0) capacity = static_cast<std::size_t>(end) + 1;
        in.seekg(0, std::ios::beg);
    }
    in.clear();
    std::string out;
    std::size_t have = 0;
    for (;;) {
        out.resize(capacity);
        in.read(out.data() + have, static_cast<std::streamsize>(capacity - have));
        have += static_cast<std::size_t>(in.gcount());
        if (have < capacity || !in) break;
        capacity *= 2;
    }
    if (in.bad()) detail::fail_at("cannot read", path, std::strerror(errno));
    out.resize(have);
    return out;
}

namespace {

// One attempt; false when the temporary file vanished before the rename (a cleaner took it for
// the leftover of a killed process, see cache::sweep_interrupted_writes).
bool write_once(const std::filesystem::path& path, std::string_view content,
                const AtomicWrite& how) {
    const std::filesystem::path tmp = unique_temp_path(
        how.temp_dir.empty() ? path.parent_path() : how.temp_dir, util::utf8_of(path.filename()));
#ifndef _WIN32
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) detail::fail_at("cannot create", tmp, std::strerror(errno));
    std::size_t done = 0;
    while (done < content.size()) {
        ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            detail::fail_at("cannot write", tmp, std::strerror(err));
        }
        done += static_cast<std::size_t>(n);
    }
    // The descriptor is closed whether or not the flush worked.
    const bool flushed = !how.flush || ::fsync(fd) == 0;
    const int flush_err = errno;
    const bool closed = ::close(fd) == 0;
    if (!flushed || !closed) {
        const int err = flushed ? errno : flush_err;
        ::unlink(tmp.c_str());
        detail::fail_at("cannot flush", tmp, std::strerror(err));
    }
#else
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) detail::fail_at("cannot write", tmp, std::strerror(errno));
    }
#endif
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    // Swept away before the rename (by a cleaner of temporaries): write it again. The file is
    // looked at, not the error, which Windows' C++ runtime may not map to ENOENT.
    std::error_code probe;
    if (ec && !std::filesystem::exists(tmp, probe) &&
        std::filesystem::exists(path.parent_path(), probe))
        return false;
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw util::Error(util::ExitCode::failure,
                          "cannot replace " + util::utf8_of(path) + ": " + ec.message());
    }
    return true;
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path, std::string_view content,
                       const AtomicWrite& how) {
    // The content is still here: a swept temporary file is written again.
    for (int attempt = 0; attempt < 3; ++attempt) {
        if (write_once(path, content, how)) return;
    }
    throw util::Error(util::ExitCode::failure, "cannot replace " + util::utf8_of(path) +
                                                   ": its temporary file kept vanishing");
}

}  // namespace aitk::fs
