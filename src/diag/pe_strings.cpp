#include "pe_strings.hpp"

#include <unordered_set>

#include "aitk/util/strings.hpp"

namespace aitk::diag::detail {

namespace {

constexpr std::uint32_t kScnDiscardable = 0x02000000;  // .reloc, debug info: never mapped
constexpr std::size_t kMinStem = 2;
constexpr std::size_t kMaxName = 128;

bool name_char(std::uint16_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == '+';
}

bool starts_string(std::uint16_t before) {
    return before == 0 || before == '\\' || before == '/';
}

char lower(std::uint16_t c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

class Collector {
  public:
    Collector(std::vector<std::string>& out, const std::vector<RvaRange>& skip)
        : out_(out), skip_(skip) {}

    bool full() const { return out_.size() >= kPeMaxDllNameStrings; }

    // The units (bytes, or UTF-16 code units) of one section at `rva`, `width` bytes each:
    // `at(i)` reads unit i.
    template <class At>
    void scan(std::size_t units, std::uint64_t rva, std::uint64_t width, At at) {
        for (std::size_t i = 0; i + 4 < units && !full(); ++i) {
            if (at(i) != '.' || lower(at(i + 1)) != 'd' || lower(at(i + 2)) != 'l' ||
                lower(at(i + 3)) != 'l' || at(i + 4) != 0)
                continue;
            std::size_t start = i;
            while (start > 0 && i - start < kMaxName && name_char(at(start - 1)))
                --start;
            if (start > 0 && !starts_string(at(start - 1))) continue;
            if (i - start < kMinStem || at(start) == '.' || at(start) == '-') continue;
            std::string name;
            bool letter = false;
            for (std::size_t k = start; k < i + 4; ++k) {
                auto c = static_cast<char>(at(k));
                letter = letter || (k < i && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')));
                name += c;
            }
            if (!letter || skipped(rva + width * start)) continue;
            if (seen_.insert(util::to_lower(name)).second) out_.push_back(std::move(name));
        }
    }

  private:
    bool skipped(std::uint64_t rva) const {
        for (const auto& r : skip_)
            if (rva >= r.begin && rva < r.end) return true;
        return false;
    }

    std::vector<std::string>& out_;
    const std::vector<RvaRange>& skip_;
    std::unordered_set<std::string> seen_;
};

}  // namespace

std::vector<std::string> dll_name_strings(const PeMap& map, const std::vector<RvaRange>& skip) {
    std::vector<std::string> out;
    Collector collect(out, skip);
    const ByteReader& in = map.in();
    for (const auto& s : map.sections()) {
        // MSVC, GNU ld and lld all put string constants in .rdata; other read-only sections
        // are tables or payloads (torch_cuda.dll's .nv_fatb holds hundreds of MB of GPU code),
        // not worth reading at every doctor run.
        if (s.name != ".rdata" || (s.characteristics & kPeScnInitializedData) == 0 ||
            (s.characteristics & (kPeScnExecute | kPeScnWrite | kScnDiscardable)) != 0)
            continue;
        if (s.raw_pointer >= in.size()) continue;
        std::uint64_t size = std::min<std::uint64_t>(s.raw_size, in.size() - s.raw_pointer);
        auto bytes = in.slice(s.raw_pointer, size);
        collect.scan(bytes.size(), s.virtual_address, 1,
                     [&](std::size_t i) { return std::uint16_t{bytes[i]}; });
        // Wide literals are 2-aligned in the section, and a section's raw data starts at a
        // multiple of FileAlignment (512 or more), so UTF-16 units start at even offsets.
        collect.scan(bytes.size() / 2, s.virtual_address, 2, [&](std::size_t i) {
            return static_cast<std::uint16_t>(bytes[2 * i] | bytes[2 * i + 1] << 8);
        });
        if (collect.full()) break;
    }
    return out;
}

}  // namespace aitk::diag::detail
