#include "uv_options.hpp"

namespace aitk::cli {

void add_uv_selection_flags(CLI::App& command, app::UvLockOptions& options) {
    command.add_option("--extra", options.extras,
                       "uv project: install this optional-dependencies extra of the project "
                       "(repeatable)");
    command.add_flag("--all-extras", options.all_extras,
                     "uv project: install every extra of the project");
    command.add_option("--group", options.groups,
                       "uv project: install this dependency group too (repeatable)");
    command.add_flag("--no-default-groups", options.no_default_groups,
                     "uv project: leave out the default dependency groups (\"dev\", or [tool.uv] "
                     "default-groups)");
}

void add_locked_flag(CLI::App& command, app::UvLockOptions& options) {
    command.add_flag("--locked", options.locked,
                     "uv.lock: exit 1 when it no longer matches the pyproject.toml beside it "
                     "(uv sync --locked); without it, a warning");
}

}  // namespace aitk::cli
