#pragma once
// One simulated load of one library (private to diag): its imports, their imports and so on,
// depth first, each looked up by the target OS's loader in a process that holds what this load
// has mapped so far. Windows delay-load imports come after the whole static graph, as they load
// at first call. What the scan must know about is handed to a sink as it is met.
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "aitk/diag/scan.hpp"
#include "image_cache.hpp"
#include "linux_loader.hpp"
#include "resolution.hpp"
#include "windows_loader.hpp"

namespace aitk::diag::detail {

struct WalkEvent {
    std::string_view name;             // the import concerned
    std::span<const ChainNode> chain;  // the library opened ... the importer
    // found, already_loaded, missing, wrong_architecture or bad_image
    const Resolution& resolution;
    bool delay_load = false;  // reached through a delay-load import
    // What the importer imports from `name` (Windows; empty on Linux).
    std::span<const PeImportedSymbol> symbols;
};

// Deep enough for any real graph; stops a pathological one.
inline constexpr std::size_t kMaxChainDepth = 64;

class DependencyWalk {
  public:
    using Sink = std::function<void(const WalkEvent&)>;

    // Exactly one loader is given: the one of the target OS.
    DependencyWalk(WindowsLoader* windows, LinuxLoader* linux_loader, Sink sink);

    // Walks the graph of `library` (an image with PE or ELF tables), opened by path.
    void walk(const ChainNode& library);

  private:
    struct PendingDelay {
        std::vector<ChainNode> chain;
        // Both point into the importer's PeImage, which the cache keeps.
        std::string_view name;
        std::span<const PeImportedSymbol> symbols;
    };

    void visit(std::vector<ChainNode>& chain, bool delay_load);
    void import(std::vector<ChainNode>& chain, std::string_view name, bool delay_load,
                const LinuxContext* context, std::span<const PeImportedSymbol> symbols = {});
    void add_loaded(std::string_view name, const ChainNode& node);

    WindowsLoader* windows_;
    LinuxLoader* linux_;
    Sink sink_;
    LoadedModules loaded_;
    std::unordered_set<const Image*> visited_;
    std::vector<PendingDelay> pending_;
};

}  // namespace aitk::diag::detail
