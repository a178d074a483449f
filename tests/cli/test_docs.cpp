// docs/cli.md and the binary agree: every flag a command's --help shows is documented in that
// command's section, every flag a section documents exists, and every AITK_ENV_* variable the
// sources read is documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.hpp"
#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::test::read_file;
using aitk::test::run_cli;

namespace {

namespace stdfs = std::filesystem;

stdfs::path repository() {
    return stdfs::path(AITK_TEST_DATA_DIR).parent_path().parent_path();
}

const std::string& cli_doc() {
    static const std::string text = read_file((repository() / "docs" / "cli.md").string());
    return text;
}

// The text of the section whose heading line is `heading`, up to the next heading of the same
// or a higher level.
std::string section(const std::string& heading) {
    const auto& doc = cli_doc();
    const auto at = doc.find("\n" + heading + "\n");
    if (at == std::string::npos) return {};
    const auto level = heading.substr(0, heading.find(' ') + 1);  // "### "
    auto end = doc.size();
    for (auto h = doc.find("\n#", at + 1); h != std::string::npos; h = doc.find("\n#", h + 1)) {
        const auto hashes = doc.find(' ', h + 1) - (h + 1);
        if (hashes <= level.size() - 1) {
            end = h;
            break;
        }
    }
    return doc.substr(at, end - at);
}

std::set<std::string> long_flags(const std::string& text) {
    static const std::regex flag("--[a-z][a-z0-9-]*");
    std::set<std::string> out;
    for (std::sregex_iterator it(text.begin(), text.end(), flag), end; it != end; ++it)
        out.insert(it->str());
    return out;
}

std::string help(const std::vector<std::string>& command) {
    auto args = command;
    args.push_back("--help");
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
}

// The names listed under "Subcommands:" in a help text.
std::vector<std::string> subcommands(const std::string& help_text) {
    std::vector<std::string> out;
    const auto at = help_text.find("Subcommands:");
    if (at == std::string::npos) return out;
    std::istringstream lines(help_text.substr(at));
    std::string line;
    std::getline(lines, line);
    static const std::regex entry("^  ([a-z][a-z0-9-]*) .*");
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_match(line, m, entry)) out.push_back(m[1]);
    }
    return out;
}

// A command's help and that of its own subcommands (cache prune, pep tags, …).
std::string full_help(const std::string& command) {
    std::string text = help({command});
    for (const auto& sub : subcommands(text))
        text += help({command, sub});
    return text;
}

}  // namespace

TEST(CliDocs, EveryFlagOfEveryCommandIsDocumentedInItsSection) {
    const auto global = help({});
    const auto global_doc = section("## Global options");
    ASSERT_FALSE(global_doc.empty());
    for (const auto& flag : long_flags(global.substr(0, global.find("Subcommands:")))) {
        EXPECT_TRUE(long_flags(global_doc).count(flag)) << flag << " (global)";
    }
    const auto commands = subcommands(global);
    ASSERT_GE(commands.size(), 14u);
    for (const auto& command : commands) {
        const auto doc = section("### `" + command + "`");
        ASSERT_FALSE(doc.empty()) << "docs/cli.md has no section for " << command;
        const auto documented = long_flags(doc);
        for (const auto& flag : long_flags(full_help(command))) {
            if (flag == "--help") continue;
            EXPECT_TRUE(documented.count(flag) || long_flags(global_doc).count(flag))
                << command << " " << flag << " is not documented in docs/cli.md";
        }
    }
}

TEST(CliDocs, EveryDocumentedFlagExists) {
    const auto global = help({});
    const auto global_flags = long_flags(global);
    auto any_flags = global_flags;  // the global section also names commands' flags
    for (const auto& command : subcommands(global)) {
        const auto known = long_flags(full_help(command));
        any_flags.insert(known.begin(), known.end());
        for (const auto& flag : long_flags(section("### `" + command + "`"))) {
            EXPECT_TRUE(known.count(flag) || global_flags.count(flag))
                << command << " " << flag << " is documented but unknown to the binary";
        }
    }
    for (const auto& flag : long_flags(section("## Global options"))) {
        EXPECT_TRUE(any_flags.count(flag)) << flag << " is documented but unknown to the binary";
    }
}

TEST(CliDocs, EveryEnvironmentVariableTheSourcesReadIsDocumented) {
    // As a string literal: how the sources name a variable they read (AITK_ENV_VERSION and
    // the like are compile definitions, never quoted).
    static const std::regex name("\"(AITK_ENV_[A-Z0-9_]+)\"");
    std::set<std::string> read;
    for (const auto& entry : stdfs::recursive_directory_iterator(repository() / "src")) {
        const auto ext = entry.path().extension();
        if (ext != ".cpp" && ext != ".hpp") continue;
        const auto text = read_file(entry.path().string());
        for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it)
            read.insert((*it)[1].str());
    }
    ASSERT_GE(read.size(), 20u);
    for (const auto& variable : read) {
        EXPECT_NE(cli_doc().find(variable), std::string::npos)
            << variable << " is read but not documented in docs/cli.md";
    }
}

}  // namespace AITK_FILE_LOCAL
