#pragma once
// What each file of an unpacked tree was when the cache made it, so that a change is found by
// stat alone before the tree is linked from again. With hardlinks a prefix's file IS the cache's
// file: `>>` or an in-place rewrite in one prefix would otherwise reach every later prefix.
//
// The record (`<tree>/.aitk-env-stamp`) lists, for every regular file below the tree, its size,
// its modification time in nanoseconds and its permission bits. It is written into the tree
// before the tree is renamed into the store, so an entry has a whole record or none. What each
// kind of change does to it:
//   `>>` through a hardlink     size and time change                    -> differs
//   a rewrite of the same size  the time changes (unpacking dates files
//                               from the wheel, never "now")            -> differs
//   `touch`, `chmod`            time or permission bits change          -> differs (a rebuild
//                                                                          that was not needed)
//   linking into a prefix       only the inode's ctime and link count   -> matches
//   `cp -a`, rsync -a, tar      sizes, times and modes kept             -> matches
//   `cp -r` without times       times change                            -> differs (rebuilt once)
// Inode numbers and ctimes are not recorded: every copy changes the first, every link the second.
// A rewrite that puts the old time back is not seen here; `aitk-env cache verify` hashes.
#include <filesystem>
#include <string>
#include <string_view>

namespace aitk::cache {

// The record's name at the top of each unpacked tree. No wheel may hold a member of this name at
// its top (install::unpack_wheel refuses one), and nothing installs it.
inline constexpr std::string_view tree_stamp_name = ".aitk-env-stamp";

// Records every regular file below `tree` (the record itself left out) in
// `tree`/tree_stamp_name. Throws util::Error naming the tree.
void write_tree_stamp(const std::filesystem::path& tree);

struct StampCheck {
    enum class Result {
        matches,  // every recorded file is as recorded
        missing,  // no record, or one cut short or of another format (an earlier aitk-env)
        differs,  // a file changed: `detail` says which and how
    };
    Result result = Result::matches;
    // differs: "file pkg/mod.py: size 16, was 6", "file pkg/mod.py: modified since it was
    // unpacked", "file pkg/mod.py: mode 0444, was 0644", "file pkg/mod.py: missing", ...
    std::string detail;
};

// Compares every recorded file with the disk by one stat each (nothing is read); stops at the
// first difference.
StampCheck check_tree_stamp(const std::filesystem::path& tree);

}  // namespace aitk::cache
