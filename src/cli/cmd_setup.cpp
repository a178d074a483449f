// `aitk-env setup`: the whole job, from nothing to a working prefix. The options are the
// contract's; the pipeline behind them lands layer by layer (see README "Status").
#include <memory>
#include <string>

#include "aitk/util/error.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_setup_command(CLI::App& app, GlobalOptions& /*globals*/) {
    struct Args {
        std::string manifest, lock, requirements, env_file, bundle, prefix = ".venv",
                                                                    backend = "auto", python;
    };
    auto args = std::make_shared<Args>();
    auto* setup = app.add_subcommand("setup", "From nothing to a working prefix with shims");
    setup->add_option("-m,--manifest", args->manifest, "Manifest (default: AI Toolkit's)");
    setup->add_option("-l,--lock", args->lock, "Lockfile to install");
    setup->add_option("-r,--requirements", args->requirements, "requirements.txt to install");
    setup->add_option("-f,--file", args->env_file, "environment.yml to install");
    setup->add_option("--bundle", args->bundle, "Offline bundle to install from");
    setup->add_option("-p,--prefix", args->prefix, "Prefix to create (default .venv)");
    setup->add_option("--backend", args->backend, "Force a torch backend (auto = detect)")
        ->envname("AITK_ENV_TORCH_BACKEND");
    setup->add_option("--python", args->python, "Interpreter version X.Y or path");

    Command command;
    command.app = setup;
    command.run = [args]() -> int {
        throw util::Error(util::ExitCode::failure,
                          "setup is not available in this build yet: hardware detection, the "
                          "resolver and the installer have not landed",
                          "see README.md \"Status\" for what works today");
    };
    return command;
}

}  // namespace aitk::cli
