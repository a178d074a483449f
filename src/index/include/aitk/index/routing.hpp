#pragma once
// Which index a project is looked up on. A plain data structure (a manifest or the CLI fills
// it): indexes are tried in order and the first that has the project wins, so a name squatted
// on a later index can never shadow the real one (no dependency confusion); torch-family
// projects come only from the torch backend index (one CUDA flavour for the whole family).
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
    // Searched in order; the first index that lists files of the project wins.
    std::vector<IndexLocation> indexes;
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
