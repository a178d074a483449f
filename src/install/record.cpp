#include "aitk/install/record.hpp"

#include <charconv>

#include "aitk/archive/member_path.hpp"

namespace aitk::install {
namespace {

// One CSV row as Python's csv reader (excel dialect, strict off) splits it: quoted fields may
// hold commas, doubled quotes and line breaks; text after a closing quote is kept.
struct RowReader {
    std::string_view text;
    std::size_t pos = 0;
    std::size_t line = 1;

    bool at_end() const noexcept { return pos >= text.size(); }

    // Reads fields into `fields` (reused between rows); false with `error` set on a bad row.
    bool read_row(std::vector<std::string>& fields, std::size_t& count, std::string& error) {
        count = 0;
        auto next_field = [&]() -> std::string& {
            if (count == fields.size()) fields.emplace_back();
            std::string& f = fields[count++];
            f.clear();
            return f;
        };
        std::string* field = &next_field();
        const std::size_t start_line = line;
        bool quoted = false;
        while (pos < text.size()) {
            char c = text[pos];
            if (quoted) {
                if (c == '"') {
                    if (pos + 1 < text.size() && text[pos + 1] == '"') {
                        *field += '"';
                        pos += 2;
                        continue;
                    }
                    quoted = false;
                    ++pos;
                    continue;
                }
                if (c == '\n') ++line;
                *field += c;
                ++pos;
                continue;
            }
            if (c == '\n' || c == '\r') {
                ++pos;
                if (c == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
                ++line;
                return true;
            }
            if (c == ',') {
                field = &next_field();
            } else if (c == '"' && field->empty()) {
                quoted = true;
            } else {
                // The common case: a run of plain characters, appended at once.
                std::size_t end = text.find_first_of(",\r\n", pos + 1);
                if (end == std::string_view::npos) end = text.size();
                field->append(text.substr(pos, end - pos));
                pos = end;
                continue;
            }
            ++pos;
        }
        if (quoted) {
            error = "line " + std::to_string(start_line) + ": a quoted field is not closed";
            return false;
        }
        return true;
    }
};

bool parse_size(std::string_view text, std::uint64_t& out) {
    if (text.empty()) return false;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

bool needs_quotes(std::string_view field) noexcept {
    return field.find_first_of(",\"\r\n") != std::string_view::npos;
}

void append_field(std::string& out, std::string_view field) {
    if (!needs_quotes(field)) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

}  // namespace

util::Expected<std::vector<InstalledFile>, std::string> parse_record(std::string_view text) {
    std::vector<InstalledFile> out;
    RowReader reader{text};
    std::vector<std::string> fields;
    std::string error;
    while (!reader.at_end()) {
        const std::size_t line = reader.line;
        std::size_t count = 0;
        if (!reader.read_row(fields, count, error)) return util::Unexpected(std::move(error));
        if (count == 1 && fields[0].empty()) continue;  // a blank line
        const std::string where = "line " + std::to_string(line) + ": ";
        if (count != 3) {
            return util::Unexpected(where + "has " + std::to_string(count) +
                                    " fields, expected 3 (path,hash,size)");
        }
        if (fields[0].empty()) return util::Unexpected(where + "the path is empty");
        InstalledFile file;
        const std::string& hash = fields[1];
        if (!hash.empty()) {
            std::size_t eq = hash.find('=');
            if (eq == 0 || eq == std::string::npos || eq + 1 == hash.size()) {
                return util::Unexpected(where + "hash '" + hash +
                                        "' is not written <algorithm>=<digest>");
            }
        }
        if (!fields[2].empty() && !parse_size(fields[2], file.size)) {
            return util::Unexpected(where + "size '" + fields[2] + "' is not a number");
        }
        file.path = std::move(fields[0]);
        file.hash = std::move(fields[1]);
        out.push_back(std::move(file));
    }
    return out;
}

void append_record_row(std::string& out, std::string_view path, std::string_view hash,
                       std::optional<std::uint64_t> size) {
    append_field(out, path);
    out += ',';
    append_field(out, hash);
    out += ',';
    if (size) {
        char buffer[24];
        auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, *size);
        (void)ec;
        out.append(buffer, end);
    }
    out += '\n';
}

std::string format_record(const std::vector<InstalledFile>& files) {
    std::string out;
    out.reserve(files.size() * 96);
    for (const auto& f : files) {
        // RECORD's own row (no hash) has no size either.
        append_record_row(out, f.path, f.hash,
                          f.hash.empty() ? std::nullopt : std::optional<std::uint64_t>(f.size));
    }
    return out;
}

std::string record_hash(const fs::Digest256& digest) {
    return "sha256=" + fs::base64url_nopad(digest.data(), digest.size());
}

std::string record_hash_of(std::string_view content) {
    fs::Sha256 hasher;
    hasher.update(content);
    return record_hash(hasher.finish());
}

bool is_sha256_record_hash(std::string_view field) noexcept {
    return field.starts_with("sha256=");
}

bool record_hash_matches(std::string_view field, const fs::Digest256& digest) {
    if (!is_sha256_record_hash(field)) return false;
    field.remove_prefix(7);
    while (!field.empty() && field.back() == '=')
        field.remove_suffix(1);
    return field == fs::base64url_nopad(digest.data(), digest.size());
}

std::optional<std::string> record_path_problem(std::string_view path) {
    auto normalized = archive::normalize_member_path(path);
    if (!normalized) return normalized.error();
    if (normalized->empty()) return std::string("names the wheel's root folder");
    if (*normalized != path) return "is not in normal form ('" + *normalized + "')";
    return std::nullopt;
}

}  // namespace aitk::install
