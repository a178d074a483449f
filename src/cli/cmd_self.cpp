// `aitk-env self install|uninstall|update`.
#include <iostream>
#include <memory>

#include "aitk/app/progress.hpp"
#include "aitk/app/self.hpp"
#include "aitk/platform/user_path.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_self_command(CLI::App& app, GlobalOptions& globals) {
    auto* self = app.add_subcommand("self", "Install, update or remove this aitk-env itself");
    self->require_subcommand(1);
    struct Args {
        std::string dir;
        bool no_modify_path = false;
        std::string base_url;
        std::string version;
        bool check = false;
    };
    auto args = std::make_shared<Args>();
    const std::string dir_help =
        "The folder (default: %LOCALAPPDATA%\\Programs\\aitk-env\\bin on Windows, "
        "$XDG_BIN_HOME or ~/.local/bin elsewhere)";
    auto* install = self->add_subcommand(
        "install",
        "Copy this executable into a per-user folder and put the folder on PATH (Windows: the "
        "Path value under HKCU\\Environment; elsewhere it prints the line to add to your shell's "
        "start-up file, which it never edits)");
    install->add_option("--dir", args->dir, dir_help);
    install->add_flag("--no-modify-path", args->no_modify_path,
                      "Copy only; leave the user's PATH setting alone");
    auto* uninstall = self->add_subcommand(
        "uninstall", "Remove the folder's aitk-env and the PATH entry that install added");
    uninstall->add_option("--dir", args->dir, dir_help);
    uninstall->add_flag("--no-modify-path", args->no_modify_path,
                        "Leave the user's PATH setting alone");
    auto* update = self->add_subcommand(
        "update",
        "Replace this executable with the newest release for this system: SHA256SUMS at the "
        "release address names the archives, the one chosen is sha256-checked before anything "
        "is replaced");
    update
        ->add_option("--base-url", args->base_url,
                     "The release folder holding SHA256SUMS and the archives (default: "
                     "AITK_ENV_RELEASE_URL, else " +
                         std::string(app::default_release_url) + ")")
        ->envname("AITK_ENV_RELEASE_URL");
    update->add_flag("--check", args->check, "Only say whether a newer release exists");
    update->add_option("--version", args->version,
                       "Install this version, even an older one (a downgrade is never made "
                       "otherwise)");
    self->footer(
        "Exit codes: 0 ok (also: already installed, up to date), 1 a failed copy, download or "
        "hash check (the installed executable is then unchanged), 2 bad input.");

    Command command;
    command.app = self;
    command.run = [=, &globals]() -> int {
        app::SelfReport report;
        if (install->parsed() || uninstall->parsed()) {
            app::SelfInstallOptions options;
            options.executable = util::self_executable_path();
            options.dir = path_or_none(args->dir);
            options.modify_path = !args->no_modify_path;
            options.environment = util::current_environment();
            options.windows = host_is_windows;
            auto store = platform::system_user_path_store();
            options.user_path = store.get();
            report = install->parsed() ? app::self_install(options) : app::self_uninstall(options);
        } else {
            auto style = progress_style(globals);
            app::DownloadProgress progress(std::cerr, style, 1, 0);
            app::Session session(session_settings(globals, &progress));
            app::SelfUpdateOptions options;
            options.executable = util::self_executable_path();
            options.current_version = AITK_ENV_VERSION;
            options.target = app::this_release_target();
            options.base_url =
                args->base_url.empty() ? std::string(app::default_release_url) : args->base_url;
            if (!args->version.empty()) options.version = args->version;
            options.check_only = args->check;
            options.windows = host_is_windows;
            report = app::self_update(session, options);
            if (progress.transfers() > 0) progress.finish();
        }
        return print_report(globals, report);
    };
    return command;
}

}  // namespace aitk::cli
