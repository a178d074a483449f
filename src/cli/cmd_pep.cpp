// `aitk-env pep ...`: evaluate packaging standards from the command line.
#include <algorithm>
#include <iostream>
#include <string>

#include "aitk/app/pep.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/util/error.hpp"
#include "commands.hpp"

namespace aitk::cli {
namespace {

// Prints a pep_eval() reply: the JSON object with --json, else the bare result (strings
// unquoted); an error goes to stderr with exit 2.
int print_reply(const nlohmann::json& reply, const GlobalOptions& globals) {
    if (globals.json) {
        std::cout << reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    if (!reply["ok"].get<bool>()) {
        if (!globals.json) std::cerr << "error: " << reply["error"].get<std::string>() << "\n";
        return static_cast<int>(util::ExitCode::bad_input);
    }
    if (!globals.json) {
        const auto& result = reply["result"];
        bool string_list =
            result.is_array() &&
            std::all_of(result.begin(), result.end(), [](const auto& x) { return x.is_string(); });
        if (result.is_string()) {
            std::cout << result.get<std::string>() << "\n";
        } else if (string_list) {  // one per line, for grep and shell loops
            for (const auto& item : result)
                std::cout << item.get<std::string>() << "\n";
        } else {
            std::cout << result.dump(2) << "\n";
        }
    }
    return 0;
}

}  // namespace

Command add_pep_command(CLI::App& app, GlobalOptions& globals) {
    auto* pep = app.add_subcommand("pep", "Evaluate packaging standards (PEP 440/508/503/425)");
    pep->require_subcommand(1);

    struct Args {
        std::string a, b;
        std::vector<std::string> list;
        std::string python = "3.12", os = "linux", arch = "x86_64", libc = "glibc 2.17",
                    os_version = "11.0";
        bool pre = false, no_pre = false;
    };
    auto args = std::make_shared<Args>();
    auto* version = pep->add_subcommand("version", "Parse and normalise a PEP 440 version");
    version->add_option("VERSION", args->a, "Version string")->required();
    auto* normalize = pep->add_subcommand("normalize", "Print the normalised form of a version");
    normalize->add_option("VERSION", args->a, "Version string")->required();
    auto* compare = pep->add_subcommand("compare", "Compare two versions (-1, 0 or 1)");
    compare->add_option("A", args->a, "First version")->required();
    compare->add_option("B", args->b, "Second version")->required();
    auto* contains = pep->add_subcommand(
        "contains", "Does a specifier set (\">=2.6,<2.8\") admit a version? true/false");
    contains->add_option("SPEC", args->a, "Specifier set")->required();
    contains->add_option("VERSION", args->b, "Candidate version")->required();
    auto* filter = pep->add_subcommand("filter", "Keep the versions a specifier set admits");
    filter->add_option("SPEC", args->a, "Specifier set")->required();
    filter->add_option("VERSIONS", args->list, "Candidate versions")->required();
    for (auto* sub : {contains, filter}) {
        sub->add_flag("--pre", args->pre, "Admit prereleases");
        sub->add_flag("--no-pre", args->no_pre, "Never admit prereleases");
    }
    auto* marker = pep->add_subcommand("marker", "Evaluate a PEP 508 environment marker");
    marker->add_option("MARKER", args->a, "Marker expression")->required();
    marker->add_option("--env", args->list,
                       "Environment value NAME=VALUE (repeatable; unset names are empty)");
    auto* requirement =
        pep->add_subcommand("requirement", "Parse a PEP 508 requirement into its parts");
    requirement->add_option("REQUIREMENT", args->a, "Requirement string")->required();
    auto* wheel = pep->add_subcommand("wheel", "Parse a wheel filename (name, version, tags)");
    wheel->add_option("FILENAME", args->a, "Wheel filename")->required();
    auto* name = pep->add_subcommand("name", "PEP 503-normalise a project name");
    name->add_option("NAME", args->a, "Project name")->required();
    auto* tags = pep->add_subcommand("tags", "Compatible wheel tags of a target, best first");
    for (auto* sub : {tags, wheel}) {
        sub->add_option("--python", args->python, "Python version X.Y (default 3.12)");
        sub->add_option("--os", args->os, "linux, macos or windows (default linux)");
        sub->add_option("--arch", args->arch, "Machine (default x86_64)");
        sub->add_option("--libc", args->libc, "\"glibc X.Y\" or \"musl X.Y\" (Linux)");
        sub->add_option("--os-version", args->os_version, "macOS version X.Y");
    }
    auto* batch = pep->add_subcommand(
        "batch", "Read JSON requests, one per line, from stdin and answer each on a line");

    Command command;
    command.app = pep;
    command.run = [=, &globals]() -> int {
        using nlohmann::json;
        if (batch->parsed()) {
            std::ios::sync_with_stdio(false);
            app::pep_batch(std::cin, std::cout);
            return 0;
        }
        json request;
        if (version->parsed()) request = {{"op", "version"}, {"version", args->a}};
        if (normalize->parsed()) request = {{"op", "normalize"}, {"version", args->a}};
        if (compare->parsed()) request = {{"op", "compare"}, {"a", args->a}, {"b", args->b}};
        json prereleases = nullptr;
        if (args->pre) prereleases = true;
        if (args->no_pre) prereleases = false;
        json target = {{"python", args->python},
                       {"os", args->os},
                       {"arch", args->arch},
                       {"libc", args->libc},
                       {"os_version", args->os_version}};
        if (contains->parsed()) {
            request = {{"op", "contains"},
                       {"spec", args->a},
                       {"version", args->b},
                       {"prereleases", prereleases}};
        }
        if (filter->parsed()) {
            request = {{"op", "filter"},
                       {"spec", args->a},
                       {"versions", args->list},
                       {"prereleases", prereleases}};
        }
        if (marker->parsed()) {
            json env = json::object();
            for (const auto& item : args->list) {
                auto eq = item.find('=');
                if (eq == std::string::npos) {
                    throw util::InputError("--env takes NAME=VALUE, got \"" + item + "\"");
                }
                // A name typed here is meant as a marker variable: a typo is reported, where
                // `pep batch` ignores extra keys as packaging does.
                auto set = pep::MarkerEnvironment().set(item.substr(0, eq), item.substr(eq + 1));
                if (!set)
                    return print_reply({{"ok", false}, {"error", set.error().describe()}}, globals);
                env[item.substr(0, eq)] = item.substr(eq + 1);
            }
            request = {{"op", "marker"}, {"marker", args->a}, {"environment", env}};
        }
        if (requirement->parsed()) request = {{"op", "requirement"}, {"input", args->a}};
        if (name->parsed()) request = {{"op", "name"}, {"input", args->a}};
        if (wheel->parsed()) {
            request = {{"op", "wheel"}, {"filename", args->a}};
            // Ranking against a target only when one was described.
            if (!wheel->get_option("--python")->empty() || !wheel->get_option("--os")->empty()) {
                request["target"] = target;
            }
        }
        if (tags->parsed()) {
            request = target;
            request["op"] = "tags";
        }
        return print_reply(app::pep_eval(request), globals);
    };
    return command;
}

}  // namespace aitk::cli
