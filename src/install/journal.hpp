#pragma once
// The journal of a prefix transaction (<state>/txn/journal): its phase and every move the
// commit makes, as a small line-based text (file names are bytes, not always UTF-8, so no
// JSON). Written atomically (temporary file, flush, rename, flush of the folder), so a reader
// sees the old journal or the new one. Private to the install layer.
//
//   aitk-env transaction 1
//   phase committing
//   trash lib/python3.12/site-packages/old.py        prefix file → trash/<path>
//   place lib/python3.12/site-packages/new.py        staging/<path> → prefix (old one → trash)
//   move lib/python3.12/site-packages/newpkg         staging/<folder> → prefix, in one rename
//   end 3                                            the number of moves
//
// "move" names a staged folder whose place did not exist when the journal was written, so one
// rename takes its whole tree into the prefix (a fresh torch/ is ~30,000 files and ~2,000
// folders that would otherwise be made, renamed and removed one by one).
//
// Paths are relative to the prefix, '/'-separated, with '%', control bytes and DEL written
// as %XX.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/install/layout.hpp"

namespace aitk::install::detail {

enum class MoveKind {
    trash,   // a file leaves the prefix: <prefix>/<path> → trash/<path>
    place,   // a staged file takes its place: staging/<path> → <prefix>/<path>
    folder,  // a staged folder, new to the prefix, moves whole: staging/<path> → <prefix>/<path>
};

struct JournalMove {
    MoveKind kind = MoveKind::place;
    std::string path;  // relative to the prefix, '/'-separated
};

enum class JournalPhase { committing, committed };

struct Journal {
    JournalPhase phase = JournalPhase::committing;
    std::vector<JournalMove> moves;
};

// Where a transaction keeps its files, all on the prefix's filesystem.
struct TxnPaths {
    std::filesystem::path prefix;   // absolute, lexically normal
    std::filesystem::path root;     // <state>/txn
    std::filesystem::path journal;  // root/journal
    std::filesystem::path staging;  // root/staging: new files, laid out like the prefix
    std::filesystem::path trash;    // root/trash: replaced and removed files

    explicit TxnPaths(const PrefixLayout& layout);

    // "a/b" → <prefix>/a/b (and the same under staging and trash).
    std::filesystem::path in_prefix(std::string_view relative) const;
    std::filesystem::path in_staging(std::string_view relative) const;
    std::filesystem::path in_trash(std::string_view relative) const;
};

std::string format_journal(const Journal& journal);
// nullopt with `error` set ("line 3: ...") when the text is not a whole journal.
std::optional<Journal> parse_journal(std::string_view text, std::string& error);

void write_journal(const TxnPaths& paths, const Journal& journal);
// nullopt when there is no journal; throws util::Error naming the journal, with a hint on
// recovering by hand, when it cannot be read or parsed.
std::optional<Journal> read_journal(const TxnPaths& paths);
// Removes the journal (and a temporary one a crash left) and flushes the folder.
void remove_journal(const TxnPaths& paths);

// `path` made absolute and lexically normal, without a trailing separator.
std::filesystem::path absolute_normal(const std::filesystem::path& path);

// Whether `path` is `root` or inside it (both absolute and normal).
bool is_within(const std::filesystem::path& path, const std::filesystem::path& root);

// A path as the journal writes it (generic, UTF-8 bytes) and back.
std::string to_journal_path(const std::filesystem::path& relative);
std::filesystem::path from_journal_path(std::string_view relative);

}  // namespace aitk::install::detail
