// `aitk-env pep ...`: evaluate packaging standards from the command line.
#include <iostream>
#include <string>

#include "aitk/app/pep.hpp"
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
        if (result.is_string()) {
            std::cout << result.get<std::string>() << "\n";
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
    };
    auto args = std::make_shared<Args>();
    auto* version = pep->add_subcommand("version", "Parse and normalise a PEP 440 version");
    version->add_option("VERSION", args->a, "Version string")->required();
    auto* normalize = pep->add_subcommand("normalize", "Print the normalised form of a version");
    normalize->add_option("VERSION", args->a, "Version string")->required();
    auto* compare = pep->add_subcommand("compare", "Compare two versions (-1, 0 or 1)");
    compare->add_option("A", args->a, "First version")->required();
    compare->add_option("B", args->b, "Second version")->required();
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
        return print_reply(app::pep_eval(request), globals);
    };
    return command;
}

}  // namespace aitk::cli
