#include "pe_map.hpp"

#include <algorithm>

#include "aitk/util/strings.hpp"
#include "problem_text.hpp"

namespace aitk::diag::detail {

using util::Unexpected;

util::Expected<PeMapped, ImageProblem> PeMap::map(std::uint64_t rva, const std::string& what,
                                                  std::uint64_t read_at) const {
    for (const auto& s : sections_) {
        std::uint64_t extent = std::max(s.virtual_size, s.raw_size);
        if (rva < s.virtual_address || rva - s.virtual_address >= extent) continue;
        std::uint64_t delta = rva - s.virtual_address;
        if (delta >= s.raw_size)
            return Unexpected(problem(what + " " + hex(rva) +
                                          " lies past the raw data of section " +
                                          util::double_quoted(s.name),
                                      read_at));
        std::uint64_t offset = std::uint64_t{s.raw_pointer} + delta;
        if (offset >= in_.size())
            return Unexpected(problem(what + " " + hex(rva) + " (section " +
                                          util::double_quoted(s.name) + ", file offset " +
                                          hex(offset) + ") lies past the end of the file",
                                      read_at));
        std::uint64_t available = std::min<std::uint64_t>(s.raw_size - delta, in_.size() - offset);
        return PeMapped{offset, available};
    }
    // The loader maps the headers at RVA 0, so below SizeOfHeaders an RVA is a file offset.
    if (rva < size_of_headers_) {
        if (rva >= in_.size())
            return Unexpected(
                problem(what + " " + hex(rva) + " (in the headers) lies past the end of the file",
                        read_at));
        return PeMapped{rva, std::min<std::uint64_t>(size_of_headers_, in_.size()) - rva};
    }
    return Unexpected(problem(what + " " + hex(rva) + " lies outside every section", read_at));
}

util::Expected<std::string, ImageProblem> PeMap::name_at(std::uint64_t rva, const std::string& what,
                                                         std::uint64_t read_at,
                                                         std::size_t max_length) const {
    auto mapped = map(rva, what, read_at);
    if (!mapped) return Unexpected(std::move(mapped).error());
    ByteReader region(in_.slice(mapped->offset, mapped->available));
    auto text = region.c_string(0, max_length);
    if (!text) {
        std::string why;
        if (mapped->available > max_length)
            why = ": name is longer than " + std::to_string(max_length) + " bytes";
        else if (mapped->offset + mapped->available == in_.size())
            why = ": name has no terminating NUL before the end of the file";
        else
            why = ": name has no terminating NUL before the end of its section";
        return Unexpected(problem(what + " " + hex(rva) + why, mapped->offset));
    }
    if (text->empty())
        return Unexpected(problem(what + " " + hex(rva) + ": name is empty", mapped->offset));
    for (std::size_t i = 0; i < text->size(); ++i) {
        auto c = static_cast<unsigned char>((*text)[i]);
        if (c < 0x20 || c >= 0x7f)
            return Unexpected(problem(
                what + " " + hex(rva) + ": name has byte " + hex(c) + ", not printable ASCII",
                mapped->offset + i));
    }
    return std::string(*text);
}

util::Expected<PeMapped, ImageProblem> PeMap::table(std::uint64_t rva, std::uint64_t count,
                                                    std::uint64_t width, const std::string& what,
                                                    std::uint64_t read_at) const {
    auto mapped = map(rva, what, read_at);
    if (!mapped) return Unexpected(std::move(mapped).error());
    if (mapped->available / width < count)
        return Unexpected(problem(
            what + " " + hex(rva) + ": " + std::to_string(count) + " entries of " +
                std::to_string(width) + " bytes run past the end of " +
                (mapped->offset + mapped->available == in_.size() ? "the file" : "their section"),
            read_at));
    return PeMapped{mapped->offset, count * width};
}

}  // namespace aitk::diag::detail
