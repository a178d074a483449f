// `aitk-env mirror`: a static simple index of the locked artifacts.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "aitk/app/cache.hpp"
#include "aitk/app/mirror.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/rewrite_config.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_mirror_command(CLI::App& app, GlobalOptions& globals) {
    struct Args {
        std::string lock, output, base_url;
        std::vector<std::string> targets, rewrite_urls;
    };
    auto args = std::make_shared<Args>();
    auto* mirror =
        app.add_subcommand("mirror", "A static simple index of the locked artifacts (PEP 503/691)");
    mirror->add_option("-l,--lock", args->lock, "Lockfile")->required();
    mirror->add_option("-o,--output", args->output, "Folder to write (created or refreshed)")
        ->required();
    mirror->add_option("--base-url", args->base_url,
                       "URL the folder will be served at: absolute links (default: relative)");
    mirror->add_option("--target", args->targets, "Only these lock targets (default: all)")
        ->check(target_id_check());
    mirror->add_option("--rewrite-url", args->rewrite_urls,
                       "FROM=TO: download a locked URL starting with FROM from TO + the rest "
                       "(then AITK_ENV_REWRITE_URL, ~/.config/aitk-env/config.yaml, "
                       "/etc/aitk-env/config.yaml)");
    mirror->footer(
        "Writes DIR/simple/ (HTML and JSON pages) and DIR/files/<project>/<file> (+ .metadata).\n"
        "Serve DIR, then: aitk-env --index-url <URL>/simple setup -l LOCK\n"
        "Exit codes: 0 written, 1 failure (download, hash, I/O), 2 bad input.");

    Command command;
    command.app = mirror;
    command.run = [args, &globals]() -> int {
        app::MirrorRequest request;
        request.lockfile = util::path_from_utf8(args->lock);
        request.output = util::path_from_utf8(args->output);
        if (!args->base_url.empty()) request.base_url = args->base_url;
        request.targets = args->targets;
        if (!globals.index_url.empty() || !globals.extra_index_urls.empty()) {
            request.sources.indexes = index_settings(globals);
        }
        auto style = progress_style(globals);
        app::DownloadProgress progress(std::cerr, style, 0, 0);
        app::Session session(session_settings(globals, &progress, args->rewrite_urls));
        request.sources.rewrite = session.network().rewrite;
        request.sources.local_files =
            app::LocalFileRule::for_lock(session.cwd(), request.lockfile, index_settings(globals));
        auto outcome = app::run_mirror(session, request);
        if (progress.transfers() > 0) progress.finish();
        for (const auto& warning : outcome.warnings)
            std::cerr << "warning: " << warning << "\n";
        return print_outcome(globals, outcome);
    };
    return command;
}

}  // namespace aitk::cli
