// `aitk-env bundle`: one offline archive with the lock, its artifacts and interpreters.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "aitk/app/bundle.hpp"
#include "aitk/app/cache.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/rewrite_config.hpp"
#include "aitk/python/standalone_install.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_bundle_command(CLI::App& app, GlobalOptions& globals) {
    struct Args {
        std::string lock, output;
        std::vector<std::string> targets;
        bool no_python = false;
    };
    auto args = std::make_shared<Args>();
    auto* bundle = app.add_subcommand(
        "bundle",
        "One offline archive (tar.zst) with the lockfile, every artifact of its targets and "
        "their standalone CPython; install it with `setup --bundle FILE`");
    bundle->add_option("-l,--lock", args->lock, "Lockfile to bundle")->required();
    bundle->add_option("-o,--output", args->output, "Bundle file to write (e.g. env.aitk.tar.zst)")
        ->required();
    bundle
        ->add_option("--target", args->targets,
                     "Lock target to include, repeatable (default: every target of the lock)")
        ->check(target_id_check());
    bundle->add_flag("--no-python", args->no_python,
                     "Leave the standalone CPython archives out (the installing machine then "
                     "needs its own Python)");
    bundle->footer(
        "The same lock, targets and aitk-env give the same bytes. Artifacts come through the "
        "cache (a warm cache downloads nothing) and every sha256 is checked.\n"
        "Exit codes: 0 written, 1 failure (download, hash), 2 bad input (lockfile, unknown "
        "target).");

    Command command;
    command.app = bundle;
    command.run = [args, &globals]() -> int {
        app::BundleRequest request;
        request.lockfile = util::path_from_utf8(args->lock);
        request.output = util::path_from_utf8(args->output);
        request.targets = args->targets;
        request.include_python = !args->no_python;
        auto environment = util::current_environment();
        if (auto it = environment.find(std::string(python::python_mirror_variable));
            it != environment.end()) {
            request.python_mirror = it->second;
        }
        request.indexes = index_settings(globals);

        auto style = progress_style(globals);
        app::DownloadProgress progress(std::cerr, style, 0, 0);
        app::Session session(session_settings(globals, &progress));
        auto outcome = app::write_bundle(session, request);
        if (progress.transfers() > 0) progress.finish();
        return print_outcome(globals, outcome);
    };
    return command;
}

}  // namespace aitk::cli
