#include <string>

#include "aitk/lock/exporters.hpp"
#include "aitk/pep/direct_reference.hpp"

namespace aitk::lock {
namespace {

// pip takes the hash of a direct reference from its `#sha256=` fragment; the `--hash` option
// says the same where every reader of a requirements file looks for it.
std::string with_hash_option(const std::string& requirement) {
    if (requirement.starts_with("-") || requirement.find(" @ ") == std::string::npos) {
        return requirement;
    }
    const auto url = std::string_view(requirement).substr(requirement.find(" @ ") + 3);
    const auto sha256 = pep::split_fragment(url).sha256();
    if (!sha256) return requirement;
    return requirement + " --hash=sha256:" + std::string(*sha256);
}

}  // namespace

RequirementsExport export_requirements(const Lockfile& lock, const LockedTarget& target,
                                       const ExportSource& source) {
    RequirementsExport out;
    const PipSection pip = pip_section(lock, target);
    out.left_out = pip.left_out;
    std::string& text = out.text;
    text += "# Exported by aitk-env from " + source.label + ", target " + target.id + " (Python " +
            target.python + ").\n";
    text += "# The target was resolved for that platform and Python, so no line has a marker.\n";
    text += "# Install into a fresh environment with:\n";
    text += "#   python -m pip install --require-hashes -r FILE\n";
    if (!pip.left_out.empty()) {
        std::string names;
        for (const auto& name : pip.left_out)
            names += (names.empty() ? "" : ", ") + name;
        text += "# Not here, as pip cannot check them by hash: " + names + "\n";
    }
    for (const auto& line : pip.lines)
        text += with_hash_option(line) + "\n";
    return out;
}

}  // namespace aitk::lock
