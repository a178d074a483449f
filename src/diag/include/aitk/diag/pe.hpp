#pragma once
// Reader for PE images (Windows .dll, .pyd, .exe): the COFF header's machine and
// characteristics, the optional header's kind and subsystem, the names in the import and
// delay-load import directories and what is imported from each (which the Windows loader must
// find before the image runs: WinError 126 / 127), the export directory (what other images may
// import from this one), the FileVersion of the version resource (an old Visual C++ runtime:
// WinError 1114) and DLL names in read-only data (LoadLibrary at run time). Pure: works on
// bytes, so Windows files are read on any OS. Every offset and RVA is checked against the file;
// a hostile or truncated file gives an ImageProblem, never a crash.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/diag/image_problem.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::diag {

// IMAGE_FILE_MACHINE_* values the scanner names; others are reported by number.
inline constexpr std::uint16_t kPeMachineI386 = 0x014c;
inline constexpr std::uint16_t kPeMachineAmd64 = 0x8664;
inline constexpr std::uint16_t kPeMachineArmNt = 0x01c4;
inline constexpr std::uint16_t kPeMachineArm64 = 0xaa64;

// One entry of an import lookup table: a function imported by name (the hint is only the
// loader's first guess at the export's index, so it is not kept) or by ordinal.
struct PeImportedSymbol {
    std::string name;           // empty when imported by ordinal
    std::uint32_t ordinal = 0;  // by ordinal only
    bool by_ordinal = false;

    std::string describe() const;  // the name, or "ordinal 7"
};

// What other images can import from this one. A forwarder ("NTDLL.RtlAllocateHeap") is
// exported under its own name like any other export: the loader resolves it further only
// after the name matched.
struct PeExports {
    std::vector<std::string> names;       // sorted (byte order: names are case-sensitive)
    std::vector<std::uint32_t> ordinals;  // sorted: Base + index of every non-zero EAT entry

    bool has_name(std::string_view name) const;
    bool has_ordinal(std::uint32_t ordinal) const;
    bool has(const PeImportedSymbol& symbol) const;  // by its name or its ordinal
};

// VS_FIXEDFILEINFO's dwFileVersionMS/LS: {major, minor, build, private} ("14.29.30133.0").
struct PeVersion {
    std::array<std::uint16_t, 4> parts{};

    std::string text() const;
    auto operator<=>(const PeVersion&) const = default;
};

struct PeImage {
    std::uint16_t machine = 0;
    bool pe32_plus = false;  // optional header magic 0x20b (a 64-bit image)
    bool is_dll = false;     // IMAGE_FILE_DLL in the COFF characteristics
    std::uint16_t subsystem = 0;
    // DLL names exactly as written (case kept), in directory order, duplicates kept.
    std::vector<std::string> imports;
    std::vector<std::string> delay_imports;
    // import_symbols[i]: what imports[i] is asked for; delay_import_symbols likewise.
    std::vector<std::vector<PeImportedSymbol>> import_symbols;
    std::vector<std::vector<PeImportedSymbol>> delay_import_symbols;
    std::optional<PeExports> exports;  // nullopt: no export directory
    // The FileVersion of the RT_VERSION resource. The loader never reads resources, so a bad
    // one does not make the image unreadable: it leaves `version` empty and says why here.
    std::optional<PeVersion> version;
    std::optional<ImageProblem> version_problem;
    // NUL-terminated ASCII or UTF-16LE strings in the read-only data (.rdata) that are DLL file
    // names ("cudnn_ops64_9.dll", or the last part of a path), first spelling of each, in file
    // order: what LoadLibrary may be asked for at run time. Import-table names may be among them.
    std::vector<std::string> dll_name_strings;
};

// Limits that keep a hostile file from making the reader do unbounded work.
inline constexpr std::size_t kPeMaxSections = 96;  // the Windows loader's own limit
inline constexpr std::size_t kPeMaxImports = 4096;
inline constexpr std::size_t kPeMaxNameLength = 512;
inline constexpr std::size_t kPeMaxSymbolLength = 4096;  // C++ decorated names run long
// Per import lookup table and per export directory: ordinals are 16-bit, so no real DLL
// exports more than 65535 functions, and no real image imports more from one DLL.
inline constexpr std::size_t kPeMaxSymbols = 65536;
inline constexpr std::size_t kPeMaxDllNameStrings = 256;
// Over all lookup tables and the export directory of one image: a hostile file could otherwise
// make 4096 descriptors × 65536 entries, or 65536 exports all naming one 4 KiB string. torch's
// largest DLLs need about a tenth of each.
inline constexpr std::size_t kPeMaxTotalSymbols = std::size_t{1} << 20;
inline constexpr std::size_t kPeMaxSymbolBytes = std::size_t{64} << 20;

// Whether the bytes start like a PE file ("MZ"); read_pe decides whether they are one.
bool looks_like_pe(std::span<const std::uint8_t> bytes) noexcept;

util::Expected<PeImage, ImageProblem> read_pe(std::span<const std::uint8_t> bytes);

// "x86_64", "x86", "arm64", "arm", or "machine 0x1234".
std::string pe_machine_name(std::uint16_t machine);

}  // namespace aitk::diag
