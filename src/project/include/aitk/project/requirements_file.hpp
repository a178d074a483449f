#pragma once
// pip requirements files, the whole format pip accepts (docs/data-sources.md §6): `-r`/`-c`
// recursion (paths relative to the including file, cycles reported with the chain), index options,
// `--pre`, `--only-binary`/`--no-binary`, per-line `--hash`, markers, extras, `name @ url`,
// VCS and plain URLs (`git+https://…@rev#egg=name`, `-e` too), `\` continuations, comments
// (`#` at line start or after whitespace) and `${VAR}` expansion (only that form, as pip does).
// Reading is pure apart from the file reads, which go through an injectable reader.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/util/input_problem.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::project {

using util::InputProblem;
using util::Loaded;
using util::SourceLocation;

struct RequirementLine {
    SourceLocation where;  // the file and the first physical line of the logical line
    std::string text;      // the requirement part as written, after joining and ${VAR} expansion
    // The PEP 508 requirement. For a bare URL or VCS line without "#egg=" the name is unknown
    // and this is empty (a later stage reads the name from the built metadata).
    std::optional<pep::Requirement> requirement;
    std::string url;                  // "name @ url", a bare URL or a VCS URL; empty otherwise
    std::optional<pep::VcsUrl> vcs;   // when `url` is a VCS URL
    bool editable = false;            // "-e"
    std::vector<std::string> hashes;  // "sha256:<hex>" from --hash options, in order
    // For a requirement without a name (a path or URL whose metadata will tell it): the extras
    // ("./pkg[gpu]") and the marker ("https://…/x.tar.gz ; python_version < '3.10'") that
    // `requirement` would otherwise carry.
    std::vector<std::string> unnamed_extras;
    std::optional<pep::Marker> unnamed_marker;
    std::string name() const;  // the normalised name, or "" when unknown
};

struct RequirementsOptions {
    std::optional<std::string> index_url;  // the last --index-url / -i
    bool no_index = false;
    std::vector<std::string> extra_index_urls;
    std::vector<std::string> find_links;  // relative paths resolved against their file's folder
    bool pre = false;
    // Package names (normalised) or ":all:"; ":none:" clears, as pip does.
    std::vector<std::string> only_binary;
    std::vector<std::string> no_binary;
    bool prefer_binary = false;
    bool require_hashes = false;
    std::vector<std::string> trusted_hosts;
};

struct RequirementsFile {
    std::vector<RequirementLine> requirements;  // from the file and its -r includes, in order
    std::vector<RequirementLine> constraints;   // from -c files (and their nested files)
    RequirementsOptions options;                // from the file and all it includes (-c files too)
    // Every file read, in the order they were first opened (the input hash covers them). Text
    // given to parse_requirements_text() was not read: only the files it includes are here.
    std::vector<std::filesystem::path> files;
    // The ${VAR} references expanded on the way, with their values: whatever shows a line
    // (a message, a note) shows the reference instead (util::conceal).
    std::vector<util::Concealed> concealed;
};

struct RequirementsReadOptions {
    // ${VAR} values. Unset variables are left as written, as pip does.
    util::Environment environment;
    // Reads one file; empty: the real filesystem, regular files up to
    // fs::requirements_file.max_bytes (errors name the including line).
    std::function<util::Expected<std::string, std::string>(const std::filesystem::path&)> read;
};

// Reads `path` and everything it includes. Errors carry file:line:column and a hint.
Loaded<RequirementsFile> read_requirements_file(const std::filesystem::path& path,
                                                const RequirementsReadOptions& options = {});

// The same for text already in memory; `file` names it in errors and is the base of relative
// includes.
Loaded<RequirementsFile> parse_requirements_text(std::string_view text,
                                                 const std::filesystem::path& file,
                                                 const RequirementsReadOptions& options = {});

// One requirement as a requirements-file line may hold it (PEP 508, `name @ url`, a VCS or plain
// URL, a path or archive, `-e …`, trailing `--hash=…` options), for single entries kept
// elsewhere (a manifest's requirement list). `where` locates it for problems (its column is
// where the text starts); relative paths are taken from `base_dir`.
Loaded<RequirementLine> parse_requirement_line(std::string_view text, const SourceLocation& where,
                                               const std::filesystem::path& base_dir = {});

}  // namespace aitk::project
