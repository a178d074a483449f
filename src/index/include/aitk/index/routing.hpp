#pragma once
// Which index a project is looked up on. A plain data structure (a manifest or the CLI fills
// it): indexes are tried in order and, under first-index, the first that has the project wins,
// so a name squatted on a later index can never shadow the real one (no dependency confusion);
// the unsafe-* strategies gather the project's versions from every index, as pip does (and uv
// when told to). Torch-family projects come only from the torch backend index (one CUDA
// flavour for the whole family), under every strategy.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aitk::index {

enum class IndexKind {
    simple,         // PEP 503/691: "<url><project>/"
    find_links,     // one flat HTML page, or a local folder (path or file: URL), of files
    torch_backend,  // download.pytorch.org/whl/<backend>/: "<url><project>/"
};

std::string_view to_string(IndexKind kind) noexcept;

// Which indexes a project's versions come from when several list it; uv's names and meanings
// (docs/cli.md "Index strategy").
enum class IndexStrategy {
    first_index,         // the first index, in order, that lists the name; only its versions
    unsafe_first_match,  // every index's versions; the first index's are tried before the next's
    unsafe_best_match,   // every index's versions; the best version wins (pip's behaviour)
};

std::string_view to_string(IndexStrategy strategy) noexcept;
// uv's spelling ("first-index", ...), exactly; nothing for anything else.
std::optional<IndexStrategy> parse_index_strategy(std::string_view text) noexcept;
// "first-index, unsafe-first-match or unsafe-best-match", for messages.
std::string_view index_strategy_names() noexcept;

struct IndexLocation {
    std::string name;  // for messages: "primary", "extra-index 1", "find-links", "torch cu126"
    std::string url;   // simple/torch: ends with '/'; find-links: a page URL or a folder
    IndexKind kind = IndexKind::simple;
    friend bool operator==(const IndexLocation&, const IndexLocation&) = default;
};

// The torch family (docs/data-sources.md §5): projects built per backend. A trailing '*' matches
// a prefix ("pytorch-triton*").
std::vector<std::string> default_torch_family();
// The core of the family, which defines the backend: torch, torchvision, torchaudio.
std::vector<std::string> default_torch_core();

struct IndexRouting {
    // Searched in order: under first-index the first index that lists files of the project
    // wins; under the others every one is asked, and the order breaks ties.
    std::vector<IndexLocation> indexes;
    IndexStrategy strategy = IndexStrategy::first_index;
    // Under an unsafe-* strategy, a version several indexes list: every index's files (pip's
    // way; the first index's copy of a file name wins) rather than the first index's entry
    // alone (uv's way).
    bool version_files_from_every_index = false;
    // When set, the torch family's core is looked up here and nowhere else; the rest of the
    // family here first, then on `indexes`.
    std::optional<IndexLocation> torch_backend_index;
    // PEP 503-normalised names or prefixes with '*'.
    std::vector<std::string> torch_family = default_torch_family();
    std::vector<std::string> torch_core = default_torch_core();

    // pip-like options: the primary index, extra indexes and find-links in that order, and
    // the backend index "<torch_index_url>/<backend>/" when both are given. An empty primary
    // means --no-index (only find-links and the backend index).
    static IndexRouting from_options(std::string_view primary,
                                     const std::vector<std::string>& extra_indexes = {},
                                     const std::vector<std::string>& find_links = {},
                                     std::string_view torch_index_url = {},
                                     std::string_view torch_backend = {});

    bool is_torch_family(std::string_view project) const;
    bool is_torch_core(std::string_view project) const;
    // Whether `project`'s versions are gathered from every candidate index: under an unsafe-*
    // strategy, except for the torch family of a backend index (routed as under first-index).
    bool merges(std::string_view project) const;
    // The indexes `project` may come from, in the order they are tried.
    std::vector<IndexLocation> candidates(std::string_view project) const;
    // The same without the torch backend index: where a family member the backend index has
    // no fitting version of is looked up next.
    std::vector<IndexLocation> candidates_beyond_backend(std::string_view project) const;
};

// The page of `project` (PEP 503-normalised) on `index`: "<url><project>/" for simple and
// torch indexes, the location itself for find-links.
std::string project_page_url(const IndexLocation& index, std::string_view project);

// "https://host/simple" -> "https://host/simple/".
std::string with_trailing_slash(std::string_view url);

}  // namespace aitk::index
