#pragma once
// RECORD files (the "Recording installed projects" spec): CSV rows `path,hash,size`, the hash
// written `sha256=<urlsafe base64 without padding>`, RECORD's own row with both left empty.
// Python's csv module reads and writes them, so fields with a comma, a quote or a line break are
// quoted, with quotes doubled.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/fs/hash.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::install {

// Every row in file order (blank lines skipped). Errors read "line 3: ..." (the line where the
// bad row starts). Paths are not judged here: see checked_record_path.
util::Expected<std::vector<InstalledFile>, std::string> parse_record(std::string_view text);

// The RECORD text for `files`, one row each, '\n' line ends.
std::string format_record(const std::vector<InstalledFile>& files);
// Appends one row to `out` (no allocation beyond growing `out`).
void append_record_row(std::string& out, std::string_view path, std::string_view hash,
                       std::optional<std::uint64_t> size);

// "sha256=<urlsafe base64 nopad>" of a digest / of some bytes.
std::string record_hash(const fs::Digest256& digest);
std::string record_hash_of(std::string_view content);

// Whether a RECORD hash field states `digest` (base64 padding tolerated). False for other
// algorithms: sha256 is the one aitk-env checks.
bool record_hash_matches(std::string_view field, const fs::Digest256& digest);
// True when the hash field names sha256 ("sha256=...").
bool is_sha256_record_hash(std::string_view field) noexcept;

// A wheel's RECORD path must be the normalised relative path of a member: no '..', no absolute
// path or drive letter, no backslash, no "./" or "//". Returns why not, or nothing when fine.
std::optional<std::string> record_path_problem(std::string_view path);

}  // namespace aitk::install
