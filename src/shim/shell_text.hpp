#pragma once
// Literals and patterns for the shells the shims are written in. Every function returns text
// that the shell reads back as exactly `value`, whatever it holds (except where noted).
#include <optional>
#include <string>
#include <string_view>

namespace aitk::shim::detail {

// POSIX sh (and bash, zsh): util::sh_quote (aitk/util/shell_quote.hpp), shared with the
// installer's script trampolines.

// fish: '...' where \ and ' are escaped with a backslash (the only escapes fish reads there).
std::string fish_quote(std::string_view value);

// PowerShell: '...' with every single-quote character doubled — ' and the typographic
// U+2018..U+201B, which PowerShell also reads as quotes.
std::string powershell_quote(std::string_view value);

// cmd.exe, unquoted, for `set NAME=<here>` in a batch file: % becomes %% and each of
// ^ & | < > ( ) " gets a ^ in front, so none of them acts; '!' needs nothing because the shim
// runs with delayed expansion off. A line break cannot be written in a batch line: nullopt.
std::optional<std::string> cmd_escape(std::string_view value);

// Python source: an ASCII-only '...' literal; non-ASCII as \u / \U escapes of the UTF-8 text,
// and bytes that are not UTF-8 as the surrogate escapes (\udc80..\udcff) Python uses for them.
std::string python_literal(std::string_view value);

// A sh `case` pattern matching any text containing `needle` (lower-case ASCII, '/' standing for
// either separator): "*[/\\][cC][uU][dD][aA]*".
std::string sh_contains_pattern(std::string_view needle);

// The prompt label: the prefix's folder name with anything but [A-Za-z0-9._-] as '_', because
// prompts are expanded again by bash ($(...)) and zsh (%).
std::string prompt_label(std::string_view prefix);

}  // namespace aitk::shim::detail
