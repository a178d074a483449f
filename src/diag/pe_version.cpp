#include "pe_version.hpp"

#include <cstdio>

#include "problem_text.hpp"

namespace aitk::diag {

std::string PeVersion::text() const {
    char out[32];
    std::snprintf(out, sizeof out, "%u.%u.%u.%u", unsigned{parts[0]}, unsigned{parts[1]},
                  unsigned{parts[2]}, unsigned{parts[3]});
    return out;
}

}  // namespace aitk::diag

namespace aitk::diag::detail {

using util::Unexpected;

namespace {

constexpr std::uint32_t kRtVersion = 16;
constexpr std::uint32_t kSubdirectory = 0x80000000u;
constexpr std::uint64_t kTableHeader = 16;
constexpr std::uint64_t kEntrySize = 8;
constexpr std::uint64_t kDataEntrySize = 16;
constexpr std::uint32_t kFixedSignature = 0xfeef04bdu;
// VS_VERSIONINFO: wLength, wValueLength, wType, then L"VS_VERSION_INFO\0" (32 bytes), padded
// to 4 bytes: VS_FIXEDFILEINFO starts at 40 and is 52 bytes long.
constexpr std::uint64_t kKeyOffset = 6;
constexpr std::string_view kKey = "VS_VERSION_INFO";
constexpr std::uint64_t kFixedOffset = 40;
constexpr std::uint64_t kFixedSize = 52;

class ResourceTree {
  public:
    ResourceTree(const PeMap& map, const PeMapped& region)
        : map_(map), tree_(map.in().slice(region.offset, region.available)), base_(region.offset) {}

    // The entries of the table at `offset` (from the tree's start): {id, OffsetToData} pairs,
    // or a problem naming `level`.
    struct Entry {
        std::uint32_t id = 0;
        std::uint32_t data = 0;
        bool named = false;
    };
    util::Expected<std::vector<Entry>, ImageProblem> table(std::uint64_t offset,
                                                           const std::string& level) const {
        if (!tree_.contains(offset, kTableHeader))
            return Unexpected(problem(level + " at resource offset " + hex(offset) +
                                          " lies past the end of the resource data",
                                      base_ + offset));
        std::uint64_t named = *tree_.u16(offset + 12);
        std::uint64_t ids = *tree_.u16(offset + 14);
        std::uint64_t first = offset + kTableHeader;
        if (!tree_.contains(first, (named + ids) * kEntrySize))
            return Unexpected(problem(level + " at resource offset " + hex(offset) + ": its " +
                                          std::to_string(named + ids) +
                                          " entries run past the end of the resource data",
                                      base_ + offset + 12));
        std::vector<Entry> out;
        for (std::uint64_t i = 0; i < named + ids; ++i) {
            std::uint64_t at = first + i * kEntrySize;
            out.push_back(Entry{*tree_.u32(at), *tree_.u32(at + 4), i < named});
        }
        return out;
    }

    util::Expected<std::optional<PeVersion>, ImageProblem> version() const {
        auto types = table(0, "resource type table");
        if (!types) return Unexpected(std::move(types).error());
        const Entry* version = nullptr;
        for (const auto& e : *types)
            if (!e.named && e.id == kRtVersion) version = &e;
        if (!version) return std::optional<PeVersion>();
        // RT_VERSION → its first name → its first language → the data entry.
        std::uint32_t next = version->data;
        for (const char* level : {"RT_VERSION name table", "RT_VERSION language table"}) {
            if ((next & kSubdirectory) == 0)
                return Unexpected(
                    problem(std::string(level) + " is a data entry, not a table", base_));
            auto entries = table(next & ~kSubdirectory, level);
            if (!entries) return Unexpected(std::move(entries).error());
            if (entries->empty())
                return Unexpected(
                    problem(std::string(level) + " is empty", base_ + (next & ~kSubdirectory)));
            next = entries->front().data;
        }
        if (next & kSubdirectory)
            return Unexpected(problem("RT_VERSION resource is a table, not data", base_));
        if (!tree_.contains(next, kDataEntrySize))
            return Unexpected(problem("RT_VERSION data entry at resource offset " + hex(next) +
                                          " lies past the end of the resource data",
                                      base_));
        std::uint32_t rva = *tree_.u32(next);
        std::uint32_t size = *tree_.u32(next + 4);
        auto data = map_.map(rva, "RT_VERSION data RVA", base_ + next);
        if (!data) return Unexpected(std::move(data).error());
        if (size < kFixedOffset + kFixedSize || data->available < kFixedOffset + kFixedSize)
            return Unexpected(problem("RT_VERSION data of " + std::to_string(size) +
                                          " bytes is too short for a VS_FIXEDFILEINFO",
                                      data->offset));
        const ByteReader& in = map_.in();
        for (std::size_t i = 0; i < kKey.size(); ++i) {
            if (*in.u16(data->offset + kKeyOffset + 2 * i) != static_cast<unsigned char>(kKey[i]))
                return Unexpected(
                    problem("RT_VERSION data does not start with VS_VERSION_INFO", data->offset));
        }
        std::uint64_t fixed = data->offset + kFixedOffset;
        if (*in.u32(fixed) != kFixedSignature)
            return Unexpected(
                problem("VS_FIXEDFILEINFO signature is " + hex(*in.u32(fixed)) + ", not 0xfeef04bd",
                        fixed));
        std::uint32_t ms = *in.u32(fixed + 8);
        std::uint32_t ls = *in.u32(fixed + 12);
        PeVersion v;
        v.parts = {static_cast<std::uint16_t>(ms >> 16), static_cast<std::uint16_t>(ms),
                   static_cast<std::uint16_t>(ls >> 16), static_cast<std::uint16_t>(ls)};
        return std::optional<PeVersion>(v);
    }

  private:
    const PeMap& map_;
    ByteReader tree_;
    std::uint64_t base_;
};

}  // namespace

util::Expected<std::optional<PeVersion>, ImageProblem> read_version(const PeMap& map,
                                                                    const PeDirectory& dir) {
    auto region = map.map(dir.rva, "resource directory at RVA", dir.entry_offset);
    if (!region) return Unexpected(std::move(region).error());
    return ResourceTree(map, *region).version();
}

}  // namespace aitk::diag::detail
