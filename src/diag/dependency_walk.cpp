#include "dependency_walk.hpp"

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::diag::detail {

DependencyWalk::DependencyWalk(WindowsLoader* windows, LinuxLoader* linux_loader, Sink sink)
    : windows_(windows), linux_(linux_loader), sink_(std::move(sink)) {}

void DependencyWalk::add_loaded(std::string_view name, const ChainNode& node) {
    if (windows_) {
        // Windows matches a loaded module by its base name, whatever the case.
        loaded_.add(util::to_lower(name), node.path, node.image);
        return;
    }
    // ld.so matches the names an object was requested by, its SONAME and its path.
    loaded_.add(std::string(name), node.path, node.image);
    if (node.image->elf && node.image->elf->soname)
        loaded_.add(*node.image->elf->soname, node.path, node.image);
    loaded_.add(util::utf8_of(node.path), node.path, node.image);
}

void DependencyWalk::walk(const ChainNode& library) {
    loaded_.clear();
    visited_.clear();
    pending_.clear();
    add_loaded(util::utf8_of(library.path.filename()), library);
    visited_.insert(library.image);
    std::vector<ChainNode> chain = {library};
    visit(chain, false);
    // Delay-load imports load at their first call, after the whole static graph; those met
    // while following one are queued behind it.
    for (std::size_t i = 0; i < pending_.size(); ++i) {
        std::vector<ChainNode> delayed_chain = pending_[i].chain;
        import(delayed_chain, pending_[i].name, true, nullptr, pending_[i].symbols);
    }
}

void DependencyWalk::visit(std::vector<ChainNode>& chain, bool delay_load) {
    const Image& image = *chain.back().image;
    if (windows_ && image.pe) {
        const PeImage& pe = *image.pe;
        auto symbols = [](const auto& tables, std::size_t i) {
            return i < tables.size() ? std::span<const PeImportedSymbol>(tables[i])
                                     : std::span<const PeImportedSymbol>();
        };
        for (std::size_t i = 0; i < pe.imports.size(); ++i)
            import(chain, pe.imports[i], delay_load, nullptr, symbols(pe.import_symbols, i));
        for (std::size_t i = 0; i < pe.delay_imports.size(); ++i)
            pending_.push_back(
                PendingDelay{chain, pe.delay_imports[i], symbols(pe.delay_import_symbols, i)});
    } else if (linux_ && image.elf) {
        LinuxContext context = linux_->context(chain);
        for (const auto& name : image.elf->needed)
            import(chain, name, delay_load, &context);
    }
}

void DependencyWalk::import(std::vector<ChainNode>& chain, std::string_view name, bool delay_load,
                            const LinuxContext* context,
                            std::span<const PeImportedSymbol> symbols) {
    const ChainNode& importer = chain.back();
    Resolution r =
        windows_ ? windows_->resolve(name, importer.path, importer.image->pe->machine, loaded_)
                 : linux_->resolve(name, *context, loaded_);
    switch (r.status) {
        case ResolveStatus::present:
        case ResolveStatus::unknown:
            return;
        case ResolveStatus::already_loaded:  // bound to that module: its exports must fit
        case ResolveStatus::missing:
        case ResolveStatus::wrong_architecture:
        case ResolveStatus::bad_image:
            sink_(WalkEvent{name, chain, r, delay_load, symbols});
            return;
        case ResolveStatus::found:
            break;
    }
    ChainNode node{r.path, r.image};
    add_loaded(name, node);
    sink_(WalkEvent{name, chain, r, delay_load, symbols});
    if (!visited_.insert(r.image).second || chain.size() >= kMaxChainDepth) return;
    chain.push_back(node);
    visit(chain, delay_load);
    chain.pop_back();
}

}  // namespace aitk::diag::detail
