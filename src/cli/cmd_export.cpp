// `aitk-env export`: one lock target in another format.
#include <iostream>
#include <memory>

#include "aitk/app/export.hpp"
#include "aitk/lock/exporters.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_export_command(CLI::App& app, GlobalOptions& globals) {
    struct Args {
        std::string lock, prefix, format, target, output;
    };
    auto a = std::make_shared<Args>();
    auto* export_app =
        app.add_subcommand("export",
                           "Write one target of a lockfile as environment.yml, requirements.txt, "
                           "pylock.toml or a Dockerfile");
    auto* l = export_app->add_option("-l,--lock", a->lock, "Lockfile to export");
    auto* p = export_app->add_option("-p,--prefix", a->prefix,
                                     "Prefix whose lock copy to export (<prefix>/.aitk-env/)");
    l->excludes(p);
    export_app
        ->add_option("--format", a->format,
                     "One of " + lock::export_format_list() +
                         " (env-yml: conda/micromamba environment.yml without x-aitk-env; "
                         "requirements: for `pip install --require-hashes -r`; pylock: PEP 751; "
                         "dockerfile: an image that runs `aitk-env setup` on the lock)")
        ->required();
    export_app
        ->add_option("--target", a->target,
                     "Lock target (default: the prefix's with -p, else the lock's default "
                     "target)")
        ->check(target_id_check());
    export_app->add_option("-o,--output", a->output,
                           "File to write, atomically (default: stdout); a dockerfile export "
                           "also writes .dockerignore beside it");
    export_app->footer(
        "One target is exported, resolved for one platform and Python, so packages carry no "
        "environment markers. Packages a format cannot pin (requirements, env-yml: VCS "
        "checkouts and local folders, which pip cannot hash) are left out and named.\n"
        "Exit codes: 0 written, 1 I/O failure, 2 bad input (unknown format or target, a prefix "
        "without a lock copy, a lockfile problem at file:line:column).");

    Command command;
    command.app = export_app;
    command.run = [a, &globals]() -> int {
        app::ExportRequest request;
        if (!a->lock.empty()) request.lockfile = util::path_from_utf8(a->lock);
        if (!a->prefix.empty()) request.prefix = util::path_from_utf8(a->prefix);
        request.format = a->format;
        request.target = a->target;
        if (!a->output.empty()) request.output = util::path_from_utf8(a->output);
        request.cwd = std::filesystem::current_path();
#ifdef _WIN32
        request.windows = true;
#endif
        auto outcome = app::run_export(request);
        if (globals.json) {
            auto json = outcome.to_json();
            if (!request.output) json["text"] = outcome.text;
            std::cout << json.dump(2) << "\n";
        } else if (!request.output) {
            std::cout << outcome.text;
        }
        if (!globals.json && globals.verbosity >= 0) {
            for (const auto& note : outcome.notes)
                std::cerr << "note: " << note << "\n";
            for (const auto& path : outcome.written)
                std::cerr << "wrote " << util::utf8_of(path) << "\n";
        }
        return 0;
    };
    return command;
}

}  // namespace aitk::cli
