#pragma once
// Runs the built aitk-env binary as a user would (a real process, real stdin/stdout) and
// captures what it printed and its exit code.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace aitk::test {

struct CliResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') {
            q += "'\\''";
        } else {
            q += c;
        }
    }
    return q + "'";
}

// `env` entries are `env` arguments: "NAME=value" sets, "-u NAME" unsets.
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = {},
                         const std::vector<std::string>& env = {}) {
    namespace fs = std::filesystem;
    static int counter = 0;
    fs::path dir = fs::temp_directory_path() /
                   ("aitk-cli-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
    {
        std::ofstream in(dir / "stdin", std::ios::binary);
        in << stdin_text;
    }
    std::string cmd = "env ";
    for (const auto& e : env) cmd += e + " ";
    cmd += shell_quote(AITK_ENV_EXE);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    cmd += " <" + shell_quote((dir / "stdin").string()) + " >" +
           shell_quote((dir / "stdout").string()) + " 2>" +
           shell_quote((dir / "stderr").string());
    int status = std::system(cmd.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto slurp = [](const fs::path& p) {
        std::ifstream f(p, std::ios::binary);
        std::ostringstream ss;
        ss << f.rdbuf();
        return ss.str();
    };
    r.out = slurp(dir / "stdout");
    r.err = slurp(dir / "stderr");
    fs::remove_all(dir);
    return r;
}

}  // namespace aitk::test
