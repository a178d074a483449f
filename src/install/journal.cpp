#include "journal.hpp"

#include <charconv>
#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/utf8.hpp"
#include "durable.hpp"

namespace aitk::install::detail {
namespace {

namespace stdfs = std::filesystem;

constexpr std::string_view header = "aitk-env transaction 1";

bool needs_escape(unsigned char c) {
    return c < 0x20 || c == 0x7f || c == '%';
}

std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        auto c = static_cast<unsigned char>(ch);
        if (needs_escape(c)) {
            util::append_percent_escaped(out, c);
        } else {
            out += ch;
        }
    }
    return out;
}

// Relative, '/'-separated, no empty, '.' or '..' part: a journal never names a file outside
// the prefix, even a corrupted one.
bool is_safe_relative(std::string_view path) {
    if (path.empty() || path.front() == '/') return false;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        std::string_view part = path.substr(start, end - start);
        if (part.empty() || part == "." || part == "..") return false;
        start = end + 1;
    }
    return true;
}

stdfs::path under(const stdfs::path& base, std::string_view relative) {
    return base / from_journal_path(relative);
}

}  // namespace

std::string to_journal_path(const stdfs::path& relative) {
    std::u8string text = relative.generic_u8string();
    return std::string(text.begin(), text.end());
}

stdfs::path from_journal_path(std::string_view relative) {
    return stdfs::path(std::u8string(relative.begin(), relative.end()));
}

stdfs::path absolute_normal(const stdfs::path& path) {
    stdfs::path out = stdfs::absolute(path).lexically_normal();
    // lexically_normal keeps a trailing separator as an empty last part; drop it.
    if (!out.has_filename() && out != out.root_path()) out = out.parent_path();
    return out;
}

bool is_within(const stdfs::path& path, const stdfs::path& root) {
    stdfs::path rel = path.lexically_relative(root);
    return !rel.empty() && *rel.begin() != "..";
}

TxnPaths::TxnPaths(const PrefixLayout& layout)
    : prefix(absolute_normal(layout.prefix)),
      root(absolute_normal(layout.state) / "txn"),
      journal(root / "journal"),
      staging(root / "staging"),
      trash(root / "trash") {}

stdfs::path TxnPaths::in_prefix(std::string_view relative) const {
    return under(prefix, relative);
}
stdfs::path TxnPaths::in_staging(std::string_view relative) const {
    return under(staging, relative);
}
stdfs::path TxnPaths::in_trash(std::string_view relative) const {
    return under(trash, relative);
}

std::string format_journal(const Journal& journal) {
    std::string out(header);
    out += "\nphase ";
    out += journal.phase == JournalPhase::committing ? "committing" : "committed";
    out += '\n';
    for (const auto& move : journal.moves) {
        out += move.kind == MoveKind::trash   ? "trash "
               : move.kind == MoveKind::place ? "place "
                                              : "move ";
        out += escape(move.path);
        out += '\n';
    }
    out += "end " + std::to_string(journal.moves.size()) + "\n";
    return out;
}

std::optional<Journal> parse_journal(std::string_view text, std::string& error) {
    Journal journal;
    std::size_t line_no = 0;
    bool have_phase = false;
    bool ended = false;
    auto fail = [&](const std::string& why) {
        error = "line " + std::to_string(line_no) + ": " + why;
        return std::nullopt;
    };
    while (!text.empty()) {
        std::size_t newline = text.find('\n');
        if (newline == std::string_view::npos) {
            ++line_no;
            return fail("the last line is cut short (no newline)");
        }
        std::string_view line = text.substr(0, newline);
        text.remove_prefix(newline + 1);
        ++line_no;
        if (ended) return fail("text after the end line");
        if (line_no == 1) {
            if (line != header) return fail("not an aitk-env transaction journal");
            continue;
        }
        std::size_t space = line.find(' ');
        std::string_view word = line.substr(0, space);
        std::string_view rest = space == std::string_view::npos ? "" : line.substr(space + 1);
        if (line_no == 2) {
            if (word != "phase") return fail("expected the phase");
            if (rest == "committing") {
                journal.phase = JournalPhase::committing;
            } else if (rest == "committed") {
                journal.phase = JournalPhase::committed;
            } else {
                return fail("unknown phase '" + std::string(rest) + "'");
            }
            have_phase = true;
            continue;
        }
        if (word == "trash" || word == "place" || word == "move") {
            auto path = util::percent_decode_strict(rest);
            if (!path || !is_safe_relative(*path)) {
                return fail("'" + std::string(rest) + "' is not a path inside the prefix");
            }
            const MoveKind kind = word == "trash"   ? MoveKind::trash
                                  : word == "place" ? MoveKind::place
                                                    : MoveKind::folder;
            journal.moves.push_back({kind, std::move(*path)});
        } else if (word == "end") {
            std::size_t count = 0;
            auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), count);
            if (ec != std::errc() || ptr != rest.data() + rest.size() ||
                count != journal.moves.size()) {
                return fail("the end line does not match the " +
                            std::to_string(journal.moves.size()) + " moves read");
            }
            ended = true;
        } else {
            return fail("unknown entry '" + std::string(word) + "'");
        }
    }
    if (line_no == 0) return fail("the journal is empty");
    if (!have_phase || !ended) return fail("the journal is cut short (no end line)");
    return journal;
}

void write_journal(const TxnPaths& paths, const Journal& journal) {
    std::error_code ec;
    stdfs::create_directories(paths.root, ec);
    if (ec) {
        throw util::Error(
            util::ExitCode::failure,
            "cannot create folder " + util::utf8_of(paths.root) + ": " + ec.message());
    }
    fs::write_file_atomic(paths.journal, format_journal(journal));
    flush_to_disk(paths.root);
}

std::optional<Journal> read_journal(const TxnPaths& paths) {
    std::error_code ec;
    if (!stdfs::exists(stdfs::symlink_status(paths.journal, ec))) return std::nullopt;
    const std::string hint =
        "delete " + util::utf8_of(paths.root) +
        " and run `aitk-env sync` again: it reinstalls whatever the interrupted change left "
        "incomplete (`aitk-env verify -p " +
        util::utf8_of(paths.prefix) + "` lists it)";
    std::string text;
    try {
        text = fs::read_file(paths.journal);
    } catch (const util::Error& e) {
        throw util::Error(util::ExitCode::failure,
                          "the journal of an interrupted change to " + util::utf8_of(paths.prefix) +
                              " cannot be read: " + e.what(),
                          hint);
    }
    std::string error;
    auto journal = parse_journal(text, error);
    if (!journal) {
        throw util::Error(util::ExitCode::failure,
                          "the journal " + util::utf8_of(paths.journal) +
                              " of an interrupted change to " + util::utf8_of(paths.prefix) +
                              " is damaged: " + error,
                          hint);
    }
    return journal;
}

void remove_journal(const TxnPaths& paths) {
    std::error_code ec;
    stdfs::remove(paths.journal, ec);
    if (ec) {
        throw util::Error(util::ExitCode::failure,
                          "cannot remove " + util::utf8_of(paths.journal) + ": " + ec.message());
    }
    flush_to_disk(paths.root);
}

}  // namespace aitk::install::detail
