#pragma once
// PEP 503 project names, following packaging.utils: canonicalize_name, its validate=True rule and
// is_normalized_name.
#include <string>
#include <string_view>

namespace aitk::pep {

// Runs of '-', '_' and '.' become one '-', letters are lower-cased ("Foo.__Bar" -> "foo-bar").
// Works on any text, valid or not, like packaging. Lower-casing covers ASCII and Latin-1
// letters ("BÁR" -> "bár"); other scripts keep their case.
std::string canonicalize_name(std::string_view name);

// The PEP 508 name grammar: ASCII letters and digits, with '-', '_' and '.' allowed between
// them ("a.b_c-d" yes; "-a", "a-", "", "a b" no).
bool is_valid_name(std::string_view name) noexcept;

// A valid name that canonicalize_name() leaves unchanged: lower case, single '-' separators.
bool is_normalized_name(std::string_view name) noexcept;

}  // namespace aitk::pep
