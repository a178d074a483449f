// `aitk-env mirror`: placeholder registration; the command lands with issue 9.
#include "aitk/util/error.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_mirror_command(CLI::App& app, GlobalOptions&) {
    Command command;
    command.app = app.add_subcommand("mirror", "(not available yet)");
    command.app->group("");
    command.run = []() -> int {
        throw util::Error(util::ExitCode::failure,
                          "aitk-env mirror is not available in this build");
    };
    return command;
}

}  // namespace aitk::cli
