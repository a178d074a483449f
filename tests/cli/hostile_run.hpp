#pragma once
// Running the binary of a VictimWorld with what the hostile-input tests of names, input files
// and secrets need beyond VictimWorld::cli: a working folder, extra environment variables and a
// time limit, so that a command that hangs (reading a FIFO) fails its test instead of blocking it.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/util/subprocess.hpp"
#include "hostile_support.hpp"

namespace aitk::test {

struct HostileRun {
    std::filesystem::path cwd;             // empty: the test's own
    std::vector<std::string> environment;  // more "NAME=value" entries
    std::chrono::seconds limit{120};       // then the run is killed: exit code -1
};

inline CliResult run_in_world(const VictimWorld& world, std::vector<std::string> args,
                              const HostileRun& how = {}) {
    util::ProcessRequest request;
    request.argv = {AITK_ENV_EXE,  "--no-progress",
                    "--cache-dir", world.path("cache").string(),
                    "--index-url", world.server.url("/simple/")};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.working_directory = how.cwd;
    request.timeout = how.limit;
    request.output_limit = std::size_t{16} << 20;
    auto environment = isolated_environment(world.work.path(), hostile_python_bin);
    environment.insert(environment.end(), how.environment.begin(), how.environment.end());
    for (const auto& entry : environment) {
        if (entry.rfind("-u ", 0) == 0) {
            request.environment_changes[entry.substr(3)] = std::nullopt;
        } else if (const auto eq = entry.find('='); eq != std::string::npos) {
            request.environment_changes[entry.substr(0, eq)] = entry.substr(eq + 1);
        }
    }
    return cli_result_of(request);
}

// Line and column (1-based) of the first occurrence of `needle` in `text`: "L:C".
inline std::string position_of(const std::string& text, const std::string& needle) {
    const auto at = text.find(needle);
    if (at == std::string::npos) return "?:?";
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return std::to_string(line) + ":" + std::to_string(at - line_start + 1);
}

}  // namespace aitk::test
