#include <string>

#include "aitk/lock/exporters.hpp"
#include "aitk/lock/yaml_scalar.hpp"
#include "lock_text.hpp"

namespace aitk::lock {

std::string export_env_yml(const Lockfile& lock, const LockedTarget& target,
                           const ExportSource& source) {
    std::string out;
    const auto line = [&out](int indent, std::string_view text) {
        out.append(static_cast<std::size_t>(indent), ' ');
        out += text;
        out += '\n';
    };
    line(0, "# environment.yml for " + target.id + ", exported by aitk-env from " + source.label +
                ".");
    line(0, "# Create it with `conda env create -f FILE` or `micromamba create -f FILE`; pip");
    line(0, "# installs the packages in hash-checking mode. Regenerate it rather than editing it.");
    line(0, "name: " + yaml_scalar(lock.name));
    if (lock.channels.empty()) {
        line(0, "channels: []");
    } else {
        line(0, "channels:");
        for (const auto& channel : lock.channels)
            line(2, "- " + yaml_scalar(channel));
    }
    line(0, "dependencies:");
    line(2, "- " + yaml_scalar("python=" + target.python));
    line(2, "- pip");
    const PipSection pip = pip_section(lock, target);
    if (!pip.lines.empty()) line(2, "- pip:");
    if (!pip.left_out.empty()) {
        std::string names;
        for (const auto& name : pip.left_out)
            names += (names.empty() ? "" : ", ") + name;
        line(pip.lines.empty() ? 2 : 6, "# not here, as pip cannot check them by hash: " + names);
    }
    for (const auto& requirement : pip.lines)
        line(6, "- " + yaml_scalar(requirement));
    bool header = false;
    for (const auto& [name, value] : target.variables) {
        if (detail::reserved_variable(name)) continue;  // conda owns PATH
        if (!header) line(0, "variables:");
        header = true;
        line(2, yaml_scalar(name) + ": " + yaml_scalar(value));
    }
    return out;
}

}  // namespace aitk::lock
