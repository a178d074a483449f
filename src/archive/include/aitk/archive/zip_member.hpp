#pragma once
// One member of a local zip read through its central directory: one read of the directory and
// one of the member, where a walk (read_member) passes every member before it. A wheel's RECORD
// is its last member; for a wheel of 32,000 members the walk takes ~190 ms, this a few.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include "aitk/archive/reader.hpp"

namespace aitk::archive {

// The first member, in the central directory's order, whose stored name `wanted` accepts, with
// its content (inflated, its CRC checked). Nothing when the file is not a zip, its central
// directory cannot be read, or no member is accepted. ArchiveError naming the member when its
// data is damaged (unreadable) or passes `max_bytes` (too_large).
std::optional<Member> read_zip_member_where(const std::filesystem::path& zip,
                                            const std::function<bool(std::string_view)>& wanted,
                                            std::uint64_t max_bytes = default_member_limit);

}  // namespace aitk::archive
