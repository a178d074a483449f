#pragma once
// Private to the pep layer: reading and writing the quoted strings of PEP 508 markers.
#include <cstddef>
#include <string>
#include <string_view>

#include "aitk/pep/parsed.hpp"

namespace aitk::pep::detail {

// The value of a Python string literal (quotes included) as ast.literal_eval reads it: \n, \t,
// \x41, \101, \u00e9, \U0001F600, line continuations, unknown escapes kept as written. Errors
// (unterminated, bad escapes, a raw newline, a NUL byte) point into `input` at `position` + the
// offending offset.
Parsed<std::string> decode_python_string(std::string_view literal, std::string_view input,
                                         std::size_t position);

// Appends `value` as a literal that decode_python_string() reads back unchanged: "value" when
// possible (packaging's form), else 'value', else double-quoted with escapes.
void append_python_string(std::string& out, std::string_view value);

}  // namespace aitk::pep::detail
