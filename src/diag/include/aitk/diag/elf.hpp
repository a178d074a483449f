#pragma once
// Reader for ELF shared objects and executables: class, byte order, machine, type, and the
// dynamic section's DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH, which is what ld.so reads to
// load an object's dependencies. The dynamic section is found through PT_DYNAMIC and its string
// table through the PT_LOAD segments (as ld.so does), falling back to the section headers
// (.dynamic / its sh_link string table) when the program headers do not give them. Pure and
// bounds-checked like the PE reader.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/diag/image_problem.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::diag {

// e_machine values the scanner names; others are reported by number.
inline constexpr std::uint16_t kElfMachine386 = 3;
inline constexpr std::uint16_t kElfMachineArm = 40;
inline constexpr std::uint16_t kElfMachineX86_64 = 62;
inline constexpr std::uint16_t kElfMachineAarch64 = 183;
inline constexpr std::uint16_t kElfMachinePpc64 = 21;
inline constexpr std::uint16_t kElfMachineRiscv = 243;

inline constexpr std::uint16_t kElfTypeExec = 2;
inline constexpr std::uint16_t kElfTypeDyn = 3;

struct ElfImage {
    bool is_64bit = false;
    bool little_endian = true;
    std::uint16_t machine = 0;
    std::uint16_t type = 0;  // e_type: kElfTypeDyn for shared objects and PIE executables
    std::optional<std::string> soname;
    std::vector<std::string> needed;     // DT_NEEDED in order, duplicates kept
    std::optional<std::string> rpath;    // DT_RPATH as written (':'-separated, $ORIGIN kept)
    std::optional<std::string> runpath;  // DT_RUNPATH as written
    bool has_dynamic = false;            // false for a static executable or an object file
};

inline constexpr std::size_t kElfMaxProgramHeaders = 4096;
inline constexpr std::size_t kElfMaxSectionHeaders = 65535;
inline constexpr std::size_t kElfMaxDynamicEntries = 1u << 16;
inline constexpr std::size_t kElfMaxStringLength = 16384;

// Whether the bytes start with the ELF magic; read_elf decides whether they are one.
bool looks_like_elf(std::span<const std::uint8_t> bytes) noexcept;

util::Expected<ElfImage, ImageProblem> read_elf(std::span<const std::uint8_t> bytes);

// "x86_64", "x86", "aarch64", "arm", "ppc64", "riscv64", or "machine 123".
std::string elf_machine_name(std::uint16_t machine, bool is_64bit);

// A DT_RPATH / DT_RUNPATH value split on ':' with "$ORIGIN" and "${ORIGIN}" replaced by
// `origin` (the folder of the object that carries it); empty entries are dropped (glibc reads
// them as the current directory, which is never what a wheel means). Entries that use $LIB or
// $PLATFORM are kept as written.
std::vector<std::string> expand_search_path(std::string_view value, std::string_view origin);

}  // namespace aitk::diag
