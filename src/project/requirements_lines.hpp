#pragma once
// The first stage of reading a requirements file: physical lines into logical lines, the way
// pip's preprocess() does it (req_file.py: join_lines, ignore_comments, expand_env_variables),
// keeping for every byte the physical line and column it came from so that a problem found
// later points into the file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/redact.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::project::detail {

// Where a byte came from: 1-based physical line and byte column.
struct TextOrigin {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
};

struct LogicalLine {
    std::string text;                 // joined, comment cut, stripped, ${VAR} expanded
    std::vector<TextOrigin> origins;  // one per byte of `text`
    std::uint32_t first_line = 0;     // the physical line the logical line starts on
    // The ${NAME} references replaced in `text`: a message shows the reference, never the value.
    std::vector<util::Concealed> expansions;

    // The origin of text[offset]; an offset at or past the end gives the position just after
    // the last byte.
    TextOrigin origin_at(std::size_t offset) const;
};

// Yields the non-empty logical lines of a text in order. Lines end where Python's
// str.splitlines() ends them (\n, \r\n, \r, \v, \f, \x1c-\x1e, U+0085, U+2028, U+2029).
class LogicalLineReader {
  public:
    // `environment` supplies ${NAME} values; it must outlive the reader.
    LogicalLineReader(std::string_view text, const util::Environment& environment);

    // Fills `line` with the next logical line; false at the end of the text. `line` keeps its
    // capacity between calls.
    bool next(LogicalLine& line);

  private:
    struct Physical {
        std::string_view text;
        std::uint32_t number = 0;
    };
    bool next_physical(Physical& physical);
    void append(LogicalLine& line, std::string_view piece, std::uint32_t number,
                std::uint32_t first_column);
    void finish(LogicalLine& line) const;

    std::string_view text_;
    std::size_t position_ = 0;
    std::uint32_t line_number_ = 0;
    const util::Environment& environment_;
};

// A UTF-8 text from file bytes: a UTF-8 byte order mark is dropped and UTF-16 with a byte order
// mark (what Windows PowerShell's `pip freeze > requirements.txt` writes) is converted, as pip's
// auto_decode does. Other bytes are kept as they are.
std::string decode_requirements_bytes(std::string_view bytes);

}  // namespace aitk::project::detail
