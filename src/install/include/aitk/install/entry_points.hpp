#pragma once
// A wheel's entry_points.txt (the "Entry points" spec): INI-style `[group]` sections of
// `name = value` lines, read the way importlib.metadata reads them; and the `module:attr [extras]`
// values of the console_scripts / gui_scripts groups, which become script wrappers.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/expected.hpp"

namespace aitk::install {

struct EntryPoint {
    std::string group;  // "console_scripts"
    std::string name;   // "black"
    std::string value;  // "black:patched_main [d]"
    std::size_t line = 0;
};

// Blank lines and '#' / ';' comments are skipped; names and values are trimmed. Errors read
// "line 3: ...".
util::Expected<std::vector<EntryPoint>, std::string> parse_entry_points(std::string_view text);

// What a script wrapper imports and calls: "pkg.cli:main.run [extra]" -> module "pkg.cli",
// attribute "main.run" (the wrapper imports "main" and calls "main.run()").
struct ScriptTarget {
    std::string module;
    std::string attribute;
    std::vector<std::string> extras;
};

// The value of a console or GUI script. A callable is required (pip refuses "name = module").
util::Expected<ScriptTarget, std::string> parse_script_target(std::string_view value);

// Whether a script name can be a file in the scripts folder: not empty, no whitespace, no '/',
// '\\' or control characters, not "." or "..".
bool is_valid_script_name(std::string_view name) noexcept;

}  // namespace aitk::install
