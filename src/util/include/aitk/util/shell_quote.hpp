#pragma once
// Quoting for POSIX sh (and bash, zsh), the one home for it: the shims write paths and values
// into sh scripts with it, and the installer writes the interpreter path of a console script's
// /bin/sh trampoline with it.
#include <string>
#include <string_view>

namespace aitk::util {

// `value` as one sh word that the shell reads back byte for byte, whatever it holds ($, `, ",
// ', \, newlines): single-quoted, each ' written '"'"' and each \ written '"\\"' (in double
// quotes "\\" is one backslash). Neither uses a backslash inside single quotes, so the same
// text is also a valid body of a Python '''...''' string (the trampoline's second line is read
// by both): it never holds ''' (at most two quotes in a row) and its only escape is \\, never
// an invalid one (\N, \x, \u, \d...) that Python would reject or warn about.
std::string sh_quote(std::string_view value);

}  // namespace aitk::util
