#include "lock_routing.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "aitk/app/index_routing.hpp"
#include "aitk/platform/tables.hpp"
#include "aitk/project/torch_pins.hpp"

namespace aitk::app::lock_detail {
namespace {

constexpr std::string_view default_index_url = "https://pypi.org/simple";

std::string torch_index_url(const LockRequest& request, const project::ProjectInput& input) {
    if (request.indexes.torch_index_url) return *request.indexes.torch_index_url;
    if (input.torch_index_url) return *input.torch_index_url;
    // A requirements file's "--extra-index-url https://download.pytorch.org/whl/cu128" names
    // the torch index its pins come from.
    if (auto pins = project::torch_pins(input); pins && pins->index_base) return *pins->index_base;
    auto tables = platform::builtin_tables();
    return tables ? tables->torch_index_url : std::string("https://download.pytorch.org/whl");
}

// The backend whose index serves the torch family; "mps" wheels are PyPI's own.
std::string torch_backend_of(const project::Target& target) {
    return target.backend == "mps" ? std::string() : target.backend;
}

// The command line's indexes with the input's, in the order of the input's own tool. pip: the
// input's, then the command line's extra indexes, and --index-url as the primary. uv (a
// pyproject.toml, whose indexes end with the default one): the command line's extra indexes
// first, then the project's, and --index-url in place of the default index.
void add_index_order(IndexSettings& settings, const LockRequest& request,
                     const project::ProjectInput& input) {
    const auto& cli = request.indexes;
    if (!input.default_index_last) {
        settings.index_url = cli.index_url ? cli.index_url : input.options.index_url;
        settings.extra_index_urls = input.options.extra_index_urls;
        settings.extra_index_urls.insert(settings.extra_index_urls.end(),
                                         cli.extra_index_urls.begin(), cli.extra_index_urls.end());
        return;
    }
    std::vector<std::string> own;
    if (input.options.index_url) own.push_back(*input.options.index_url);
    own.insert(own.end(), input.options.extra_index_urls.begin(),
               input.options.extra_index_urls.end());
    std::optional<std::string> default_index;
    if (!own.empty()) {
        default_index = own.back();
        own.pop_back();
    } else if (!input.options.no_index) {
        default_index = std::string(default_index_url);
    }
    if (cli.index_url) default_index = cli.index_url;
    std::vector<std::string> order = cli.extra_index_urls;
    order.insert(order.end(), own.begin(), own.end());
    if (default_index) order.push_back(*default_index);
    if (order.empty()) return;
    settings.index_url = order.front();
    settings.extra_index_urls.assign(order.begin() + 1, order.end());
}

}  // namespace

// How this lock takes a package that several indexes list: --index-strategy or
// AITK_ENV_INDEX_STRATEGY, else the way the input's own tool does (pip's best match for
// requirements files, uv's first index for a pyproject.toml).
index::IndexStrategy strategy_of_input(const project::ProjectInput& input) {
    return index::parse_index_strategy(input.index_strategy)
        .value_or(index::IndexStrategy::unsafe_best_match);
}
index::IndexStrategy strategy_for(const LockRequest& request, const project::ProjectInput& input) {
    return request.indexes.index_strategy.value_or(strategy_of_input(input));
}

index::IndexRouting routing_for(const LockRequest& request, const project::ProjectInput& input,
                                const project::Target& target) {
    IndexSettings settings;
    add_index_order(settings, request, input);
    settings.find_links = input.options.find_links;
    settings.find_links.insert(settings.find_links.end(), request.indexes.find_links.begin(),
                               request.indexes.find_links.end());
    settings.torch_index_url = torch_index_url(request, input);
    RoutingDefaults defaults;
    if (!input.options.no_index) defaults.index_url = default_index_url;
    auto routing = routing_from_settings(settings, torch_backend_of(target), defaults);
    routing.strategy = strategy_for(request, input);
    routing.version_files_from_every_index = input.version_files_from_every_index;
    // The rest of the family the input takes from the PyTorch index (triton, xformers).
    for (const auto& name : input.backend_index_packages) {
        if (!routing.is_torch_family(name)) routing.torch_family.push_back(name);
    }
    return routing;
}

std::vector<lock::LockedIndex> all_indexes(const LockRequest& request,
                                           const project::ProjectInput& input,
                                           const std::vector<project::Target>& targets) {
    std::vector<lock::LockedIndex> out;
    for (const auto& target : targets) {
        for (auto& entry : to_locked(routing_for(request, input, target))) {
            if (std::find(out.begin(), out.end(), entry) == out.end()) out.push_back(entry);
        }
    }
    return out;
}

}  // namespace aitk::app::lock_detail
