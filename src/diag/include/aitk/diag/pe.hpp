#pragma once
// Reader for PE images (Windows .dll, .pyd, .exe): the COFF header's machine and
// characteristics, the optional header's kind and subsystem, and the names in the import and
// delay-load import directories, which are what the Windows loader must find before the image
// runs. Pure: works on bytes, so Windows files are read on any OS. Every offset and RVA is
// checked against the file; a hostile or truncated file gives an ImageProblem, never a crash.
#include <cstdint>
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

struct PeImage {
    std::uint16_t machine = 0;
    bool pe32_plus = false;  // optional header magic 0x20b (a 64-bit image)
    bool is_dll = false;     // IMAGE_FILE_DLL in the COFF characteristics
    std::uint16_t subsystem = 0;
    // DLL names exactly as written (case kept), in directory order, duplicates kept.
    std::vector<std::string> imports;
    std::vector<std::string> delay_imports;
};

// Limits that keep a hostile file from making the reader do unbounded work.
inline constexpr std::size_t kPeMaxSections = 96;  // the Windows loader's own limit
inline constexpr std::size_t kPeMaxImports = 4096;
inline constexpr std::size_t kPeMaxNameLength = 512;

// Whether the bytes start like a PE file ("MZ"); read_pe decides whether they are one.
bool looks_like_pe(std::span<const std::uint8_t> bytes) noexcept;

util::Expected<PeImage, ImageProblem> read_pe(std::span<const std::uint8_t> bytes);

// "x86_64", "x86", "arm64", "arm", or "machine 0x1234".
std::string pe_machine_name(std::uint16_t machine);

}  // namespace aitk::diag
