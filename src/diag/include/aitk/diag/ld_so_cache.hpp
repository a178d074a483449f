#pragma once
// Reader for /etc/ld.so.cache, the table ldconfig writes and ld.so consults after LD_LIBRARY_PATH
// and DT_RUNPATH. Both layouts glibc has written are read: the old "ld.so-1.7.0" table (possibly
// followed by the new one) and the new "glibc-ld.so.cache1.1" table; byte order is the host's,
// as written by ldconfig on that machine, but a cache whose header reads correctly only in the
// other byte order is read that way. Pure and bounds-checked.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aitk/diag/image_problem.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::diag {

struct LdCacheEntry {
    std::string soname;       // the key ld.so compares with a DT_NEEDED name ("libc.so.6")
    std::string path;         // "/lib/x86_64-linux-gnu/libc.so.6"
    std::uint32_t flags = 0;  // FLAG_* of glibc's ldconfig.h: type (low byte) | architecture
};

inline constexpr std::size_t kLdCacheMaxEntries = 1u << 20;

// Entries in file order (ldconfig sorts them; ld.so takes the first match that fits).
util::Expected<std::vector<LdCacheEntry>, ImageProblem> read_ld_so_cache(
    std::span<const std::uint8_t> bytes);

// Whether an entry with `flags` can satisfy a DT_NEEDED of an ELF object with this machine and
// class, the check ld.so makes (e.g. FLAG_X8664_LIB64 for x86_64, FLAG_AARCH64_LIB64 for
// aarch64, plain FLAG_ELF_LIBC6 for i386).
bool ld_cache_entry_fits(std::uint32_t flags, std::uint16_t elf_machine, bool is_64bit) noexcept;

}  // namespace aitk::diag
