#include "aitk/resolve/resolver.hpp"

#include "solver.hpp"

namespace aitk::resolve {

Resolution resolve(PackageSource& source, std::span<const RootRequirement> roots,
                   const ResolveOptions& options) {
    return Solver(source, roots, options).run();
}

}  // namespace aitk::resolve
