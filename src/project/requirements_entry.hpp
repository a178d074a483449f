#pragma once
// The requirement part of a requirements-file line, classified as pip's req/constructors.py
// does: a URL (http, https, file, ftp or a VCS scheme), a local path or archive (with optional
// "[extras]"), or a PEP 508 requirement. `-e` values follow parse_editable().
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/project/requirements_file.hpp"
#include "requirements_options.hpp"

namespace aitk::project::detail {

// Fills requirement, url, vcs, editable, unnamed_extras and unnamed_marker of a line. Relative
// paths are taken from `base_dir` (pip takes them from the current directory, which is the
// requirement file's folder whenever it is run next to it). Errors carry offsets into `text`.
util::Expected<RequirementLine, LineError> parse_requirement_entry(
    std::string_view text, const std::filesystem::path& base_dir);
util::Expected<RequirementLine, LineError> parse_editable_entry(
    std::string_view text, const std::filesystem::path& base_dir);

// pip's is_url(): the text before the first ':' is http, https, file, ftp or a VCS scheme.
bool is_pip_url(std::string_view text);
// Any "scheme:" prefix of two or more letters (so "C:\\x" stays a path).
bool has_url_scheme(std::string_view text);
// "file:///abs/path" for a local path (made absolute and normalised), percent-encoded like
// urllib's pathname2url.
std::string path_to_file_url(const std::filesystem::path& path);
// The local path of a "file:" URL; nothing for other URLs or a remote host.
std::optional<std::filesystem::path> file_url_to_path(std::string_view url);
// `path` joined to `base_dir` when relative, then normalised.
std::filesystem::path join_relative(const std::filesystem::path& base_dir,
                                    const std::filesystem::path& path);

}  // namespace aitk::project::detail
