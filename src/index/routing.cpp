#include "aitk/index/routing.hpp"

#include "aitk/pep/name.hpp"

namespace aitk::index {

std::string_view to_string(IndexKind kind) noexcept {
    switch (kind) {
        case IndexKind::simple:
            return "simple";
        case IndexKind::find_links:
            return "find-links";
        case IndexKind::torch_backend:
            return "torch-backend";
    }
    return "simple";
}

std::string_view to_string(IndexStrategy strategy) noexcept {
    switch (strategy) {
        case IndexStrategy::first_index:
            return "first-index";
        case IndexStrategy::unsafe_first_match:
            return "unsafe-first-match";
        case IndexStrategy::unsafe_best_match:
            return "unsafe-best-match";
    }
    return "first-index";
}

std::optional<IndexStrategy> parse_index_strategy(std::string_view text) noexcept {
    for (auto strategy : {IndexStrategy::first_index, IndexStrategy::unsafe_first_match,
                          IndexStrategy::unsafe_best_match}) {
        if (text == to_string(strategy)) return strategy;
    }
    return std::nullopt;
}

std::string_view index_strategy_names() noexcept {
    return "first-index, unsafe-first-match or unsafe-best-match";
}

std::vector<std::string> default_torch_family() {
    return {"torch",      "torchvision", "torchaudio", "torchao",        "torchcodec",
            "torchtext",  "torchdata",   "torchrec",   "torchtune",      "torch-tensorrt",
            "fbgemm-gpu", "xformers",    "triton",     "pytorch-triton*"};
}

std::vector<std::string> default_torch_core() {
    return {"torch", "torchvision", "torchaudio"};
}

std::string with_trailing_slash(std::string_view url) {
    std::string out(url);
    if (out.empty() || out.back() != '/') out += '/';
    return out;
}

IndexRouting IndexRouting::from_options(std::string_view primary,
                                        const std::vector<std::string>& extra_indexes,
                                        const std::vector<std::string>& find_links,
                                        std::string_view torch_index_url,
                                        std::string_view torch_backend) {
    IndexRouting routing;
    if (!primary.empty()) {
        routing.indexes.push_back({"primary", with_trailing_slash(primary), IndexKind::simple});
    }
    for (std::size_t i = 0; i < extra_indexes.size(); ++i) {
        routing.indexes.push_back({"extra-index " + std::to_string(i + 1),
                                   with_trailing_slash(extra_indexes[i]), IndexKind::simple});
    }
    for (const auto& location : find_links) {
        routing.indexes.push_back({"find-links", location, IndexKind::find_links});
    }
    if (!torch_index_url.empty() && !torch_backend.empty()) {
        routing.torch_backend_index = IndexLocation{
            "torch " + std::string(torch_backend),
            with_trailing_slash(with_trailing_slash(torch_index_url) + std::string(torch_backend)),
            IndexKind::torch_backend};
    }
    return routing;
}

namespace {

bool matches_any(const std::vector<std::string>& patterns, std::string_view project) {
    const std::string name = pep::canonicalize_name(project);
    for (const auto& pattern : patterns) {
        if (!pattern.empty() && pattern.back() == '*') {
            if (std::string_view(name).starts_with(
                    std::string_view(pattern).substr(0, pattern.size() - 1))) {
                return true;
            }
        } else if (name == pattern) {
            return true;
        }
    }
    return false;
}

}  // namespace

bool IndexRouting::is_torch_family(std::string_view project) const {
    return matches_any(torch_family, project);
}

bool IndexRouting::is_torch_core(std::string_view project) const {
    return matches_any(torch_core, project) && matches_any(torch_family, project);
}

bool IndexRouting::merges(std::string_view project) const {
    if (strategy == IndexStrategy::first_index) return false;
    return !(torch_backend_index && is_torch_family(project));
}

std::vector<IndexLocation> IndexRouting::candidates(std::string_view project) const {
    if (!torch_backend_index || !is_torch_family(project)) return indexes;
    if (is_torch_core(project)) return {*torch_backend_index};
    std::vector<IndexLocation> out{*torch_backend_index};
    out.insert(out.end(), indexes.begin(), indexes.end());
    return out;
}

std::vector<IndexLocation> IndexRouting::candidates_beyond_backend(std::string_view project) const {
    if (torch_backend_index && is_torch_core(project)) return {};
    return indexes;
}

std::string project_page_url(const IndexLocation& index, std::string_view project) {
    if (index.kind == IndexKind::find_links) return index.url;
    return with_trailing_slash(index.url) + std::string(project) + "/";
}

}  // namespace aitk::index
