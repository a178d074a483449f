#pragma once
// One file an index offers for a project (a wheel or an sdist), as PEP 503 HTML, PEP 691 JSON
// and find-links pages describe it, and the page that lists such files.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "aitk/pep/sdist_filename.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/pep/wheel_filename.hpp"

namespace aitk::index {

// Hash algorithm (lower case: "sha256") -> hex digest (lower case).
using Hashes = std::map<std::string, std::string>;

// PEP 658 / 714: whether "<url>.metadata" exists, and the hashes of that file when given.
struct CoreMetadataRef {
    bool available = false;
    Hashes hashes;
    friend bool operator==(const CoreMetadataRef&, const CoreMetadataRef&) = default;
};

enum class FileKind { wheel, sdist };

struct DistributionFile {
    std::string filename;  // percent-decoded last path segment of the URL
    std::string url;       // absolute, without the fragment; may carry the index's credentials
    Hashes hashes;
    std::string requires_python;  // specifier text (HTML entities decoded); empty when absent
    bool yanked = false;
    std::string yanked_reason;
    CoreMetadataRef core_metadata;
    std::optional<std::uint64_t> size;
    std::string upload_time;  // ISO 8601 as the JSON page gives it; empty otherwise
    std::variant<pep::WheelFilename, pep::SdistFilename> parsed;

    FileKind kind() const noexcept {
        return parsed.index() == 0 ? FileKind::wheel : FileKind::sdist;
    }
    bool is_wheel() const noexcept { return kind() == FileKind::wheel; }
    const pep::WheelFilename* wheel() const noexcept {
        return std::get_if<pep::WheelFilename>(&parsed);
    }
    const pep::SdistFilename* sdist() const noexcept {
        return std::get_if<pep::SdistFilename>(&parsed);
    }
    const std::string& project() const noexcept;  // PEP 503-normalised, from the filename
    const pep::Version& version() const noexcept;
    // The sha256 digest given by the index, if any.
    std::optional<std::string_view> sha256() const;
    // Where PEP 658 puts the file's core metadata.
    std::string metadata_url() const;
};

// A link that was not taken, and why ("not a wheel or sdist", "belongs to project X", ...).
struct SkippedFile {
    std::string filename;
    std::string url;
    std::string reason;
    // The entry itself is broken (a JSON field of the wrong type, no url), rather than a file
    // that is merely not for this project or not a wheel or sdist.
    bool malformed = false;
};

enum class PageFormat { html, json, directory };

struct ProjectPage {
    std::string url;  // the page as fetched (the base of relative links)
    PageFormat format = PageFormat::html;
    // PEP 629 / PEP 691 "api-version" ("1.1"); empty for HTML pages that do not declare it.
    std::string api_version;
    std::vector<DistributionFile> files;
    std::vector<SkippedFile> skipped;
};

// Hash algorithms an index may name. The digest must be hex of the algorithm's length; returns
// the lower-cased digest, or nothing when it is malformed. Unknown algorithms accept any hex.
std::optional<std::string> normalize_hash(std::string_view algorithm, std::string_view digest);

// Hashes from a URL fragment ("sha256=ab..", also "egg=x&sha256=ab.."): pip's rule. Nothing
// for a fragment naming a known algorithm with a malformed digest (the error says which).
struct FragmentHashes {
    Hashes hashes;
    std::string error;  // empty when fine
};
FragmentHashes hashes_from_fragment(std::string_view fragment);

// Why a link found on the page at `page_url` must not be followed, or "" when it may: only
// http, https and file URLs, and file URLs only from pages that are local files themselves (a
// remote index must not point into this machine's disk).
std::string link_scheme_problem(std::string_view page_url, std::string_view link_url);

// Turns `draft` (every field but `parsed` filled from a page) into a file of `project`
// (PEP 503-normalised; empty accepts any project, for find-links pages), or says why it is
// skipped: not a wheel or sdist, unparseable filename, another project, unsafe filename.
std::variant<DistributionFile, SkippedFile> classify_file(DistributionFile draft,
                                                          std::string_view project);

// --- filtering helpers ---

// Whether the file's Requires-Python admits `python`, the interpreter's major.minor.micro
// (pip uses sys.version_info[:3], so a 3.13.0rc1 interpreter counts as 3.13.0). An absent or
// unparseable Requires-Python admits everything, as pip does.
bool requires_python_allows(const DistributionFile& file, const pep::Version& python);

// The files whose Requires-Python admits `python`, in page order.
std::vector<DistributionFile> filter_requires_python(const std::vector<DistributionFile>& files,
                                                     const pep::Version& python);

// The files that are not yanked (PEP 592: a yanked file is chosen only when pinned exactly).
std::vector<DistributionFile> without_yanked(const std::vector<DistributionFile>& files);

}  // namespace aitk::index
