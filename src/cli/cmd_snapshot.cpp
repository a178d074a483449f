// `aitk-env snapshot`: placeholder registration; the command lands with issue 9.
#include "aitk/util/error.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_snapshot_command(CLI::App& app, GlobalOptions&) {
    Command command;
    command.app = app.add_subcommand("snapshot", "(not available yet)");
    command.app->group("");
    command.run = []() -> int {
        throw util::Error(util::ExitCode::failure,
                          "aitk-env snapshot is not available in this build");
    };
    return command;
}

}  // namespace aitk::cli
