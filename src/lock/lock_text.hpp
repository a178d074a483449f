#pragma once
// Rules the writer, the pip section and the reader share, so that what one writes the other
// accepts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::lock::detail {

// `url` as a lockfile may store it: without a password or token. The user name of an ssh URL
// (`git+ssh://git@github.com/...`) is kept, as it is no secret and the URL needs it; its
// password part goes like every other credential.
std::string storable_url(std::string_view url);

// Variables that conda reserves (`PATH`, in any case): never written, refused when read.
bool reserved_variable(std::string_view name) noexcept;

// A file size as a lockfile or an export states it: nullopt when unknown, and 0 counts as unknown
// (no wheel or archive is empty; locks of earlier versions wrote 0 where the index gave none).
std::optional<std::uint64_t> known_size(std::optional<std::uint64_t> size) noexcept;

}  // namespace aitk::lock::detail
