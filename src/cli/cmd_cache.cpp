// `aitk-env cache dir|info|prune|clean|verify`.
#include <iostream>
#include <memory>

#include "aitk/app/cache.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_cache_command(CLI::App& app, GlobalOptions& globals) {
    auto* cache = app.add_subcommand("cache", "Inspect and clean the shared cache");
    cache->require_subcommand(1);
    struct Args {
        std::vector<std::string> kinds;
        double http_older_than_days = -1;
        bool repair = false;
    };
    auto args = std::make_shared<Args>();
    auto* dir = cache->add_subcommand("dir", "Print the cache root");
    auto* info = cache->add_subcommand("info", "Entries and sizes per kind");
    auto* prune = cache->add_subcommand(
        "prune", "Remove what nothing refers to: unpacked trees of deleted artifacts, debris");
    prune
        ->add_option("--http-older-than", args->http_older_than_days,
                     "Also drop index responses older than this many days")
        ->check(CLI::NonNegativeNumber);
    auto* clean = cache->add_subcommand("clean", "Empty the cache (or only the given kinds)");
    clean->add_option("KIND", args->kinds, "artifacts, unpacked, metadata, http or temp");
    auto* verify = cache->add_subcommand(
        "verify", "Hash every artifact and every unpacked tree's files against RECORD");
    verify->add_flag("--repair", args->repair,
                     "Remove the damaged entries (the next setup or sync makes them again)");
    verify->footer(
        "Exit codes: 0 clean (with --repair: every damaged entry removed), 1 an entry could not "
        "be removed, 4 damage found.");

    Command command;
    command.app = cache;
    command.run = [=, &globals]() -> int {
        auto root = app::resolve_cache_root(globals.cache_dir, util::current_environment());
        if (dir->parsed()) {
            if (globals.json) {
                std::cout << nlohmann::json{{"root", util::utf8_of(root)}}.dump() << "\n";
            } else {
                std::cout << util::utf8_of(root) << "\n";
            }
            return 0;
        }
        app::CacheReport report;
        if (info->parsed()) report = app::cache_info(root);
        if (prune->parsed()) {
            std::optional<std::chrono::seconds> older;
            if (args->http_older_than_days >= 0) {
                older = std::chrono::seconds(
                    static_cast<std::int64_t>(args->http_older_than_days * 86400.0));
            }
            report = app::cache_prune(root, older);
        }
        if (clean->parsed()) report = app::cache_clean(root, args->kinds);
        if (verify->parsed()) report = app::cache_verify(root, args->repair);
        return print_report(globals, report);
    };
    return command;
}

}  // namespace aitk::cli
