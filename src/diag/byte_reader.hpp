#pragma once
// Bounds-checked little/big-endian reads from an untrusted byte span (private to diag). Every
// read says whether it fit; nothing here can read outside the span, whatever the offsets.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace aitk::diag::detail {

class ByteReader {
  public:
    explicit ByteReader(std::span<const std::uint8_t> bytes, bool little_endian = true)
        : bytes_(bytes), little_(little_endian) {}

    std::size_t size() const noexcept { return bytes_.size(); }
    bool little_endian() const noexcept { return little_; }
    void set_little_endian(bool little) noexcept { little_ = little; }

    // Whether [offset, offset + length) lies inside the span (overflow-safe).
    bool contains(std::uint64_t offset, std::uint64_t length) const noexcept {
        return offset <= bytes_.size() && length <= bytes_.size() - offset;
    }

    std::optional<std::uint8_t> u8(std::uint64_t offset) const noexcept {
        if (!contains(offset, 1)) return std::nullopt;
        return bytes_[offset];
    }
    std::optional<std::uint16_t> u16(std::uint64_t offset) const noexcept {
        auto v = read(offset, 2);
        if (!v) return std::nullopt;
        return static_cast<std::uint16_t>(*v);
    }
    std::optional<std::uint32_t> u32(std::uint64_t offset) const noexcept {
        auto v = read(offset, 4);
        if (!v) return std::nullopt;
        return static_cast<std::uint32_t>(*v);
    }
    std::optional<std::uint64_t> u64(std::uint64_t offset) const noexcept {
        return read(offset, 8);
    }

    std::span<const std::uint8_t> slice(std::uint64_t offset, std::uint64_t length) const noexcept {
        if (!contains(offset, length)) return {};
        return bytes_.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    }

    // A NUL-terminated string starting at `offset`, at most `max_length` bytes before the NUL;
    // nullopt when the offset is outside, no NUL comes within the limit or the span ends first.
    std::optional<std::string_view> c_string(std::uint64_t offset,
                                             std::size_t max_length = 4096) const noexcept {
        if (offset >= bytes_.size()) return std::nullopt;
        std::size_t start = static_cast<std::size_t>(offset);
        std::size_t end = start + std::min(max_length + 1, bytes_.size() - start);
        for (std::size_t i = start; i < end; ++i) {
            if (bytes_[i] == 0)
                return std::string_view(reinterpret_cast<const char*>(bytes_.data() + start),
                                        i - start);
        }
        return std::nullopt;
    }

  private:
    std::optional<std::uint64_t> read(std::uint64_t offset, unsigned width) const noexcept {
        if (!contains(offset, width)) return std::nullopt;
        std::uint64_t v = 0;
        for (unsigned i = 0; i < width; ++i) {
            unsigned shift = little_ ? 8 * i : 8 * (width - 1 - i);
            v |= static_cast<std::uint64_t>(bytes_[offset + i]) << shift;
        }
        return v;
    }

    std::span<const std::uint8_t> bytes_;
    bool little_;
};

}  // namespace aitk::diag::detail
