#pragma once
// Where the RVAs of a PE image lie in its file (private to diag): the section table and the
// headers, which the loader maps at RVA 0. Every reader of a PE table (imports, exports,
// resources) goes through map() and name_at(), so a bad RVA is described the same way
// wherever it was read.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aitk/diag/image_problem.hpp"
#include "aitk/diag/pe.hpp"
#include "aitk/util/expected.hpp"
#include "byte_reader.hpp"

namespace aitk::diag::detail {

// IMAGE_SCN_* flags the readers look at.
inline constexpr std::uint32_t kPeScnInitializedData = 0x00000040;
inline constexpr std::uint32_t kPeScnExecute = 0x20000000;
inline constexpr std::uint32_t kPeScnWrite = 0x80000000;

struct PeSection {
    std::string name;
    std::uint32_t virtual_address = 0;
    std::uint32_t virtual_size = 0;
    std::uint32_t raw_size = 0;
    std::uint32_t raw_pointer = 0;
    std::uint32_t characteristics = 0;
};

// Where an RVA's bytes lie in the file: `offset`, and how many bytes from there belong to the
// same mapped region (a section's raw data or the headers) and to the file.
struct PeMapped {
    std::uint64_t offset = 0;
    std::uint64_t available = 0;
};

// A data directory entry; `entry_offset` is where the entry itself was read.
struct PeDirectory {
    std::uint32_t rva = 0;
    std::uint32_t size = 0;
    std::uint64_t entry_offset = 0;
};

class PeMap {
  public:
    explicit PeMap(std::span<const std::uint8_t> bytes) : in_(bytes) {}

    const ByteReader& in() const noexcept { return in_; }
    const std::vector<PeSection>& sections() const noexcept { return sections_; }
    void add_section(PeSection section) { sections_.push_back(std::move(section)); }
    void set_size_of_headers(std::uint64_t size) noexcept { size_of_headers_ = size; }

    // Maps an RVA to its file bytes, or says why it cannot be: `what` names the value
    // ("import directory entry 3: name RVA"), `read_at` is where that value was read.
    util::Expected<PeMapped, ImageProblem> map(std::uint64_t rva, const std::string& what,
                                               std::uint64_t read_at) const;

    // The name at `rva`: NUL-terminated, printable ASCII, not empty, at most `max_length`
    // bytes.
    util::Expected<std::string, ImageProblem> name_at(
        std::uint64_t rva, const std::string& what, std::uint64_t read_at,
        std::size_t max_length = kPeMaxNameLength) const;

    // Where a table of `count` entries of `width` bytes at `rva` lies, all of it inside one
    // mapped region (`available` is the table's size).
    util::Expected<PeMapped, ImageProblem> table(std::uint64_t rva, std::uint64_t count,
                                                 std::uint64_t width, const std::string& what,
                                                 std::uint64_t read_at) const;

  private:
    ByteReader in_;
    std::vector<PeSection> sections_;
    std::uint64_t size_of_headers_ = 0;
};

}  // namespace aitk::diag::detail
