#pragma once
// Running the shims for real: a venv to write them into, programs that may or may not be
// installed, and `env -0` output read back as an Environment.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::shim::test {

inline const std::filesystem::path kPython = "/root/.pyenv/versions/3.12.1/bin/python";

// The program `name` on this machine's PATH, if installed.
inline std::optional<std::filesystem::path> installed(std::string_view name) {
    auto path = util::environment_lookup(util::current_environment(), "PATH", false);
    return util::find_program(name, path.value_or("/usr/local/bin:/usr/bin:/bin"));
}

inline util::ProcessResult run(std::vector<std::string> argv,
                               std::optional<util::Environment> environment = std::nullopt,
                               std::filesystem::path working_directory = {}) {
    util::ProcessRequest request;
    request.argv = std::move(argv);
    request.environment = std::move(environment);
    request.working_directory = std::move(working_directory);
    auto result = util::run_process(request);
    if (!result) {
        ADD_FAILURE() << "cannot start " << request.argv.front() << ": " << result.error().message;
        return {};
    }
    return *result;
}

// A real venv without pip: the layout `aitk-env setup` writes shims into.
inline void make_venv(const std::filesystem::path& where, const std::filesystem::path& python) {
    auto result = run({python.string(), "-m", "venv", "--without-pip", where.string()});
    ASSERT_TRUE(result.succeeded()) << result.describe() << result.err;
}

// `env -0` output: NAME=VALUE records ended by NUL.
inline util::Environment parse_env0(std::string_view text) {
    util::Environment env;
    while (!text.empty()) {
        std::size_t end = text.find('\0');
        std::string_view record = text.substr(0, end);
        std::size_t eq = record.find('=');
        env[std::string(record.substr(0, eq))] =
            eq == std::string_view::npos ? "" : std::string(record.substr(eq + 1));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return env;
}

// Names the shell maintains by itself (bash's SHLVL and _, everyone's PWD).
inline util::Environment without_shell_variables(util::Environment env) {
    for (const char* name : {"PWD", "SHLVL", "_", "OLDPWD"})
        env.erase(name);
    return env;
}

}  // namespace aitk::shim::test
